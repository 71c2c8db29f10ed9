"""The value widths chapter 05 (V2) no longer checks on GPT-2: the schema fixes d_k = d_v
= 64, so it is tested here; and the book's attention runs with d_v != d_k."""

from dataclasses import replace

import numpy as np

from attention_book.gpt2 import AttentionWeights, attention
from attention_book.schema import GPT2_SMALL, layer_shapes


def _layer(seed: int = 0) -> tuple[AttentionWeights, dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    tensors = {name: (0.02 * rng.standard_normal(shape)).astype(np.float32)
               for name, shape in layer_shapes(GPT2_SMALL, 0).items()}
    return AttentionWeights.from_tensors(tensors, 0, GPT2_SMALL.n_head), tensors


def test_schema_fixes_d_k_equal_d_v():
    """The widths read from c_attn's key and value thirds and c_proj's rows."""
    w, _ = _layer()
    d_k, d_v, d_o = w.W_K.shape[-1], w.W_V.shape[-1], w.W_O.shape[1]
    assert layer_shapes(GPT2_SMALL, 0)["h.0.attn.c_attn.weight"] == (768, 3 * 768)
    assert d_k == d_v == d_o == GPT2_SMALL.d_head == 64


def test_values_split_from_the_last_third_and_c_proj_rows():
    w, tensors = _layer()
    np.testing.assert_array_equal(w.W_V[2], tensors["h.0.attn.c_attn.weight"][:, 2 * 768 + 128:
                                                                          2 * 768 + 192])
    np.testing.assert_array_equal(w.W_O[2], tensors["h.0.attn.c_proj.weight"][128:192])


def test_attention_runs_with_a_value_width_other_than_d_k():
    w, _ = _layer()
    x = np.random.default_rng(1).standard_normal((5, 768)).astype(np.float32)
    narrow = replace(w, W_V=w.W_V[:, :, :16], b_V=w.b_V[:, :16], W_O=w.W_O[:, :16])
    tr = attention(narrow, x)
    assert tr.q.shape[-1] == 64 and tr.v.shape[-1] == 16
    assert tr.z.shape == (12, 5, 16) and tr.out.shape == (5, 768)
    # the scale is 1/sqrt(d_k), whatever d_v is
    full = attention(w, x)
    np.testing.assert_array_equal(tr.pattern, full.pattern)


def test_the_scale_is_exactly_one_eighth_whatever_the_value_width():
    """Dividing by sqrt(64) = 2^3 changes only a float's exponent: scores times 8 are
    the raw scores bit for bit, for values 16 and 128 wide alike (chapter 05, V2: this
    is arithmetic, not a property of any weights, so it is tested here)."""
    w, _ = _layer(2)
    x = np.random.default_rng(3).standard_normal((7, 768)).astype(np.float32)
    wide = replace(w, W_V=np.concatenate([w.W_V, w.W_V], -1),
                   b_V=np.concatenate([w.b_V, w.b_V], -1),
                   W_O=np.concatenate([w.W_O, w.W_O], 1))
    for layer in (w, wide, replace(w, W_V=w.W_V[:, :, :16], b_V=w.b_V[:, :16],
                                   W_O=w.W_O[:, :16])):
        tr = attention(layer, x)
        finite = np.isfinite(tr.scaled_masked)
        np.testing.assert_array_equal(tr.scaled_masked[finite] * 8, tr.scores[finite])
