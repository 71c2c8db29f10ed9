import numpy as np
import pytest

from attention_book.subspaces import (
    energy_fraction,
    gram_blocks,
    orthonormal_basis,
    overlap,
    principal_cosines,
    principal_cosines_gram,
    qr_basis,
    random_frames,
    triangular_whitener,
    whitened_cosines,
    whitened_gram,
    whitener,
)


def test_basis_is_orthonormal_and_spans_the_same_columns():
    W = np.random.default_rng(0).standard_normal((3, 40, 5))
    Q = orthonormal_basis(W)
    assert np.allclose(np.swapaxes(Q, -1, -2) @ Q, np.eye(5), atol=1e-12)
    # W's columns are reproduced exactly by projecting onto span(Q)
    assert np.allclose(Q @ (np.swapaxes(Q, -1, -2) @ W), W, atol=1e-10)


def test_principal_cosines_match_qr_and_svd():
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((30, 4)), rng.standard_normal((30, 6))
    expected = np.linalg.svd(np.linalg.qr(A)[0].T @ np.linalg.qr(B)[0], compute_uv=False)
    assert np.allclose(principal_cosines(A, B), expected, atol=1e-12)


def test_gram_route_gives_an_orthonormal_basis_and_the_cosines_without_it():
    rng = np.random.default_rng(4)
    A, B = rng.standard_normal((2, 50, 4)), rng.standard_normal((2, 50, 6))
    Q = A @ whitener(A)
    assert np.allclose(np.swapaxes(Q, -1, -2) @ Q, np.eye(4), atol=1e-12)
    assert np.allclose(Q @ (np.swapaxes(Q, -1, -2) @ A), A, atol=1e-10)
    expected = principal_cosines(A, B)
    assert np.allclose(principal_cosines_gram(A, B), expected, atol=1e-12)
    given = principal_cosines_gram(A, B, whitener_A=triangular_whitener(A),
                                   whitener_B=triangular_whitener(B))
    assert np.array_equal(given, principal_cosines_gram(A, B))
    by_eigh = principal_cosines_gram(A, B, whitener_A=whitener(A), whitener_B=whitener(B))
    assert np.allclose(by_eigh, expected, atol=1e-12)
    QA, QB = orthonormal_basis(A), orthonormal_basis(B)
    assert np.allclose(overlap(A, B), overlap(QA, QB, orthonormal=True), atol=1e-12)
    stacked = overlap(np.stack([A, 2 * A]), np.stack([B, B]))  # one stack at a time
    assert stacked.shape == (2, 2) and np.allclose(stacked, overlap(A, B))
    E = np.eye(20)
    assert np.allclose(principal_cosines_gram(E[:, :3], E[:, 2:5]), [1.0, 0.0, 0.0])


def test_extremes_same_span_orthogonal_spans_and_basis_change():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((20, 3))
    R = rng.standard_normal((3, 3)) + 3 * np.eye(3)            # invertible change of basis
    assert np.allclose(principal_cosines(A, A @ R), 1.0)
    assert overlap(A, A @ R) == pytest.approx(1.0)
    E = np.eye(20)
    assert np.allclose(principal_cosines(E[:, :3], E[:, 3:6]), 0.0)
    # one shared direction, the rest orthogonal
    assert np.allclose(principal_cosines(E[:, :3], E[:, 2:5]), [1.0, 0.0, 0.0])


def test_random_overlap_is_k_over_d_on_average():
    rng = np.random.default_rng(3)
    d, k = 60, 6
    ov = overlap(random_frames(rng, 400, d, k), random_frames(rng, 400, d, k))
    assert abs(ov.mean() - k / d) < 5 * ov.std() / np.sqrt(len(ov))


def test_precomputed_bases_and_singular_values():
    rng = np.random.default_rng(4)
    A, B = rng.standard_normal((2, 25, 4))
    QA, sA = orthonormal_basis(A, with_singular_values=True)
    QB = orthonormal_basis(B)
    assert np.allclose(sA, np.linalg.svd(A, compute_uv=False))
    assert np.allclose(principal_cosines(QA, QB, orthonormal=True), principal_cosines(A, B))
    assert np.isclose(overlap(QA, QB, orthonormal=True), (principal_cosines(A, B) ** 2).mean())
    x = rng.standard_normal((7, 25))
    assert np.isclose(energy_fraction(x, QA, orthonormal=True), energy_fraction(x, A))


