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

