"""Subspaces of the residual stream that a head reads or writes, and how they sit together.

A head's key lens W_K^h [d_model, d_head] reads only the component of a row that lies in
its column space; its output block W_O^h [d_head, d_model] writes only inside its row
space. Comparing such subspaces is done with principal angles: the cosines are the
singular values of Q_A^T Q_B for orthonormal bases Q_A, Q_B. Bases here are polar
factors W (W^T W)^{-1/2}, computed from the small d_head x d_head Gram matrix, so all
144 heads of GPT-2 small take a fraction of a second.
"""

from __future__ import annotations

import numpy as np


def orthonormal_basis(W: np.ndarray, *, with_singular_values: bool = False
                      ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """An orthonormal basis [..., d, k] of the column space of W [..., d, k] (full column
    rank), as the polar factor W (W^T W)^{-1/2}, in float64. With
    ``with_singular_values`` also W's singular values [..., k], descending (from the same
    k x k eigendecomposition)."""
    W = np.asarray(W, np.float64)
    evals, evecs = np.linalg.eigh(np.swapaxes(W, -1, -2) @ W)
    if (evals <= evals[..., -1:] * 1e-12).any():
        raise ValueError("W must have full column rank to define a k-dimensional subspace")
    inv_sqrt = (evecs / np.sqrt(evals)[..., None, :]) @ np.swapaxes(evecs, -1, -2)
    basis = W @ inv_sqrt
    return (basis, np.sqrt(evals[..., ::-1])) if with_singular_values else basis


def _basis(W: np.ndarray, orthonormal: bool) -> np.ndarray:
    return np.asarray(W, np.float64) if orthonormal else orthonormal_basis(W)


def principal_cosines(A: np.ndarray, B: np.ndarray, *, orthonormal: bool = False) -> np.ndarray:
    """Cosines of the principal angles between the column spaces of A [..., d, k] and
    B [..., d, l], descending, min(k, l) of them, each in [0, 1]. ``orthonormal=True``
    says A and B already have orthonormal columns (saves recomputing bases)."""
    M = np.swapaxes(_basis(A, orthonormal), -1, -2) @ _basis(B, orthonormal)
    return np.clip(np.linalg.svd(M, compute_uv=False), 0.0, 1.0)


def overlap(A: np.ndarray, B: np.ndarray, *, orthonormal: bool = False) -> np.ndarray:
    """Mean squared cosine of the principal angles, ||Q_A^T Q_B||_F^2 / min(k, l): 1 for
    the same subspace, 0 for orthogonal ones, k/d on average for independent random
    k-dim subspaces of R^d."""
    QA, QB = _basis(A, orthonormal), _basis(B, orthonormal)
    M = np.swapaxes(QA, -1, -2) @ QB
    return (M**2).sum((-1, -2)) / min(QA.shape[-1], QB.shape[-1])


def energy_fraction(x: np.ndarray, W: np.ndarray, *, orthonormal: bool = False) -> np.ndarray:
    """Share of the rows' total squared norm lying in the column space of W.

    x: [T, d] rows; W: [..., d, k]. Returns one number per leading index of W.
    """
    x = np.asarray(x, np.float64)
    inside = x @ _basis(W, orthonormal)
    return (inside**2).sum((-1, -2)) / (x**2).sum()


def random_frames(rng: np.random.Generator, n: int, d: int, k: int) -> np.ndarray:
    """n Gaussian [d, k] matrices: their column spaces are independent, uniformly random
    k-dimensional subspaces of R^d (the Gaussian is invariant under rotations)."""
    return rng.standard_normal((n, d, k))
