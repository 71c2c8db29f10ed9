"""Exercises of chapter 03, the QK circuit (book/03a_qk_form.md: ex-q1-control,
ex-q4-rank-one, ex-q4-prev; book/03b_qk_scores.md: ex-q5-flat)."""

from __future__ import annotations

import functools

import numpy as np

from grading.registry import exercise
from grading.tolerance import close, float32_sums, relative_gap


def _as_float(answer) -> float:
    value = np.asarray(answer, dtype=np.float64)
    if value.size != 1:
        raise ValueError(f"expected one number, got an array of shape {value.shape}")
    return float(value.reshape(()))


# ----------------------------------------------------------- ex-q1-control


@functools.lru_cache(maxsize=1)
def _control_alpha() -> float:
    from attention_book.control import load_control

    w = load_control().layers[0]
    M = w.W_Q[1].astype(np.float64) @ w.W_K[1].astype(np.float64).T
    return float(np.linalg.norm(M - M.T) ** 2 / (4 * np.linalg.norm(M) ** 2))


def _baseline(d: int = 768) -> float:
    return (1 - 1 / d) / 2


@exercise("ex-q1-control", difficulty="warm-up", minutes=10,
          hint="Build this one head's M and measure its antisymmetric share as the "
               "chapter defines it; an average over random draws is not this head's value.",
          reference=_control_alpha, wrong=_baseline, float32=True)
def _(answer) -> str | None:
    value = _as_float(answer)
    # M's entries are float32 sums of 64 products; the baseline is 1.5e-3 away (relative)
    if relative_gap(value, _control_alpha()) <= float32_sums(64):
        return None
    if relative_gap(value, _baseline()) <= float32_sums(64):
        return ("That is the baseline (1 - 1/d)/2, an average over random draws; the exercise "
                "asks for this head's own share.")
    if not 0 <= value <= 1:
        return "An antisymmetric share lies between 0 and 1."
    return "That is not the antisymmetric share of the control's head 0.1."


# ----------------------------------------------------------- ex-q4-rank-one


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


def _rank_one_without_half() -> np.ndarray:
    return 2 * np.array(_rank_one_eigenvalues())


@exercise("ex-q4-rank-one", difficulty="standard", minutes=15,
          hint="The symmetric part of a rank-one product q k^T acts on the plane of q "
               "and k only: its two non-zero eigenvalues live there. Mind the 1/2.",
          reference=_rank_one_reference, wrong=_rank_one_without_half, float32=True)
def _(answer) -> str | None:
    values = np.sort(np.asarray(answer, dtype=np.float64).ravel())
    if values.shape != (2,):
        return f"Expected two eigenvalues, got {values.size} numbers."
    expected = np.array(_rank_one_eigenvalues())
    # relative to the larger eigenvalue: q . k and |q| |k| are float32 sums of 768 products
    if close(values, expected, float32_sums(768)):
        return None
    if close(values, 2 * expected, float32_sums(768)):
        return "Both values are twice too large: the symmetric part carries a factor 1/2."
    if (values > 0).all() or (values < 0).all():
        return "Both values have the same sign, but this matrix has one of each sign."
    return "These are not the two non-zero eigenvalues of (q k^T + k q^T)/2 for head 2.2."


# ----------------------------------------------------------- ex-q5-flat


def _flat_weights(T: int = 20) -> np.ndarray:
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]


def _asymmetry(A: np.ndarray) -> float:
    return float(np.linalg.norm(A - A.T) / np.linalg.norm(A))


def _flat_reference() -> float:
    return _asymmetry(_flat_weights())


def _flat_without_mask() -> float:
    return _asymmetry(np.full((20, 20), 1 / 20))


@exercise("ex-q5-flat", difficulty="warm-up", minutes=10,
          hint="What does the causal mask do to a row of equal scores? Work out the "
               "weights of row i before you measure the asymmetry.",
          reference=_flat_reference, wrong=_flat_without_mask, float32=True)
def _(answer) -> str | None:
    value = _as_float(answer)
    tol = float32_sums(20)  # softmax rows of 20 and a 400-entry norm, in float32 at worst
    if relative_gap(value, _flat_reference()) <= tol:
        return None
    if value <= tol * _flat_reference():
        return "Your weights are symmetric: the causal mask has not been applied."
    if relative_gap(value, _asymmetry(_flat_weights(21))) <= tol or \
            relative_gap(value, _asymmetry(_flat_weights(19))) <= tol:
        return "That is the asymmetry for a different number of rows; T is 20."
    return "That is not the asymmetry of the masked uniform weights for T = 20."


# ----------------------------------------------------------- ex-q4-prev


@functools.lru_cache(maxsize=2)
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


def _previous_reference() -> np.ndarray:
    return _weights_on(-1)


def _self_weights() -> np.ndarray:
    return _weights_on(0)


@exercise("ex-q4-prev", difficulty="standard", minutes=20,
          hint="Each head's weight from row i on position i - 1 lies along one diagonal "
               "of its pattern on the position rows; average it over the rows that have "
               "an i - 1.",
          reference=_previous_reference, wrong=_self_weights, float32=True)
def _(answer) -> str | None:
    values = np.asarray(answer, dtype=np.float64)
    if values.shape != (12, 12):
        return f"Expected a 12 x 12 array (layer by head), got shape {values.shape}."
    tol = float32_sums(768)  # scores are float32 sums over the 768-wide rows' lenses
    if close(values, _weights_on(-1), tol):
        return None
    if close(values, _weights_on(0), tol):
        return "These are the weights of each row on itself (position i), not on i - 1."
    if close(values, _weights_on(-1).T, tol):
        return "The array is transposed: rows are layers, columns are heads."
    return "These are not the average weights on position i - 1 over the 64 position rows."
