"""The per-head circuits, kept as their d_head-wide factors.

A head's QK circuit W_Q^h W_K^h^T and OV circuit W_V^h W_O^h are 768 x 768 but of rank
at most 64. ``FactoredCircuit`` keeps them as the two 768 x 64 factors (as TransformerLens'
``FactoredMatrix`` does): applying one to rows, its spectrum and its norm go through the
factors, and the dense 768 x 768 matrix is formed only by ``dense()``. Non-zero singular
values are those of R_A R_B^T, where A = Q_A R_A and B = Q_B R_B are thin QR factorisations
of the two factors: a 64 x 64 problem.

R_A is the Cholesky factor of the 64 x 64 Gram matrix A^T A (R_A^T R_A = A^T A: the same R
as Householder QR's, up to the signs of its rows, which move no singular value), at a
fraction of Householder's cost. Forming A^T A squares A's condition number, so this route
is taken only when a shifted Cholesky proves cond <= ~1e3 for both factors (singular
values then agree with Householder's to about 1e-10 relative or better; GPT-2's factors
have cond < 60 and agree to 2e-13); with a rank-deficient or ill-conditioned factor both
go through Householder QR.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def column_major64(a: np.ndarray) -> np.ndarray:
    """a in float64, each matrix stored column by column: LAPACK's layout, so that
    numpy hands it over without a transposing copy (same values, same result)."""
    return np.swapaxes(np.swapaxes(a, -1, -2).astype(np.float64, order="C"), -1, -2)


# Gram route only if lambda_min(A^T A) > GRAM_FLOOR * trace(A^T A): cond(A) <= ~1e3
GRAM_FLOOR = 1e-6


def gram_factor(A: np.ndarray) -> np.ndarray | None:
    """R [..., k, k] of the thin QR factorisation A = Q R of A [..., d, k] (k <= d), in
    float64 and with a positive diagonal, as the Cholesky factor of A^T A; None unless
    every matrix of the stack is well conditioned (module docstring)."""
    a = np.asarray(A, dtype=np.float64)
    gram = np.swapaxes(a, -1, -2) @ a
    floor = GRAM_FLOOR * np.trace(gram, axis1=-2, axis2=-1)[..., None, None]
    try:  # succeeds only if lambda_min(gram) > floor, a bound on cond(A)
        np.linalg.cholesky(gram - floor * np.eye(gram.shape[-1]))
    except np.linalg.LinAlgError:
        return None
    return np.swapaxes(np.linalg.cholesky(gram), -1, -2)


def householder_factor(A: np.ndarray) -> np.ndarray:
    """R [..., k, k] of the thin QR factorisation of A [..., d, k], by Householder QR in
    float64: accurate however ill conditioned A is."""
    return np.linalg.qr(column_major64(np.asarray(A)), mode="r")  # only R is needed


def factored_singular_values(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Singular values of A @ B^T (descending) for A, B of shape [..., d, k], k <= d:
    those of R_A R_B^T, both R by ``gram_factor`` when both stacks are well conditioned,
    both by ``householder_factor`` otherwise."""
    r_a, r_b = gram_factor(A), gram_factor(B)
    if r_a is None or r_b is None:
        r_a, r_b = householder_factor(A), householder_factor(B)
    return np.linalg.svd(r_a @ np.swapaxes(r_b, -1, -2), compute_uv=False)


@dataclass(frozen=True)
class FactoredCircuit:
    """The map A @ B^T (A, B: [..., d_model, k]) kept as its factors.

    ``x @ circuit`` applies it to rows through the factors; ``circuit[h]`` selects heads;
    ``circuit.T`` is B @ A^T; ``dense()`` forms the d_model x d_model matrix on request.
    """

    A: np.ndarray
    B: np.ndarray

    __array_ufunc__ = None  # numpy defers to __rmatmul__ instead of densifying

    @property
    def shape(self) -> tuple[int, ...]:
        return (*self.A.shape[:-1], self.B.shape[-2])

    def __getitem__(self, index) -> FactoredCircuit:
        return FactoredCircuit(self.A[index], self.B[index])

    @property
    def T(self) -> FactoredCircuit:
        return FactoredCircuit(self.B, self.A)

    def __rmatmul__(self, x: np.ndarray) -> np.ndarray:
        return (np.asarray(x) @ self.A) @ np.swapaxes(self.B, -1, -2)

    def dense(self) -> np.ndarray:
        """The full matrix A @ B^T (d_model x d_model per head): only when asked for."""
        return self.A @ np.swapaxes(self.B, -1, -2)

    def singular_values(self) -> np.ndarray:
        """Singular values (descending, k of them) through the 64-wide factors."""
        return factored_singular_values(self.A, self.B)

    def norm(self) -> np.ndarray:
        """Frobenius norm, through the factors (the norm of the singular values)."""
        return np.linalg.norm(self.singular_values(), axis=-1)


def qk_singular_values(layers: list) -> np.ndarray:
    """[n_layer, n_head, d_head] singular values of every W_Q^h W_K^h^T."""
    return np.stack([w.QK.singular_values() for w in layers])


def ov_singular_values(layers: list) -> np.ndarray:
    """[n_layer, n_head, d_head] singular values of every W_V^h W_O^h."""
    return np.stack([w.OV.singular_values() for w in layers])


def float32_rank_threshold(s_max: float | np.ndarray, size: int) -> float | np.ndarray:
    """numpy's default matrix_rank cut-off for a float32 matrix of this size: singular
    values below s_max * size * eps(float32) are indistinguishable from rounding."""
    return s_max * size * np.finfo(np.float32).eps


def numerical_rank(singular_values: np.ndarray, size: int) -> np.ndarray:
    """How many singular values (descending, last axis) clear the float32 rank cut-off of
    a ``size``-wide matrix: the numerical rank of each matrix."""
    s = np.asarray(singular_values)
    cut = float32_rank_threshold(s[..., :1], size)
    return (s > cut).sum(-1)


def spectra(model, circuit: str = "QK") -> np.ndarray:
    """[n_layer, n_head, d_head] singular values of every head's QK or OV circuit of a
    ``GPT2``, each layer's computed once per layer's weights (``GPT2.layer_memo``): a
    counterfactual that edits one layer shares the other layers' spectra."""
    if circuit not in ("QK", "OV"):
        raise ValueError(f"circuit is 'QK' or 'OV', not {circuit!r}")
    return np.stack([model.layer_memo(L, ("spectrum", circuit),
                                      lambda w: getattr(w, circuit).singular_values())
                     for L in range(len(model.layers))])
