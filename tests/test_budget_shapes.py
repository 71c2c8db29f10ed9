"""The equal budgets of chapter 07 (C2) on GPT-2 small's shapes: the schema fixes them,
so no accepted checkpoint can fail them, and they are tested here instead."""

import numpy as np

from attention_book.schema import GPT2_SMALL, layer_shapes


def _counts(layer: int) -> dict[str, int]:
    shapes = layer_shapes(GPT2_SMALL, layer)
    p = f"h.{layer}.attn."
    d_in, fused = shapes[p + "c_attn.weight"]
    third = fused // 3  # [W_Q | W_K | W_V]
    return {"W_Q": d_in * third, "W_K": d_in * third, "W_V": d_in * third,
            "W_O": int(np.prod(shapes[p + "c_proj.weight"])),
            "b_Q+b_K": 2 * third,
            "b_V+b_O": third + int(np.prod(shapes[p + "c_proj.bias"]))}


def test_both_circuits_have_the_same_weight_budget_in_every_layer():
    for layer in range(GPT2_SMALL.n_layer):
        c = _counts(layer)
        assert c["W_Q"] + c["W_K"] == c["W_V"] + c["W_O"] == 2 * 768 * 768


def test_bias_budgets_agree_because_the_heads_tile_the_width():
    cfg = GPT2_SMALL
    assert cfg.n_head * cfg.d_head == cfg.d_model
    c = _counts(0)
    assert c["b_Q+b_K"] == c["b_V+b_O"] == 2 * 768
