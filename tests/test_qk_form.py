"""attention_book.qk_form: the Gram blocks of a whole model."""

from types import SimpleNamespace

import numpy as np

from attention_book.qk_form import Grams, lenses


def test_model_grams_layer_by_layer_equal_the_stacked_lenses_bit_for_bit():
    # W_Q, W_K as strided float32 views into a fused weight, as GPT2's layers hold them
    rng = np.random.default_rng(3)
    layers = []
    for _ in range(2):
        fused = rng.standard_normal((30, 2 * 4 * 5)).astype(np.float32)
        heads = fused.reshape(30, 2, 4, 5).transpose(1, 2, 0, 3)
        layers.append(SimpleNamespace(W_Q=heads[0], W_K=heads[1]))
    model = SimpleNamespace(layers=layers)
    stacked, by_layer = Grams.of(*lenses(model)), Grams.of_model(model)
    for part in ("qq", "qk", "kk"):
        assert getattr(by_layer, part).shape == (2, 4, 5, 5)
        assert np.array_equal(getattr(by_layer, part), getattr(stacked, part))


def test_a_singular_head_falls_back_alone_and_leaves_the_others_bit_for_bit():
    from attention_book.qk_form import gram_root, symmetric_eigenvalues

    rng = np.random.default_rng(5)
    W_Q, W_K = rng.standard_normal((2, 3, 40, 4)), rng.standard_normal((2, 3, 40, 4))
    healthy = Grams.of(W_Q, W_K)
    W_K = W_K.copy()
    W_K[1, 2, :, 3] = W_K[1, 2, :, 0]              # one head's B loses a rank
    W_K[1, 2] *= 1e3                               # and is by far the largest head
    broken = Grams.of(W_Q, W_K)
    R = gram_root(broken.full)
    assert np.allclose(np.swapaxes(R, -1, -2) @ R, broken.full, rtol=1e-9, atol=1e-6)
    lam_healthy, lam_broken = symmetric_eigenvalues(healthy), symmetric_eigenvalues(broken)
    untouched = np.ones((2, 3), bool)
    untouched[1, 2] = False
    assert np.array_equal(lam_broken[untouched], lam_healthy[untouched])
    # the singular head's own eigenvalues: those of (1/2) J B^T B, one of them zero
    B = np.concatenate([W_Q[1, 2], W_K[1, 2]], axis=-1)
    J = np.block([[np.zeros((4, 4)), np.eye(4)], [np.eye(4), np.zeros((4, 4))]])
    want = np.sort(np.linalg.eigvals(0.5 * J @ B.T @ B).real)
    assert np.allclose(lam_broken[1, 2], want, atol=1e-8 * np.abs(want).max())


def test_head_lenses_are_one_heads_float64_lenses():
    from attention_book.qk_form import head_lenses

    rng = np.random.default_rng(1)
    layer = SimpleNamespace(W_Q=rng.standard_normal((3, 10, 2)).astype(np.float32),
                            W_K=rng.standard_normal((3, 10, 2)).astype(np.float32))
    wq, wk = head_lenses(SimpleNamespace(layers=[layer]), 0, 2)
    assert wq.dtype == np.float64 and np.array_equal(wq, layer.W_Q[2])
    assert np.array_equal(wk, layer.W_K[2])


def _small_model(seed=4):
    from attention_book.constructed import random_gpt2_tensors
    from attention_book.gpt2 import GPT2, Config

    cfg = Config(n_layer=2, n_head=3, d_model=24, n_ctx=16)
    return GPT2(random_gpt2_tensors(cfg, seed=seed), cfg)


def test_the_block_exchange_is_the_product_with_J_bit_for_bit():
    from attention_book.qk_form import gram_root, symmetric_part

    rng = np.random.default_rng(6)
    B = rng.standard_normal((2, 3, 30, 8))
    R = gram_root(np.swapaxes(B, -1, -2) @ B)
    J = np.block([[np.zeros((4, 4)), np.eye(4)], [np.eye(4), np.zeros((4, 4))]])
    assert np.array_equal(symmetric_part(R), 0.5 * R @ J @ np.swapaxes(R, -1, -2))


def test_model_form_spectra_one_layer_at_a_time_equal_the_whole_stack_bit_for_bit():
    from attention_book.qk_form import (
        model_eigenvalues,
        model_form_spectra,
        model_grams,
        model_lens_spectra,
        symmetric_eigenvalues,
    )

    model = _small_model()
    g, spectra = model_grams(model), model_form_spectra(model)
    assert np.array_equal(model_eigenvalues(model), symmetric_eigenvalues(g))
    assert np.array_equal(spectra.gram, np.linalg.eigvalsh(g.full))
    assert all(np.array_equal(mine, np.linalg.eigvalsh(block))
               for mine, block in zip(model_lens_spectra(model), (g.qq, g.kk), strict=True))


def test_the_extreme_rows_are_unit_rows_of_the_column_space_along_the_extreme_eigenvalues():
    from attention_book.qk_form import lenses, model_form_spectra

    model = _small_model()
    spectra = model_form_spectra(model)
    W_Q, W_K = lenses(model)
    B = np.concatenate([W_Q, W_K], axis=-1)
    for end, which in ((0, 0), (1, -1)):
        xq, xk = spectra.extremes[..., end, 0, :], spectra.extremes[..., end, 1, :]
        # the row x itself: the least-squares solution of x B = [x W_Q, x W_K]
        x = np.stack([[np.linalg.lstsq(B[i, h].T, np.concatenate([xq[i, h], xk[i, h]]),
                                       rcond=None)[0] for h in range(B.shape[1])]
                      for i in range(B.shape[0])])
        assert np.allclose(np.linalg.norm(x, axis=-1), 1)
        assert np.allclose(np.einsum("...d,...dk->...k", x, W_Q), xq)
        assert np.allclose((xq * xk).sum(-1), spectra.symmetric[..., which])


def test_the_extreme_directions_are_eigenvectors_to_rounding_even_at_a_repeated_end():
    from attention_book.qk_form import _extreme_directions

    rng = np.random.default_rng(8)
    Q = np.linalg.qr(rng.standard_normal((3, 40, 40)))[0]
    lam = np.sort(rng.standard_normal((3, 40)), axis=-1)
    lam[1, :3] = lam[1, 0]                         # a threefold smallest eigenvalue
    S = (Q * lam[:, None, :]) @ np.swapaxes(Q, -1, -2)
    v = _extreme_directions(S, np.linalg.eigvalsh(S))
    assert np.allclose(np.linalg.norm(v, axis=-1), 1)
    for end, which in ((0, 0), (1, -1)):
        residual = S @ v[:, end, :, None] - lam[:, which, None, None] * v[:, end, :, None]
        assert np.abs(residual).max() < 1e-10 * np.abs(lam).max()


def test_the_gram_blocks_are_the_three_products_and_full_is_their_block_matrix():
    rng = np.random.default_rng(3)
    W_Q, W_K = (rng.standard_normal((2, 40, 5)).astype(np.float32) for _ in range(2))
    g = Grams.of(W_Q, W_K)
    Q, K = W_Q.astype(np.float64), W_K.astype(np.float64)
    for block, product in ((g.qq, Q.transpose(0, 2, 1) @ Q), (g.qk, Q.transpose(0, 2, 1) @ K),
                           (g.kk, K.transpose(0, 2, 1) @ K)):
        assert np.allclose(block, product, rtol=1e-13, atol=1e-13)
    assert np.array_equal(g.full, np.block([[g.qq, g.qk], [g.qk.transpose(0, 2, 1), g.kk]]))
