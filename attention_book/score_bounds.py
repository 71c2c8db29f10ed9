"""The self-score bounds of a shared lens (chapter 03a, Q3) and the asymmetry of scores and
weights (chapter 03b), measured on score matrices.

For a score matrix S with self-scores s_ii on its diagonal, every ordered pair i != j has
the Cauchy-Schwarz bound sqrt(s_ii s_jj) and the arithmetic-mean bound (s_ii + s_jj)/2.
``witness_violations`` breaks both with rows built from a head's weights alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .qk_form import model_form_spectra, model_lens_spectra

if TYPE_CHECKING:
    from .gpt2 import GPT2


def bound_slacks(S: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relative slack of both bounds for every ordered pair i != j of S [..., T, T]:
    (sqrt(s_ii s_jj) - s_ij) / sqrt(s_ii s_jj), -inf where s_ii s_jj < 0 (no real
    bound); ((s_ii + s_jj)/2 - s_ij) / |(s_ii + s_jj)/2|; and where s_ii s_jj < 0."""
    S = np.asarray(S, np.float64)
    T = S.shape[-1]
    off = ~np.eye(T, dtype=bool)
    diag = np.diagonal(S, axis1=-2, axis2=-1)
    prod = diag[..., :, None] * diag[..., None, :]
    root = np.sqrt(np.maximum(prod, 0))
    mean = (diag[..., :, None] + diag[..., None, :]) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        cs = np.where(prod >= 0, (root - S) / root, -np.inf)
        am = (mean - S) / np.abs(mean)
    return cs[..., off], am[..., off], (prod < 0)[..., off]


def diagonal_wins(S: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """Share of rows i >= 1 whose highest visible score is their own, j = i."""
    T = S.shape[-1]
    top = np.where(hidden, -np.inf, S).argmax(-1)
    return (top == np.arange(T))[..., 1:].mean(-1)


def relative_asymmetry(A: np.ndarray) -> np.ndarray:
    """||A - A^T||_F / ||A||_F over the last two axes."""
    A = np.asarray(A, np.float64)
    return (np.linalg.norm(A - np.swapaxes(A, -1, -2), axis=(-2, -1))
            / np.linalg.norm(A, axis=(-2, -1)))


def antisymmetric_share_of(S: np.ndarray) -> np.ndarray:
    """||S_a||_F^2 / ||S||_F^2 over the last two axes."""
    S = np.asarray(S, np.float64)
    return (((S - np.swapaxes(S, -1, -2)) ** 2 / 4).sum((-2, -1))
            / (S ** 2).sum((-2, -1)))


def self_score_rule_breaks(S: np.ndarray) -> int:
    """Q3's consequence, tested on score matrices S [..., T, T] under a causal mask: how
    many rows i >= 1 whose self-score s_ii exceeds every earlier self-score s_jj
    (j < i) have their highest visible score s_ij (j <= i) elsewhere. Under a shared
    lens s_ij <= (s_ii + s_jj)/2 < s_ii for every such row: none."""
    S = np.asarray(S, np.float64)
    T = S.shape[-1]
    diag = np.diagonal(S, axis1=-2, axis2=-1)
    earlier_best = np.maximum.accumulate(diag, axis=-1)[..., :-1]
    leads = diag[..., 1:] > earlier_best                  # rows 1..T-1
    top = np.where(np.triu(np.ones((T, T), bool), 1), -np.inf, S).argmax(-1)[..., 1:]
    if not leads.any():
        raise ValueError("no row's self-score exceeds the earlier ones: the rule has "
                         "nothing to test on these rows")
    return int((leads & (top != np.arange(1, T))).sum())


def asymmetry_over_rounding(S: np.ndarray, q: np.ndarray, k: np.ndarray, u: float
                            ) -> np.ndarray:
    """||S - S^T||_F of computed scores S = q k^T [..., T, T], in units of what rounding
    alone can make it: each score computed in precision u is off by at most
    gamma_e |q_i| . |k_j| (Higham, e = q.shape[-1] terms), so rounding alone gives
    ||S - S^T||_F <= 2 gamma_e || |q| |k|^T ||_F. Above 1, rounding cannot explain it."""
    S, q, k = (np.asarray(a, np.float64) for a in (S, q, k))
    e = q.shape[-1]
    gamma = e * u / (1 - e * u)
    bound = 2 * gamma * np.linalg.norm(np.abs(q) @ np.swapaxes(np.abs(k), -1, -2),
                                       axis=(-2, -1))
    return np.linalg.norm(S - np.swapaxes(S, -1, -2), axis=(-2, -1)) / bound


def witness_violations(model: GPT2) -> np.ndarray:
    """[2, n_layer, n_head]: how far the witness rows of every head break the
    Cauchy-Schwarz bound (0) and the mean bound (1), over ||W_Q||_2 ||W_K||_2, computed
    once per model. The witnesses are unit rows of the column space of B = [W_Q W_K]
    built from x_-, x_+, the rows along the smallest and largest eigenvalue lambda_-,
    lambda_+ of the symmetric part of M there (``qk_form.FormSpectra``): x_- and -x_-
    (mean bound), and the two null rows cos x_+ +- sin x_- with cos^2 = |lambda_-| /
    (lambda_+ + |lambda_-|) (Cauchy-Schwarz), each scored through the real lenses,
    s(x, y) = (x W_Q) . (y W_K)."""
    return model.memo("Q3 witness violations", _witness_violations)


def _witness_violations(model: GPT2) -> np.ndarray:
    spectra = model_form_spectra(model)
    lam = spectra.symmetric
    x_neg, x_pos = np.moveaxis(spectra.extremes, -3, 0)  # each [..., 2, d_k]: x W_Q, x W_K
    neg, pos = np.maximum(-lam[..., 0], 0), np.maximum(lam[..., -1], 0)
    cos = np.sqrt(np.divide(neg, pos + neg, out=np.zeros_like(neg),
                            where=pos + neg > 0))[..., None, None]
    sin = np.sqrt(1 - cos**2)

    def score(x, y):  # x, y: the images (row W_Q, row W_K) of two rows
        return (x[..., 0, :] * y[..., 1, :]).sum(-1)

    def worst(x, y, bound):
        return np.maximum(score(x, y), score(y, x)) - bound(score(x, x), score(y, y))

    null_a, null_b = cos * x_pos + sin * x_neg, cos * x_pos - sin * x_neg
    qq, kk = model_lens_spectra(model)
    scale = np.sqrt(qq[..., -1] * kk[..., -1])
    return np.stack([worst(null_a, null_b, lambda s, t: np.sqrt(abs(s * t))),
                     worst(x_neg, -x_neg, lambda s, t: (s + t) / 2)]) / scale
