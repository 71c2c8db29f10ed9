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
