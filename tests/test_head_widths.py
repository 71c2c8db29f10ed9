"""The head widths chapter 02 (N3) no longer checks on GPT-2: the loader fixes them when
it slices the fused matrices, so they are tested here on models of several sizes."""

import numpy as np
import pytest

from attention_book.gpt2 import AttentionWeights
from attention_book.schema import Config, layer_shapes


@pytest.mark.parametrize("n_head, d_model", [(12, 768), (8, 512), (4, 96)])
def test_queries_keys_and_values_fit_the_output_matrix(n_head, d_model):
    cfg = Config(n_layer=1, n_head=n_head, d_model=d_model)
    rng = np.random.default_rng(0)
    tensors = {name: rng.standard_normal(shape).astype(np.float32)
               for name, shape in layer_shapes(cfg, 0).items()}
    w = AttentionWeights.from_tensors(tensors, 0, cfg.n_head)
    d_head = d_model // n_head
    assert w.W_Q.shape == w.W_K.shape == (n_head, d_model, d_head)   # q, k share d_k
    assert w.W_V.shape[2] == w.W_O.shape[1] == d_head               # v fits W_O's blocks
    assert n_head * w.W_O.shape[1] == tensors["h.0.attn.c_proj.weight"].shape[0]
    # head h's z meets rows h*d_head .. (h+1)*d_head of c_proj
    np.testing.assert_array_equal(w.W_O[1],
                                  tensors["h.0.attn.c_proj.weight"][d_head:2 * d_head])


@pytest.mark.parametrize("d_model", [768, 96])
def test_every_split_into_heads_keeps_the_parameter_count(d_model):
    """Chapter 09 (H1): slicing the same c_attn and c_proj into any number of heads that
    divides the width gives per-head arrays holding 4 d^2 + 4 d parameters."""
    cfg = Config(n_layer=1, n_head=1, d_model=d_model)
    rng = np.random.default_rng(1)
    tensors = {name: rng.standard_normal(shape).astype(np.float32)
               for name, shape in layer_shapes(cfg, 0).items()}
    for n_head in (n for n in range(1, d_model + 1) if d_model % n == 0):
        w = AttentionWeights.from_tensors(tensors, 0, n_head)
        arrays = (w.W_Q, w.W_K, w.W_V, w.W_O, w.b_Q, w.b_K, w.b_V, w.b_O)
        assert sum(a.size for a in arrays) == 4 * d_model**2 + 4 * d_model, n_head
