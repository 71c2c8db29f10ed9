"""attention_book.lens_edits: lenses exchanged, and the value path left out."""

import numpy as np

from attention_book.constructed import random_gpt2_tensors
from attention_book.gpt2 import GPT2, Config, attention
from attention_book.lens_edits import shared_key_lens, swap_lenses, without_values


def _layer():
    model = GPT2(random_gpt2_tensors(Config(n_layer=1, n_head=2, d_model=16, n_ctx=32),
                                     seed=2), Config(n_layer=1, n_head=2, d_model=16,
                                                     n_ctx=32))
    x = np.random.default_rng(3).standard_normal((7, 16)).astype(np.float32)
    return model, model.layers[0], x


def test_without_values_keeps_scores_and_pattern_bit_for_bit():
    _, w, x = _layer()
    full, light = attention(w, x), attention(without_values(w), x)
    assert np.array_equal(full.scores, light.scores)
    assert np.array_equal(full.pattern, light.pattern)
    assert np.array_equal(full.q, light.q) and np.array_equal(full.k, light.k)
    assert light.z.shape[-1] == 0 and light.out.shape[-1] == 0


def test_swapping_lenses_and_biases_transposes_the_scores_and_matrices_alone_do_not():
    _, w, x = _layer()
    S = attention(w, x).scores
    assert np.allclose(attention(swap_lenses(w), x).scores, np.swapaxes(S, -1, -2),
                       atol=1e-5)
    only = attention(swap_lenses(w, biases=False), x).scores
    assert not np.allclose(only, np.swapaxes(S, -1, -2), atol=1e-3)


def test_a_shared_key_lens_gives_symmetric_scores():
    model, _, x = _layer()
    S = attention(shared_key_lens(model).layers[0], x).scores
    assert np.array_equal(S, np.swapaxes(S, -1, -2))
