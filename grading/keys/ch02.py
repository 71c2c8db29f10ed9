"""Exercises of chapter 02, Why not just X X^T (claims N1-N3)."""

from __future__ import annotations

import numpy as np

from attention_book.chapter import rows_a
from attention_book.circuits import factored_singular_values, float32_rank_threshold
from attention_book.gpt2 import attention, load_gpt2
from grading.registry import exercise

HEAD = 3  # head 0.3, the head exercise ex-n3-dk works on
KEPT = 32  # singular directions kept in ex-n3-dk (b)


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


@exercise("ex-n1-self", difficulty="standard", minutes=20,
          hint="Where is the largest entry of each row of S = X X^T? The answer is a "
               "share of the positions.",
          reference=_self_top_share, wrong=_self_top_count, float32=True)
def _(answer) -> str | None:
    share = float(answer)
    if not 0 <= share <= 1:
        return f"{share:g} is not a share: a share lies between 0 and 1."
    want = _self_top_share()
    n = len(_layer0_rows())
    if abs(share - want) > 0.5 / n:  # the share's resolution: half a row in n
        side = "larger" if share > want else "smaller"
        return (f"{share:g} is {side} than the share the rows X give "
                f"(counted over all {n} positions).")
    return None


D_MODEL, D_HEAD = 768, 64
REDUNDANT = D_HEAD * D_HEAD


@exercise("ex-n2-gauge", difficulty="challenging", minutes=30,
          hint="The redundancy is exactly the freedom in choosing G.",
          reference=lambda: REDUNDANT,
          wrong=lambda: 2 * D_MODEL * D_HEAD - REDUNDANT)
def _(answer) -> str | None:
    count = int(answer)
    if count != answer:
        return "the count should be a whole number."
    if count == 2 * D_MODEL * D_HEAD - REDUNDANT:
        return ("that is the number of degrees of freedom that remain in M, "
                "not the number of redundant lens numbers.")
    if count == 2 * D_MODEL * D_HEAD:
        return "that is every lens number; most of them do change M."
    if count != REDUNDANT:
        return f"{count} is not the number of lens numbers that leave M unchanged."
    return None


def _truncation_answer(nominal_rank: bool = False) -> tuple[int, float]:
    """(rank of the zero-padded head, relative change of the scores on X when M
    keeps its top KEPT singular directions), for head 0.HEAD."""
    model = load_gpt2()
    w = model.layers[0]
    pad = np.zeros((D_MODEL, 16), np.float32)
    Wq80, Wk80 = np.hstack([w.W_Q[HEAD], pad]), np.hstack([w.W_K[HEAD], pad])
    s80 = factored_singular_values(Wq80, Wk80)
    rank80 = int((s80 > float32_rank_threshold(s80[0], D_MODEL)).sum())
    X = _layer0_rows().astype(np.float64)
    M = w.W_Q[HEAD].astype(np.float64) @ w.W_K[HEAD].astype(np.float64).T
    U, s, Vt = np.linalg.svd(M)
    M_kept = (U[:, :KEPT] * s[:KEPT]) @ Vt[:KEPT]
    scores = X @ M @ X.T
    cut = np.linalg.norm(X @ M_kept @ X.T - scores) / np.linalg.norm(scores)
    return (Wq80.shape[1] if nominal_rank else rank80), float(cut)


@exercise("ex-n3-dk", difficulty="standard", minutes=20,
          hint="(a) Do zero columns add a direction? Use N3's threshold for the rank. "
               "(b) Which matrix of rank 32 is closest to M?",
          reference=_truncation_answer, wrong=lambda: _truncation_answer(True),
          float32=True)
def _(answer) -> str | None:
    rank, cut = answer
    want_rank, want_cut = _truncation_answer()
    if int(rank) != want_rank:
        return (f"(a) rank {rank} is not what the padded head has: the nominal "
                "width and the rank are different things.")
    # relative to the change itself; far above float32's rounding of the result (1e-7)
    if not abs(float(cut) - want_cut) <= 1e-3 * want_cut:
        side = "larger" if float(cut) > want_cut else "smaller"
        return (f"(b) {float(cut):.4g} is {side} than the relative change of the "
                "scores on X (the Frobenius norm of the change over that of the "
                "scores).")
    return None
