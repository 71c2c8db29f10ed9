"""Subspaces of the residual stream that a head reads or writes, and how they sit together.

A head's key lens W_K^h [d_model, d_head] reads only the component of a row that lies in
its column space; its output block W_O^h [d_head, d_model] writes only inside its row
space. Comparing such subspaces is done with principal angles: the cosines are the
singular values of Q_A^T Q_B for orthonormal bases Q_A, Q_B. Bases here are polar
factors W (W^T W)^{-1/2}, computed from the small d_head x d_head Gram matrix, so all
144 heads of GPT-2 small take a fraction of a second.

A matrix of lower rank r < k (a modified checkpoint's head with a repeated column) still
spans a subspace, of dimension r: its basis has k - r zero columns, decided matrix by
matrix (singular values below numpy's float32 rank cut-off of that matrix count as zero),
so that one deficient head changes nothing for its neighbours.
"""

from __future__ import annotations

import numpy as np

from .circuits import column_major64, float32_rank_threshold


def _gram_eigen(W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W's singular values [..., k] (ascending), the eigenvectors of W^T W [..., k, k],
    and which singular values count as non-zero: above numpy's float32 rank cut-off of
    that matrix alone (``circuits.float32_rank_threshold``)."""
    evals, evecs = np.linalg.eigh(np.swapaxes(W, -1, -2) @ W)
    s = np.sqrt(np.clip(evals, 0.0, None))
    kept = s > float32_rank_threshold(s[..., -1:], max(W.shape[-2:]))
    return s, evecs, kept


def _inverse_where_kept(s: np.ndarray, kept: np.ndarray) -> np.ndarray:
    return np.divide(1.0, s, out=np.zeros_like(s), where=kept)


def orthonormal_basis(W: np.ndarray, *, with_singular_values: bool = False
                      ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """An orthonormal basis [..., d, k] of the column space of W [..., d, k], as the polar
    factor W (W^T W)^{-1/2}, in float64 (for a W of rank r < k: r orthonormal columns and
    k - r zero ones, see the module docstring). With ``with_singular_values`` also W's
    singular values [..., k], descending (from the same k x k eigendecomposition)."""
    W = np.asarray(W, np.float64)
    s, evecs, kept = _gram_eigen(W)
    inv_sqrt = (evecs * _inverse_where_kept(s, kept)[..., None, :]) @ np.swapaxes(evecs,
                                                                                  -1, -2)
    basis = W @ inv_sqrt
    return (basis, s[..., ::-1]) if with_singular_values else basis


def qr_basis(W: np.ndarray) -> np.ndarray:
    """The Q [..., d, k] of the thin QR factorisation of W [..., d, k] in float64: the
    same numbers as ``np.linalg.qr(W.astype(np.float64))[0]`` (LAPACK reads the same
    columns), handed over in LAPACK's layout, so with no transposing copy per matrix."""
    return np.linalg.qr(column_major64(np.asarray(W)))[0]


def whitener(W: np.ndarray) -> np.ndarray:
    """A k x k matrix T [..., k, k] in float64 with W T orthonormal, for W [..., d, k]:
    T = V diag(1/s) from the eigendecomposition V diag(s^2) V^T = W^T W (for a W of rank
    r < k, k - r columns of T are zero: W T has r orthonormal columns and k - r zero
    ones). W T is a basis of W's column space (not the polar one of
    ``orthonormal_basis``), so x (W T) = (x W) T reaches the subspace with no d x k basis
    formed."""
    W = np.asarray(W, np.float64)
    s, evecs, kept = _gram_eigen(W)
    return evecs * _inverse_where_kept(s, kept)[..., None, :]


def triangular_whitener(W: np.ndarray, *, gram: np.ndarray | None = None) -> np.ndarray:
    """A k x k matrix T [..., k, k] in float64 with W T orthonormal, as ``whitener`` gives,
    but from the Cholesky factor L of W^T W: T = L^{-T}, upper triangular, with no
    eigendecomposition (a Cholesky factorisation and the inverse of its factor cost a
    third of ``eigh`` at k = 64). Used when every matrix of the stack provably keeps all k
    directions: its smallest singular value, at least 1/||T||_F, clears the float32 rank
    cut-off of its largest, at most ||L||_F. Otherwise (a rank-deficient matrix, or a
    Cholesky factorisation that fails) it is ``whitener(W)``, zero columns and all. Any
    such T gives the same principal cosines and overlaps, up to float64 rounding.
    ``gram``: W^T W in float64 when already formed (``gram_blocks``)."""
    if gram is None:
        W = np.asarray(W, np.float64)
        gram = np.swapaxes(W, -1, -2) @ W
    try:
        L = np.linalg.cholesky(gram)
    except np.linalg.LinAlgError:
        return whitener(W)
    T = np.swapaxes(np.linalg.inv(L), -1, -2)
    s_min = 1.0 / np.linalg.norm(T, axis=(-2, -1))
    s_max = np.linalg.norm(L, axis=(-2, -1))
    if not np.all(s_min > float32_rank_threshold(s_max, max(np.shape(W)[-2:]))):
        return whitener(W)
    return T


def gram_blocks(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A^T A [..., k, k], A^T B [..., k, l] and B^T B [..., l, l] in float64, for A
    [..., d, k] and B [..., d, l] of the same leading shape, as the blocks of the one
    symmetric product [A B]^T [A B]: both are cast to float64 together and read once,
    where three products read each twice (each entry is the same d-term dot product:
    GPT-2's come out bit for bit as the three products')."""
    k = np.shape(A)[-1]
    AB = np.concatenate([A, B], axis=-1, dtype=np.float64)
    G = np.swapaxes(AB, -1, -2) @ AB
    return G[..., :k, :k], G[..., :k, k:], G[..., k:, k:]


def whitened_gram(A: np.ndarray, B: np.ndarray, *,
                  whitener_A: np.ndarray | None = None,
                  whitener_B: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """T_A, A^T B and T_B in float64: the whiteners of A [..., d, k] and B [..., d, l]
    (``triangular_whitener``, or ``whitener_A``/``_B`` when already known, from
    ``whitener`` or ``triangular_whitener``) and their cross product, all that
    ``principal_cosines_gram`` and ``overlap`` read. With neither whitener given and
    A, B of the same leading shape, the three products come from ``gram_blocks``."""
    if whitener_A is None and whitener_B is None and np.shape(A)[:-1] == np.shape(B)[:-1]:
        G_A, C, G_B = gram_blocks(A, B)
        return triangular_whitener(A, gram=G_A), C, triangular_whitener(B, gram=G_B)
    A, B = np.asarray(A, np.float64), np.asarray(B, np.float64)
    T_A = triangular_whitener(A) if whitener_A is None else whitener_A
    T_B = triangular_whitener(B) if whitener_B is None else whitener_B
    return T_A, np.swapaxes(A, -1, -2) @ B, T_B


def whitened_cosines(T_A: np.ndarray, C: np.ndarray, T_B: np.ndarray) -> np.ndarray:
    """The principal cosines from ``whitened_gram``'s T_A, A^T B, T_B: the singular
    values of T_A^T (A^T B) T_B = Q_A^T Q_B, descending, each in [0, 1]."""
    M = np.swapaxes(T_A, -1, -2) @ C @ T_B
    return np.clip(np.linalg.svd(M, compute_uv=False), 0.0, 1.0)


def principal_cosines_gram(A: np.ndarray, B: np.ndarray, *,
                           whitener_A: np.ndarray | None = None,
                           whitener_B: np.ndarray | None = None) -> np.ndarray:
    """``principal_cosines(A, B)`` from k x k matrices only: the singular values of
    T_A^T (A^T B) T_B, which is Q_A^T Q_B for the orthonormal bases Q = W T of
    ``triangular_whitener``; no d x k basis is formed. Equal to ``principal_cosines`` up
    to float64 rounding (the cosines do not depend on the bases chosen). ``whitener_A``/
    ``_B``: whiteners of A, B when already known (``whitened_gram``)."""
    return whitened_cosines(*whitened_gram(A, B, whitener_A=whitener_A,
                                           whitener_B=whitener_B))


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
    k-dim subspaces of R^d. Q_A^T Q_B is formed from k x k matrices (as in
    ``principal_cosines_gram``) unless A and B are ``orthonormal`` already; stacks of
    stacks ([L, H, d, k]) go one stack at a time, so no float64 copy of all of them at
    once."""
    if np.ndim(A) > 3 and np.ndim(B) > 3 and len(A) == len(B):
        return np.stack([overlap(a, b, orthonormal=orthonormal) for a, b in zip(A, B, strict=True)])
    if orthonormal:
        M = np.swapaxes(np.asarray(A, np.float64), -1, -2) @ np.asarray(B, np.float64)
    else:
        T_A, C, T_B = whitened_gram(A, B)
        M = np.swapaxes(T_A, -1, -2) @ C @ T_B
    return (M**2).sum((-1, -2)) / min(np.shape(A)[-1], np.shape(B)[-1])


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
