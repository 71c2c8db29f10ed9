"""Per-head quantities of a layer's QK and OV circuits, computed from its weights.

Every function takes one layer's heads stacked on a leading axis (the ``W_Q``, ``W_K``,
``W_V`` arrays of :class:`attention_book.gpt2.AttentionWeights`, shape [H, d_model, d_head],
or its :class:`attention_book.circuits.FactoredCircuit`) and returns one value or one list
per head, vectorised over the heads. Nothing forms the dense d_model x d_model matrix
M = W_Q W_K^T: every quantity goes through the d_head-wide factors.

- ``antisymmetric_share``: ||M_a||_F^2 / ||M||_F^2, M_a = (M - M^T)/2;
- ``symmetric_eigenvalues``: the 2 d_head candidate non-zero eigenvalues of the symmetric
  part M_s = (M + M^T)/2, ascending;
- ``inertia``: how many of them are positive and negative beyond float32 rounding;
- ``negative_mass_share``: sum |negative eigenvalues| / sum |eigenvalues| of M_s;
- ``qk_singular_values`` / ``ov_singular_values``: descending, d_head per head;
- ``kv_principal_angles_deg``: principal angles between the column spaces of W_K^h and
  W_V^h, ascending, in degrees;
- ``self_score_bound_violation_share``: the share of ordered pairs i != j of a set of rows
  whose score breaks the shared-lens bound s_ij <= sqrt(s_ii s_jj) (chapter 3, claim Q3).
"""

from __future__ import annotations

import numpy as np

from . import qk_form
from .circuits import FactoredCircuit
from .qk_form import Grams, inertia, negative_mass_share
from .subspaces import principal_cosines

__all__ = ["antisymmetric_share", "symmetric_eigenvalues", "inertia", "negative_mass_share",
           "qk_singular_values", "ov_singular_values", "kv_principal_angles_deg",
           "self_score_bound_violation_share"]

# Relative slack allowed before a pair counts as breaking the self-score bound: float32
# rounding of sums of 64 products (the tolerance chapter 3 uses for claim Q3).
BOUND_TOLERANCE = 1e-5


