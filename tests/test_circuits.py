import numpy as np

from attention_book.circuits import factored_singular_values, float32_rank_threshold


def test_factored_matches_dense_svd():
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((2, 40, 6))
    dense = np.linalg.svd(A @ B.T, compute_uv=False)[:6]
    assert np.allclose(factored_singular_values(A, B), dense, rtol=1e-10)


def test_factored_sees_rank_deficiency():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((40, 6))
    B = rng.standard_normal((40, 6))
    B[:, 5] = B[:, 0]  # B has rank 5, so A B^T has rank 5
    s = factored_singular_values(A, B)
    assert (s > float32_rank_threshold(s[0], 40)).sum() == 5



def test_a_factored_circuit_acts_like_its_dense_matrix_without_forming_it():
    from attention_book.circuits import FactoredCircuit

    rng = np.random.default_rng(2)
    A, B = rng.standard_normal((2, 3, 40, 6))  # three heads
    circuit = FactoredCircuit(A, B)
    dense = A @ B.transpose(0, 2, 1)
    x = rng.standard_normal((5, 40))
    assert circuit.shape == (3, 40, 40) and circuit[1].shape == (40, 40)
    assert np.allclose(x @ circuit[1], x @ dense[1])
    assert np.allclose(circuit.T[2].dense(), dense[2].T)
    assert np.allclose(circuit.norm(), np.linalg.norm(dense, axis=(1, 2)))
    assert np.allclose(circuit.singular_values()[0],
                       np.linalg.svd(dense[0], compute_uv=False)[:6])


def test_numerical_rank_counts_values_above_the_float32_cut_off():
    from attention_book.circuits import numerical_rank

    s = np.array([[3.0, 1.0, 1e-3, 1e-9], [2.0, 2.0, 2.0, 2.0]])
    assert numerical_rank(s, 768).tolist() == [3, 4]


def _householder_singular_values(A, B):
    from attention_book.circuits import householder_factor

    r_a, r_b = householder_factor(A), householder_factor(B)
    return np.linalg.svd(r_a @ np.swapaxes(r_b, -1, -2), compute_uv=False)


def test_the_gram_route_gives_householders_singular_values():
    from attention_book.circuits import gram_factor

    rng = np.random.default_rng(3)
    A, B = rng.standard_normal((2, 4, 200, 16)).astype(np.float32)  # four heads
    r_a = gram_factor(A)
    assert r_a is not None and np.allclose(np.triu(r_a), r_a)
    assert np.allclose(np.swapaxes(r_a, -1, -2) @ r_a,
                       np.swapaxes(A, -1, -2).astype(np.float64) @ A.astype(np.float64))
    np.testing.assert_allclose(factored_singular_values(A, B),
                               _householder_singular_values(A, B), rtol=1e-12)


def test_an_ill_conditioned_factor_takes_householder_for_both():
    from attention_book.circuits import gram_factor

    rng = np.random.default_rng(4)
    A, B = rng.standard_normal((2, 3, 200, 16))
    B[1, :, 5] = B[1, :, 0] + 1e-9 * B[1, :, 1]  # head 1: cond(B) ~ 1e9
    assert gram_factor(A) is not None and gram_factor(B) is None
    assert np.array_equal(factored_singular_values(A, B),
                          _householder_singular_values(A, B))
    padded = np.concatenate([A[0], np.zeros((200, 4))], axis=1)  # zero columns
    assert gram_factor(padded) is None
    assert np.array_equal(factored_singular_values(padded, padded),
                          _householder_singular_values(padded, padded))
