"""attention_book.head_metrics on constructed heads whose answers are known exactly."""

import numpy as np
import pytest

from attention_book.circuits import FactoredCircuit
from attention_book.head_metrics import (
    antisymmetric_share,
    inertia,
    kv_principal_angles_deg,
    negative_mass_share,
    ov_singular_values,
    qk_singular_values,
    self_score_bound_violation_share,
    symmetric_eigenvalues,
)

D, K, H = 40, 6, 3


@pytest.fixture
def lenses():
    rng = np.random.default_rng(0)
    return rng.standard_normal((H, D, K)), rng.standard_normal((H, D, K))


def test_antisymmetric_share_matches_dense(lenses):
    W_Q, W_K = lenses
    M = W_Q @ np.swapaxes(W_K, -1, -2)
    M_a = (M - np.swapaxes(M, -1, -2)) / 2
    dense = (M_a**2).sum((-1, -2)) / (M**2).sum((-1, -2))
    np.testing.assert_allclose(antisymmetric_share(W_Q, W_K), dense, rtol=1e-12)


def test_antisymmetric_share_of_symmetric_and_antisymmetric_forms(lenses):
    W_Q, _ = lenses
    np.testing.assert_allclose(antisymmetric_share(W_Q, W_Q), 0.0, atol=1e-14)
    # W_Q = [a b], W_K = [b -a] gives M = a b^T - b a^T: antisymmetric.
    a, b = W_Q[..., :1], W_Q[..., 1:2]
    np.testing.assert_allclose(antisymmetric_share(np.concatenate([a, b], -1),
                                                   np.concatenate([b, -a], -1)),
                               1.0, atol=1e-14)


def test_symmetric_eigenvalues_match_dense_eigvalsh(lenses):
    W_Q, W_K = lenses
    M = W_Q @ np.swapaxes(W_K, -1, -2)
    dense = np.linalg.eigvalsh((M + np.swapaxes(M, -1, -2)) / 2)
    by_size = np.argsort(-np.abs(dense), axis=-1)[..., :2 * K]
    largest = np.sort(np.take_along_axis(dense, by_size, -1), -1)
    ours = symmetric_eigenvalues(W_Q, W_K)
    assert ours.shape == (H, 2 * K)
    np.testing.assert_allclose(ours, largest, atol=1e-10 * np.abs(dense).max())
    # They are also the eigenvalues of the unsymmetric (1/2) J B^T B.
    B = np.concatenate([W_Q, W_K], -1)
    J = np.block([[np.zeros((K, K)), np.eye(K)], [np.eye(K), np.zeros((K, K))]])
    via_j = np.sort(np.linalg.eigvals(0.5 * J @ np.swapaxes(B, -1, -2) @ B).real, -1)
    np.testing.assert_allclose(ours, via_j, atol=1e-10 * np.abs(dense).max())


def test_inertia_of_separate_and_shared_lenses(lenses):
    W_Q, W_K = lenses
    pos, neg = inertia(symmetric_eigenvalues(W_Q, W_K), D)
    assert (pos == K).all() and (neg == K).all()  # Sylvester: d_k and d_k
    pos, neg = inertia(symmetric_eigenvalues(W_Q, W_Q), D)
    assert (pos == K).all() and (neg == 0).all()  # W W^T: rank d_k, PSD


def test_negative_mass_share_of_shared_and_opposite_lenses(lenses):
    W_Q, W_K = lenses
    np.testing.assert_allclose(negative_mass_share(symmetric_eigenvalues(W_Q, W_Q)),
                               0.0, atol=1e-12)
    np.testing.assert_allclose(negative_mass_share(symmetric_eigenvalues(W_Q, -W_Q)),
                               1.0, atol=1e-12)
    # M = W_Q W_K^T and M' = W_K W_Q^T have the same symmetric part; M and -M swap signs.
    share = negative_mass_share(symmetric_eigenvalues(W_Q, W_K))
    np.testing.assert_allclose(negative_mass_share(symmetric_eigenvalues(W_K, W_Q)), share)
    np.testing.assert_allclose(negative_mass_share(symmetric_eigenvalues(W_Q, -W_K)),
                               1 - share, atol=1e-12)


def test_negative_mass_share_from_given_eigenvalues():
    np.testing.assert_allclose(negative_mass_share(np.array([-3.0, 1.0, 2.0])), 0.5)
    with pytest.raises(ValueError, match="undefined"):
        negative_mass_share(np.zeros((1, 4)))


def test_singular_values_are_the_factored_circuits(lenses):
    W_Q, W_K = lenses
    circuit = FactoredCircuit(W_Q, W_K)
    dense = np.linalg.svd(circuit.dense(), compute_uv=False)[..., :K]
    np.testing.assert_allclose(qk_singular_values(circuit), dense, rtol=1e-10)
    np.testing.assert_allclose(ov_singular_values(circuit.T), dense, rtol=1e-10)


def test_principal_angles_of_known_subspaces():
    e = np.eye(4)
    W_K = e[:, [0, 1]][None]
    c, s = np.cos(np.radians(30)), np.sin(np.radians(30))
    # Shares e0; the second column sits 30 degrees from e1 towards e2.
    W_V = np.stack([e[:, 0] * 5, c * e[:, 1] + s * e[:, 2]], -1)[None]
    np.testing.assert_allclose(kv_principal_angles_deg(W_K, W_V), [[0.0, 30.0]], atol=1e-6)
    np.testing.assert_allclose(kv_principal_angles_deg(W_K, e[:, [2, 3]][None]),
                               [[90.0, 90.0]], atol=1e-6)


def test_bound_never_broken_by_a_shared_lens(lenses):
    W_Q, _ = lenses
    x = np.random.default_rng(1).standard_normal((7, D))
    q = x @ W_Q
    S = q @ np.swapaxes(q, -1, -2)
    np.testing.assert_array_equal(self_score_bound_violation_share(S), 0.0)


def test_bound_violations_counted_on_a_constructed_pair():
    # s_00 = 1, s_11 = 4: the bound for rows 0 and 1 is sqrt(1 * 4) = 2. s_01 = 3 breaks
    # it, s_10 = 1 does not. s_22 = -1, so rows 0 and 2 and rows 1 and 2 have
    # s_ii s_jj < 0: no real bound, and those four ordered pairs count as breaking it.
    S = np.array([[1.0, 3.0, 0.0],
                  [1.0, 4.0, 0.0],
                  [0.0, 0.0, -1.0]])
    np.testing.assert_allclose(self_score_bound_violation_share(S), 5 / 6)
    # A pair exactly at the bound, and one within the float32 tolerance, hold.
    at_bound = np.array([[1.0, 2.0], [2.0 * (1 + 1e-7), 4.0]])
    np.testing.assert_allclose(self_score_bound_violation_share(at_bound), 0.0)
    with pytest.raises(ValueError, match=r"\[\.\.\., T, T\]"):
        self_score_bound_violation_share(np.zeros((3, 4)))


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="same shape"):
        antisymmetric_share(np.zeros((2, 5, 3)), np.zeros((2, 5, 2)))
    with pytest.raises(ValueError, match="exceeds d_model"):
        symmetric_eigenvalues(np.ones((1, 5, 3)), np.ones((1, 5, 3)))
