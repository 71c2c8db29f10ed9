"""Chapter 08b's grouped-query constructions (attention_book.grouped_query): with one
key-value head per query head the construction is the model itself (K4's identity, which
no checkpoint can fail, so it is held here); fewer key-value heads shrink the cache by
n_kv / n_head and change the output; heads that share W_Q as well attend identically;
the rounding bound is a positive distance smaller than the real ones."""

import numpy as np
import pytest

from attention_book.constructed import random_gpt2
from attention_book.gpt2 import attention
from attention_book.grouped_query import (
    group_pairs,
    grouped_attention,
    grouped_decode,
    grouped_path,
    pairwise_tv,
    tv_rounding_bound,
)
from attention_book.kv_decoding import decode_positions, rel_gap
from attention_book.schema import Config
from attention_book.verify import gamma

CONFIG = Config(n_layer=2, n_head=6, d_model=48, n_ctx=32)


@pytest.fixture(scope="module")
def model():
    return random_gpt2(CONFIG, n_vocab=20, seed=5)


def test_one_key_value_head_per_query_head_is_the_model(model):
    x = model.position_rows(9)
    full = model.run(x, mlp=False).output
    assert rel_gap(grouped_path(model, x, CONFIG.n_head), full) < \
        CONFIG.n_layer * gamma(CONFIG.d_model)
    assert rel_gap(grouped_path(model, x, 2), full) > 1e-3
    out, pattern = grouped_attention(model.layers[0], x, CONFIG.n_head)
    trace = attention(model.layers[0], x)
    assert np.allclose(pattern, trace.pattern, atol=1e-6)
    assert np.allclose(out, trace.out, atol=1e-5)


@pytest.mark.parametrize("n_kv", [6, 3, 2, 1])
def test_the_cache_shrinks_by_n_kv_over_n_head(model, n_kv):
    x = model.position_rows(5)
    cache, sizes = grouped_decode(model, x, n_kv)
    full = decode_positions(model, x)[1]
    assert [s * CONFIG.n_head for s in sizes] == [f * n_kv for f in full]
    assert cache.keys[0].shape == (n_kv, len(x), CONFIG.d_head)


def test_shared_queries_attend_identically_and_own_queries_do_not(model):
    x = model.position_rows(9)
    w = model.layers[0]
    assert pairwise_tv(grouped_attention(w, x, 2, share_queries=True)[1], 2).max() == 0
    tv = pairwise_tv(grouped_attention(w, x, 2)[1], 2)
    bound = tv_rounding_bound(w, x, 2)
    assert len(tv) == len(group_pairs(CONFIG.n_head, 2)) == 2 * 3
    assert (bound > 0).all() and bound.max() < 1e-2
    assert all(d > bound[a] + bound[b] for d, (a, b) in zip(tv, group_pairs(6, 2),
                                                          strict=True))


def test_group_pairs():
    assert group_pairs(4, 2) == [(0, 1), (2, 3)]
    assert group_pairs(3, 1) == [(0, 1), (0, 2), (1, 2)]
    assert group_pairs(4, 4) == []