def _pair(W_Q: np.ndarray, W_K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    W_Q, W_K = np.asarray(W_Q, np.float64), np.asarray(W_K, np.float64)
    if W_Q.shape != W_K.shape or W_Q.ndim < 2:
        raise ValueError(f"W_Q {W_Q.shape} and W_K {W_K.shape} must be [..., d_model, d_head] "
                         "arrays of the same shape (one layer's heads stacked first)")
    return W_Q, W_K


def antisymmetric_share(W_Q: np.ndarray, W_K: np.ndarray) -> np.ndarray:
    """||M_a||_F^2 / ||M||_F^2 for M = W_Q W_K^T, per head, in [0, 1]: chapter 03a's
    measure (``qk_form.antisymmetric_share``, d_head x d_head Gram blocks only). 0 for a
    symmetric M, 1 for an antisymmetric one, 1/2 on average for unrelated random lenses."""
    g = Grams.of(*_pair(W_Q, W_K))
    if np.any(np.einsum("...ab,...ba->...", g.qq, g.kk) <= 0):
        raise ValueError("M = W_Q W_K^T is zero for some head: its antisymmetric share is "
                         "undefined")
    return np.clip(qk_form.antisymmetric_share(g), 0.0, 1.0)


def symmetric_eigenvalues(W_Q: np.ndarray, W_K: np.ndarray) -> np.ndarray:
    """The 2 d_head candidate non-zero eigenvalues of M_s = (W_Q W_K^T + W_K W_Q^T)/2,
    ascending, [..., 2 d_head].

    With B = [W_Q W_K] and J = [[0, I], [I, 0]], M_s = (1/2) B J B^T, so its non-zero
    eigenvalues are those of the 2 d_head x 2 d_head matrix (1/2) J B^T B (AB and BA share
    their non-zero eigenvalues). With the thin QR factorisation B = Q R, B^T B = R^T R, and
    they are the eigenvalues of the symmetric (1/2) R J R^T, which ``eigvalsh`` computes
    stably. (Chapter 03a's ``qk_form.symmetric_eigenvalues`` takes R from the Gram blocks it
    already holds, by Cholesky; from B itself, QR also stays exact when B has lost rank, as
    for W_K = W_Q, where the Gram matrix is singular.) The other d_model - 2 d_head
    eigenvalues of M_s are exactly 0; if B has lost rank, some of the 2 d_head returned
    here are 0 (to rounding) too.
    """
    W_Q, W_K = _pair(W_Q, W_K)
    k = W_Q.shape[-1]
    if 2 * k > W_Q.shape[-2]:
        raise ValueError(f"2 d_head = {2 * k} exceeds d_model = {W_Q.shape[-2]}: "
                         "[W_Q W_K] cannot have a thin QR factorisation")
    R = np.linalg.qr(np.concatenate([W_Q, W_K], axis=-1), mode="r")
    J = np.block([[np.zeros((k, k)), np.eye(k)], [np.eye(k), np.zeros((k, k))]])
    return np.linalg.eigvalsh(0.5 * R @ J @ np.swapaxes(R, -1, -2))


def qk_singular_values(QK: FactoredCircuit) -> np.ndarray:
    """Singular values of W_Q^h W_K^h^T, descending, [..., d_head]."""
    return QK.singular_values()


def ov_singular_values(OV: FactoredCircuit) -> np.ndarray:
    """Singular values of W_V^h W_O^h, descending, [..., d_head]."""
    return OV.singular_values()


def kv_principal_angles_deg(W_K: np.ndarray, W_V: np.ndarray) -> np.ndarray:
    """Principal angles (degrees, ascending, [..., d_head]) between the column spaces of
    W_K^h and W_V^h: the subspace of the residual stream a head's keys read and the one
    its values read. 0 degrees is a shared direction, 90 an orthogonal one; two
    independent random 64-dim subspaces of R^768 have angles from about 60 to 90."""
    cosines = principal_cosines(np.asarray(W_K, np.float64), np.asarray(W_V, np.float64))
    return np.degrees(np.arccos(cosines))


def self_score_bound_violation_share(scores: np.ndarray,
                                     tolerance: float = BOUND_TOLERANCE) -> np.ndarray:
    """Share of ordered pairs (i, j), i != j, that break s_ij <= sqrt(s_ii s_jj), per head.

    ``scores`` is [..., T, T], s_ij = q_i . k_j (biases included, no mask, no 1/sqrt(d_k)):
    a trace's ``scores``. The definition is chapter 3's (claim Q3): under a shared lens,
    W_Q = W_K and b_Q = b_K, no pair breaks the bound (Cauchy-Schwarz). A pair breaks it
    when its relative slack (sqrt(s_ii s_jj) - s_ij) / sqrt(s_ii s_jj) is below
    ``-tolerance``; where s_ii s_jj < 0 the bound is not a real number and the pair counts
    as breaking it. All T (T - 1) ordered off-diagonal pairs are counted, the causal mask
    ignored: the bound is about the bilinear form, not about which keys a row may see.
    """
    S = np.asarray(scores, np.float64)
    if S.ndim < 2 or S.shape[-1] != S.shape[-2] or S.shape[-1] < 2:
        raise ValueError(f"scores {S.shape} must be [..., T, T] with T >= 2: self-scores "
                         "of the same rows as queries and keys")
    diag = np.diagonal(S, axis1=-2, axis2=-1)
    prod = diag[..., :, None] * diag[..., None, :]
    root = np.sqrt(np.maximum(prod, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        slack = np.where(prod >= 0, (root - S) / root, -np.inf)
    off = ~np.eye(S.shape[-1], dtype=bool)
    return (slack[..., off] < -tolerance).mean(-1)