def test_energy_fraction():
    E = np.eye(6)
    x = np.array([[3.0, 4.0, 0, 0, 0, 0], [0, 0, 1.0, 0, 0, 0]])
    # 9 of the total 26 lies on the first axis
    assert energy_fraction(x, E[:, :1]) == pytest.approx(9 / 26)
    assert np.allclose(energy_fraction(x, np.stack([E[:, :2], E[:, 2:4]])), [25 / 26, 1 / 26])


def test_a_rank_deficient_matrix_spans_its_rank_and_leaves_its_neighbours_alone():
    rng = np.random.default_rng(5)
    W = rng.standard_normal((3, 40, 5))
    deficient = W.copy()
    deficient[1, :, 4] = deficient[1, :, 0]                   # matrix 1: rank 4
    for basis in (orthonormal_basis(deficient), deficient @ whitener(deficient)):
        gram = np.swapaxes(basis, -1, -2) @ basis
        assert np.isclose(np.trace(gram[1]), 4.0)            # 4 orthonormal columns, 1 zero
        assert np.allclose(gram[1] @ gram[1], gram[1], atol=1e-12)
        assert np.allclose(basis[1] @ (basis[1].T @ deficient[1]), deficient[1], atol=1e-10)
        for i in (0, 2):                                      # the others, as without it
            assert np.allclose(gram[i], np.eye(5), atol=1e-12)
    assert np.allclose(orthonormal_basis(deficient)[[0, 2]], orthonormal_basis(W)[[0, 2]])
    assert np.isclose(overlap(deficient[1], deficient[1]), 4 / 5)
    zero = np.zeros((10, 2))                                  # rank 0: no direction, no NaN
    assert np.array_equal(orthonormal_basis(zero), zero)
    assert np.array_equal(whitener(zero), np.zeros((2, 2)))


def test_qr_basis_is_numpys_qr_of_the_float64_copy_bit_for_bit():
    # a strided float32 stack, as a layer's W_V^h are views into c_attn
    fused = np.random.default_rng(8).standard_normal((60, 3 * 4 * 5)).astype(np.float32)
    W = fused[:, 40:].reshape(60, 4, 5).transpose(1, 0, 2)
    expected = np.linalg.qr(W.astype(np.float64))[0]
    assert np.array_equal(qr_basis(W), expected)
    assert np.array_equal(qr_basis(W[0]), expected[0])


def test_triangular_whitener_is_a_cholesky_whitener_and_falls_back_on_lost_rank():
    rng = np.random.default_rng(6)
    W = rng.standard_normal((3, 40, 5))
    T = triangular_whitener(W)
    assert np.allclose(np.swapaxes(W @ T, -1, -2) @ (W @ T), np.eye(5), atol=1e-12)
    assert np.allclose(np.tril(T, -1), 0.0, atol=1e-12)         # L^{-T}: upper triangular
    deficient = W.copy()
    deficient[1, :, 4] = deficient[1, :, 0]                     # rank 4: eigh's whitener
    assert np.array_equal(triangular_whitener(deficient), whitener(deficient))
    assert np.array_equal(triangular_whitener(np.zeros((10, 2))), np.zeros((2, 2)))


def test_gram_blocks_are_the_three_products_and_feed_the_whiteners():
    rng = np.random.default_rng(10)
    A = rng.standard_normal((2, 40, 5)).astype(np.float32)
    B = rng.standard_normal((2, 40, 3)).astype(np.float32)
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    G_A, C, G_B = gram_blocks(A, B)
    assert np.allclose(G_A, np.swapaxes(A64, -1, -2) @ A64, rtol=1e-14, atol=0)
    assert np.allclose(C, np.swapaxes(A64, -1, -2) @ B64, rtol=1e-14, atol=1e-12)
    assert np.allclose(G_B, np.swapaxes(B64, -1, -2) @ B64, rtol=1e-14, atol=0)
    assert np.allclose(triangular_whitener(A, gram=G_A), triangular_whitener(A), atol=1e-12)
    T_A, C_, T_B = whitened_gram(A, B)                 # the joint route
    assert np.array_equal(C_, C)
    assert np.allclose(whitened_cosines(T_A, C_, T_B), principal_cosines(A, B), atol=1e-12)
    given = whitened_gram(A, B, whitener_B=T_B)        # a known whitener: the plain route
    assert np.array_equal(given[2], T_B)
    assert np.allclose(given[1], C, atol=1e-12)
    deficient = A.copy()
    deficient[1, :, 4] = deficient[1, :, 0]            # lost rank: eigh's whitener
    G_d = gram_blocks(deficient, B)[0]
    assert np.array_equal(triangular_whitener(deficient, gram=G_d), whitener(deficient))
