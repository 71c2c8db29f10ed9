"""Exercises of chapter 03, the QK circuit (book/03a_qk_form.md: ex-q1-control,
ex-q4-rank-one, ex-q4-prev; book/03b_qk_scores.md: ex-q5-flat)."""

from __future__ import annotations

import functools

import numpy as np

from . import exercise


def _as_float(answer) -> float:
    value = np.asarray(answer, dtype=np.float64)
    if value.size != 1:
        raise ValueError(f"expected one number, got an array of shape {value.shape}")
    return float(value.reshape(()))


# ----------------------------------------------------------- ex-q1-control


@functools.lru_cache(maxsize=1)
def _control_alpha() -> float:
    from ..control import load_control

    w = load_control().layers[0]
    M = w.W_Q[1].astype(np.float64) @ w.W_K[1].astype(np.float64).T
    return float(np.linalg.norm(M - M.T) ** 2 / (4 * np.linalg.norm(M) ** 2))


def _baseline(d: int = 768) -> float:
    return (1 - 1 / d) / 2


@exercise("ex-q1-control", difficulty="warm-up", minutes=10,
          hint="M is W_Q[1] @ W_K[1].T of control.layers[0], in float64; the share is "
               "||M - M^T||_F^2 / (4 ||M||_F^2), computed for this one head.",
          reference=_control_alpha, wrong=_baseline)
def _(answer) -> str | None:
    value = _as_float(answer)
    if abs(value - _control_alpha()) < 1e-9:
        return None
    if abs(value - _baseline()) < 1e-9:
        return ("That is the baseline (1 - 1/d)/2, an average over random draws; the exercise "
                "asks for this head's own share.")
    if not 0 <= value <= 1:
        return "An antisymmetric share lies between 0 and 1."
    return "That is not the antisymmetric share of the control's head 0.1."


# ----------------------------------------------------------- ex-q4-rank-one


def _first_columns() -> tuple[np.ndarray, np.ndarray]:
    from ..gpt2 import load_gpt2

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
          hint="Build S = (np.outer(q, k) + np.outer(k, q)) / 2 from the first columns of "
               "model.layers[2].W_Q[2] and W_K[2], take np.linalg.eigvalsh(S), keep the two "
               "of largest magnitude and sort them.",
          reference=_rank_one_reference, wrong=_rank_one_without_half)
def _(answer) -> str | None:
    values = np.sort(np.asarray(answer, dtype=np.float64).ravel())
    if values.shape != (2,):
        return f"Expected two eigenvalues, got {values.size} numbers."
    expected = np.array(_rank_one_eigenvalues())
    if np.allclose(values, expected, rtol=1e-6, atol=0):
        return None
    if np.allclose(values, 2 * expected, rtol=1e-6, atol=0):
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
          hint="Mask the upper triangle with -inf before the softmax; then row i spreads its "
               "weight evenly over keys 0..i.",
          reference=_flat_reference, wrong=_flat_without_mask)
def _(answer) -> str | None:
    value = _as_float(answer)
    if abs(value - _flat_reference()) < 1e-9:
        return None
    if abs(value) < 1e-9:
        return "Your weights are symmetric: the causal mask has not been applied."
    if abs(value - _asymmetry(_flat_weights(21))) < 1e-9 or \
            abs(value - _asymmetry(_flat_weights(19))) < 1e-9:
        return "That is the asymmetry for a different number of rows; T is 20."
    return "That is not the asymmetry of the masked uniform weights for T = 20."


# ----------------------------------------------------------- ex-q4-prev


@functools.lru_cache(maxsize=2)
def _weights_on(offset: int) -> np.ndarray:
    """[layer, head] mean causal attention weight on position i + offset over
    the 64 position rows; computed here from q and k alone (no values)."""
    from ..gpt2 import causal_mask, layer_norm, load_gpt2, softmax

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
          hint="For each layer, attention(w, model.position_rows(64)).pattern has shape "
               "[12, 64, 64]; the weights on i - 1 are its diagonal with offset -1 over the "
               "last two axes; average them over the 63 rows.",
          reference=_previous_reference, wrong=_self_weights)
def _(answer) -> str | None:
    values = np.asarray(answer, dtype=np.float64)
    if values.shape != (12, 12):
        return f"Expected a 12 x 12 array (layer by head), got shape {values.shape}."
    if np.allclose(values, _weights_on(-1), atol=1e-5, rtol=0):
        return None
    if np.allclose(values, _weights_on(0), atol=1e-5, rtol=0):
        return "These are the weights of each row on itself (position i), not on i - 1."
    if np.allclose(values, _weights_on(-1).T, atol=1e-5, rtol=0):
        return "The array is transposed: rows are layers, columns are heads."
    return "These are not the average weights on position i - 1 over the 64 position rows."
