"""Spectra of the per-head circuits, computed through their d_head-wide factors.

A head's QK circuit W_Q^h W_K^h^T and OV circuit W_V^h W_O^h are 768 x 768 but of rank
at most 64. Their non-zero singular values are those of R_A R_B^T, where A = Q_A R_A and
B = Q_B R_B are thin QR factorisations of the two 768 x 64 factors: a 64 x 64 problem.
"""

from __future__ import annotations

import numpy as np

from .gpt2 import AttentionWeights


def factored_singular_values(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Singular values of A @ B^T (descending) for A, B of shape [..., d, k], k <= d."""
    A, B = np.asarray(A, np.float64), np.asarray(B, np.float64)
    r_a = np.linalg.qr(A, mode="r")  # only R is needed
    r_b = np.linalg.qr(B, mode="r")
    return np.linalg.svd(r_a @ np.swapaxes(r_b, -1, -2), compute_uv=False)


def qk_singular_values(layers: list[AttentionWeights]) -> np.ndarray:
    """[n_layer, n_head, d_head] singular values of every W_Q^h W_K^h^T."""
    return np.stack([factored_singular_values(w.W_Q, w.W_K) for w in layers])


def ov_singular_values(layers: list[AttentionWeights]) -> np.ndarray:
    """[n_layer, n_head, d_head] singular values of every W_V^h W_O^h."""
    return np.stack([factored_singular_values(w.W_V, np.swapaxes(w.W_O, -1, -2))
                     for w in layers])


def float32_rank_threshold(s_max: float | np.ndarray, size: int) -> float | np.ndarray:
    """numpy's default matrix_rank cut-off for a float32 matrix of this size: singular
    values below s_max * size * eps(float32) are indistinguishable from rounding."""
    return s_max * size * np.finfo(np.float32).eps
