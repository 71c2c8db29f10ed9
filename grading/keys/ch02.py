"""Exercises of chapter 02, Why not just X X^T (claims N1-N3)."""

from __future__ import annotations

import functools

import numpy as np

from attention_book.chapter import rows_a
from attention_book.circuits import factored_singular_values, float32_rank_threshold
from attention_book.gpt2 import attention, load_gpt2
from grading.registry import exercise

HEAD = 3  # head 0.3, the head exercise ex-n3-dk works on
KEPT = 32  # singular directions kept in ex-n3-dk (b)


@functools.lru_cache(maxsize=2)
def _layer0_rows() -> np.ndarray:
    """The rows layer 0's lenses read on the book's example input: ln_1(x)."""
    model = load_gpt2()
    return attention(model.layers[0], rows_a(model)).x_ln


def _self_top_share() -> float:
    X = _layer0_rows()
    S = X @ X.T
    return float((S.argmax(1) == np.arange(len(X))).mean())


def _self_top_count() -> int:  # a plausible slip: the count, not the share
    X = _layer0_rows()
    return int(((X @ X.T).argmax(1) == np.arange(len(X))).sum())


@exercise("ex-n1-self", difficulty="standard", minutes=20, reference=_self_top_share,
          mistakes={"a-count": _self_top_count}, float32=True)
def _(share: float) -> str | None:
    want = _self_top_share()
    n = len(_layer0_rows())
    if abs(share - want) > 0.5 / n:  # the share's resolution: half a row in n
        side = "larger" if share > want else "smaller"
        return (f"{share:g} is {side} than the share the rows X give "
                f"(counted over all {n} positions).")
    return None


D_MODEL, D_HEAD = 768, 64
REDUNDANT = D_HEAD * D_HEAD


@exercise("ex-n2-gauge", difficulty="challenging", minutes=30, reference=lambda: REDUNDANT,
          mistakes={"every-number": lambda: 2 * D_MODEL * D_HEAD,
                    "what-remains": lambda: (2 * D_MODEL - D_HEAD) * D_HEAD,
                    "G-counted-twice": lambda: 2 * REDUNDANT})
def _(count: int) -> str | None:
    if count != REDUNDANT:
        return f"{count} is not the number of lens numbers that leave M unchanged."
    return None


@functools.lru_cache(maxsize=2)
def _head_M() -> np.ndarray:
    w = load_gpt2().layers[0]
    return w.W_Q[HEAD].astype(np.float64) @ w.W_K[HEAD].astype(np.float64).T


def _kept(M: np.ndarray) -> np.ndarray:
    U, s, Vt = np.linalg.svd(M)
    return (U[:, :KEPT] * s[:KEPT]) @ Vt[:KEPT]


@functools.lru_cache(maxsize=2)
def _padded_rank(nominal: bool = False) -> int:
    w = load_gpt2().layers[0]
    pad = np.zeros((D_MODEL, 16), np.float32)
    Wq80, Wk80 = np.hstack([w.W_Q[HEAD], pad]), np.hstack([w.W_K[HEAD], pad])
    if nominal:
        return Wq80.shape[1]
    s80 = factored_singular_values(Wq80, Wk80)
    return int((s80 > float32_rank_threshold(s80[0], D_MODEL)).sum())


@functools.lru_cache(maxsize=2)
def _truncation_answer() -> tuple[int, float]:
    """(rank of the zero-padded head, relative change of the scores on X when M
    keeps its top KEPT singular directions), for head 0.HEAD."""
    X, M = _layer0_rows().astype(np.float64), _head_M()
    scores = X @ M @ X.T
    cut = np.linalg.norm(X @ _kept(M) @ X.T - scores) / np.linalg.norm(scores)
    return _padded_rank(), float(cut)


def _change_of_M() -> tuple[int, float]:
    M = _head_M()
    return _padded_rank(), float(np.linalg.norm(_kept(M) - M) / np.linalg.norm(M))


@exercise("ex-n3-dk", difficulty="standard", minutes=20, reference=_truncation_answer,
          mistakes={"nominal-width": lambda: (_padded_rank(True), _truncation_answer()[1]),
                    "change-of-M": _change_of_M}, float32=True)
def _(answer: tuple[int, float]) -> str | None:
    rank, cut = answer
    want_rank, want_cut = _truncation_answer()
    if rank != want_rank:
        return (f"(a) rank {rank} is not what the padded head has: the nominal "
                "width and the rank are different things.")
    # relative to the change itself; far above float32's rounding of the result (1e-7)
    if not abs(cut - want_cut) <= 1e-3 * want_cut:
        side = "larger" if cut > want_cut else "smaller"
        return (f"(b) {cut:.4g} is {side} than the relative change of the "
                "scores on X (the Frobenius norm of the change over that of the "
                "scores).")
    return None
