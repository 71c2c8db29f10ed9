"""Exercises of chapter 03a, the QK circuit's form (ex-q1-control, ex-q4-rank-one,
ex-q4-prev)."""

from __future__ import annotations

import functools

import numpy as np

from grading.registry import exercise
from grading.tolerance import close, float32_sums, relative_gap


def _antisymmetric_share(w) -> float:
    M = w.W_Q[1].astype(np.float64) @ w.W_K[1].astype(np.float64).T
    return float(np.linalg.norm(M - M.T) ** 2 / (4 * np.linalg.norm(M) ** 2))


@functools.lru_cache(maxsize=1)
def _control_alpha() -> float:
    from attention_book.control import load_control

    return _antisymmetric_share(load_control().layers[0])


def _gpt2_alpha() -> float:
    from attention_book.gpt2 import load_gpt2

    return _antisymmetric_share(load_gpt2().layers[0])


@exercise("ex-q1-control", difficulty="warm-up", minutes=10, reference=_control_alpha,
          mistakes={"baseline": lambda: (1 - 1 / 768) / 2, "gpt2-head": _gpt2_alpha,
                    "without-the-4": lambda: 4 * _control_alpha()}, float32=True)
def _(value: float) -> str | None:
    # M's entries are float32 sums of 64 products; the baseline is 1.5e-3 away (relative)
    if relative_gap(value, _control_alpha()) <= float32_sums(64):
        return None
    return "That is not the antisymmetric share of the control's head 0.1."


def _first_columns() -> tuple[np.ndarray, np.ndarray]:
    from attention_book.gpt2 import load_gpt2

    w = load_gpt2().layers[2]
    return w.W_Q[2][:, 0].astype(np.float64), w.W_K[2][:, 0].astype(np.float64)


@functools.lru_cache(maxsize=1)
def _rank_one_eigenvalues() -> tuple[float, float]:
    q, k = _first_columns()
    lo, hi = (q @ k + np.array([-1.0, 1.0]) * np.linalg.norm(q) * np.linalg.norm(k)) / 2
    return float(lo), float(hi)


def _rank_one_reference() -> np.ndarray:
    return np.array(_rank_one_eigenvalues())


@exercise("ex-q4-rank-one", difficulty="standard", minutes=15, reference=_rank_one_reference,
          mistakes={"a-zero-eigenvalue": lambda: np.array([_rank_one_eigenvalues()[0], 0.0]),
                    "same-sign": lambda: np.abs(_rank_one_reference()),
                    "without-the-half": lambda: 2 * _rank_one_reference()}, float32=True)
def _(values: np.ndarray) -> str | None:
    # relative to the larger eigenvalue: q . k and |q| |k| are float32 sums of 768 products
    if close(np.sort(values), _rank_one_reference(), float32_sums(768)):
        return None
    return "These are not the two non-zero eigenvalues of (q k^T + k q^T)/2 for head 2.2."


@functools.lru_cache(maxsize=3)
def _weights_on(offset: int) -> np.ndarray:
    """[layer, head] mean causal attention weight on position i + offset over
    the 64 position rows; computed here from q and k alone (no values)."""
    from attention_book.gpt2 import causal_mask, layer_norm, load_gpt2, softmax

    model = load_gpt2()
    rows = model.position_rows(64)
    out = []
    for w in model.layers:
        x_ln = layer_norm(rows, w.ln_w, w.ln_b)
        q = np.matmul(x_ln, w.W_Q) + w.b_Q[:, None]
        k = np.matmul(x_ln, w.W_K) + w.b_K[:, None]
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
        pattern = softmax(np.where(causal_mask(64, 64), -np.inf, scores))
        out.append(np.diagonal(pattern, offset=offset, axis1=1, axis2=2).mean(-1))
    return np.stack(out)


@exercise("ex-q4-prev", difficulty="standard", minutes=20, reference=lambda: _weights_on(-1),
          mistakes={"on-the-next": lambda: _weights_on(1), "on-itself": lambda: _weights_on(0),
                    "transposed": lambda: _weights_on(-1).T}, float32=True)
def _(values: np.ndarray) -> str | None:
    tol = float32_sums(768)  # scores are float32 sums over the 768-wide rows' lenses
    if close(values, _weights_on(-1), tol):
        return None
    return "These are not the average weights on position i - 1 over the 64 position rows."
