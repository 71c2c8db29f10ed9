"""The self-score bounds of a shared lens (chapter 03a, Q3) and the asymmetry of scores and
weights (chapter 03b), measured on score matrices.

For a score matrix S with self-scores s_ii on its diagonal, every ordered pair i != j has
the Cauchy-Schwarz bound sqrt(s_ii s_jj) and the arithmetic-mean bound (s_ii + s_jj)/2.
"""

from __future__ import annotations

import numpy as np


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
