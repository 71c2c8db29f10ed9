"""Chapter 07's exchanges of one circuit between heads (attention_book.circuit_swaps): the
half left alone is computed bit for bit as before (the code's side of C3, which the
chapter derives in general), and the exchanged half moves."""

import numpy as np
import pytest

from attention_book.circuit_swaps import (
    OV_PARAMETERS,
    QK_PARAMETERS,
    from_neighbour,
    layer_swap_effects,
    messages,
    neighbour_ov_writes,
    neighbour_qk_pattern,
    neighbour_shared,
    pattern_shift_downstream,
    swap_effects,
)
from attention_book.gpt2 import GPT2, attention
from attention_book.schema import Config


@pytest.fixture(scope="module")
def small():
    cfg = Config(n_layer=2, n_head=3, d_model=12, n_ctx=16)
    rng = np.random.default_rng(0)
    t = {}
    for layer in range(cfg.n_layer):
        p = f"h.{layer}."
        t[p + "ln_1.weight"] = (1 + 0.1 * rng.standard_normal(12)).astype(np.float32)
        t[p + "ln_1.bias"] = (0.1 * rng.standard_normal(12)).astype(np.float32)
        t[p + "attn.c_attn.weight"] = rng.standard_normal((12, 36)).astype(np.float32)
        t[p + "attn.c_attn.bias"] = rng.standard_normal(36).astype(np.float32)
        t[p + "attn.c_proj.weight"] = rng.standard_normal((12, 12)).astype(np.float32)
        t[p + "attn.c_proj.bias"] = rng.standard_normal(12).astype(np.float32)
    x = rng.standard_normal((7, 12)).astype(np.float32)
    return GPT2(t, cfg), x


def test_the_untouched_half_is_computed_bit_for_bit_as_before(small):
    model, x = small
    w = model.layers[0]
    base = attention(w, x)
    ov, qk = (attention(from_neighbour(w, parts), x) for parts in (OV_PARAMETERS,
                                                                    QK_PARAMETERS))
    assert np.array_equal(ov.pattern, base.pattern)
    assert np.array_equal(messages(w, qk.v), messages(w, base.v))
    written, shifted = swap_effects(w, x, model.config.eps)
    assert written.shape == shifted.shape == (3,)
    assert (written > 0.1).all() and (shifted > 0.01).all()


def test_exchanges_read_off_one_trace_are_the_exchanged_layers_bit_for_bit(small):
    model, x = small
    for w in model.layers:
        base = attention(w, x)
        ov, qk = (attention(from_neighbour(w, parts), x) for parts in (OV_PARAMETERS,
                                                                        QK_PARAMETERS))
        assert np.array_equal(neighbour_ov_writes(w, base), ov.head_writes)
        assert np.array_equal(neighbour_ov_writes(w, base).sum(0) + w.b_O, ov.out)
        assert np.array_equal(neighbour_qk_pattern(base), qk.pattern)


def test_a_head_that_shares_its_neighbours_parameters_does_not_move(small):
    model, x = small
    for parts, moved in ((OV_PARAMETERS, 0), (QK_PARAMETERS, 1)):
        shared = neighbour_shared(model, 0, 2, parts)
        w = shared.layers[0]
        assert all(np.array_equal(getattr(w, p)[2], getattr(w, p)[1]) for p in parts)
        assert np.array_equal(shared.layers[1].W_Q, model.layers[1].W_Q)
        effects = swap_effects(w, x, model.config.eps)[moved]
        assert effects[2] == 0 and (effects[:2] > 0).all()


def test_an_ov_exchange_moves_the_next_layers_pattern_not_its_own(small):
    model, x = small
    assert pattern_shift_downstream(model, x, 0) == 0
    assert pattern_shift_downstream(model, x, 1) > 0.01
    base = attention(model.layers[0], x, eps=model.config.eps)  # a trace already at hand
    for reader in (0, 1):
        assert (pattern_shift_downstream(model, x, reader, base)
                == pattern_shift_downstream(model, x, reader))


def test_bad_requests_say_what_is_wrong(small):
    model, _ = small
    with pytest.raises(ValueError, match="not a per-head parameter"):
        from_neighbour(model.layers[0], ("W_X",))
    with pytest.raises(ValueError, match="previous head"):
        neighbour_shared(model, 0, 0, OV_PARAMETERS)
    with pytest.raises(ValueError, match="reader is layer 0 or 1"):
        pattern_shift_downstream(model, np.zeros((2, 12)), 2)


def test_layer_swap_effects_are_shared_by_a_model_that_left_the_layer_alone(small):
    model, x = small
    edited = neighbour_shared(model, 0, 1, OV_PARAMETERS)
    kept = layer_swap_effects(model, 1, x)
    assert layer_swap_effects(edited, 1, x) is kept
    assert layer_swap_effects(edited, 0, x) is not layer_swap_effects(model, 0, x)
    assert layer_swap_effects(model, 1, x[:3]) is not kept


def test_layer_swap_effects_read_off_a_given_trace_are_those_computed(small):
    model, x = small
    fresh = GPT2(model.tensors, model.config)
    calls = []

    def trace():
        calls.append(1)
        return attention(fresh.layers[0], x, eps=fresh.config.eps)

    given = layer_swap_effects(fresh, 0, x, trace)
    assert all(np.array_equal(a, b) for a, b in
               zip(given, swap_effects(model.layers[0], x, model.config.eps),
                   strict=True))
    assert layer_swap_effects(fresh, 0, x, trace) is given and len(calls) == 1
