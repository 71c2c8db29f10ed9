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
