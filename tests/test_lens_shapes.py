"""The lens widths chapter 01 (L5) no longer checks on GPT-2: the schema fixes them, so
they are tested here, on the configuration and on the split of a fused matrix."""

import numpy as np

from attention_book.gpt2 import AttentionWeights
from attention_book.schema import GPT2_SMALL, layer_shapes


def test_heads_split_the_width_exactly():
    cfg = GPT2_SMALL
    assert cfg.n_head * cfg.d_head == cfg.d_model == 768
    assert layer_shapes(cfg, 0)["h.0.attn.c_attn.weight"] == (768, 3 * 768)


def test_every_lens_is_768_by_64():
    cfg = GPT2_SMALL
    rng = np.random.default_rng(0)
    tensors = {name: rng.standard_normal(shape).astype(np.float32)
               for name, shape in layer_shapes(cfg, 0).items()}
    w = AttentionWeights.from_tensors(tensors, 0, cfg.n_head)
    for lens in (w.W_Q, w.W_K, w.W_V):
        assert lens.shape == (12, 768, 64)
    assert w.W_O.shape == (12, 64, 768)
    # head 1's query lens is columns 64..127 of the fused matrix
    np.testing.assert_array_equal(w.W_Q[1], tensors["h.0.attn.c_attn.weight"][:, 64:128])

