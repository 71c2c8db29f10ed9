"""Chapter 08's decoding against recomputation (attention_book.kv_decoding) on a small
random GPT-2: causal decoding matches, the unmasked one does not, and the fast layer-by-
layer loop gives the server loop's numbers bit for bit."""

import numpy as np
import pytest

from attention_book.constructed import random_gpt2
from attention_book.gpt2 import KVCache
from attention_book.kv_decoding import (
    decode_positions,
    decode_vs_recompute,
    layer_by_layer,
    logits_step,
    path_step,
    step_by_step,
)
from attention_book.schema import Config

CONFIG = Config(n_layer=3, n_head=4, d_model=32, n_ctx=32)


@pytest.fixture(scope="module")
def model():
    return random_gpt2(CONFIG, n_vocab=50, seed=2)


def test_layer_by_layer_is_step_by_step_bit_for_bit(model):
    x, step = model.position_rows(10), path_step(model)
    fast = layer_by_layer(model)(step, x, 4, KVCache())
    assert np.array_equal(fast, step_by_step(step, x, 4, KVCache()))


@pytest.mark.parametrize("fast", [False, True])
def test_causal_decoding_matches_and_unmasked_does_not(model, fast):
    x = model.position_rows(12)
    decode = layer_by_layer(model) if fast else step_by_step
    gap, kv = decode_vs_recompute(path_step(model), x, 8, decode)
    assert kv.shape == (CONFIG.n_layer, 2)
    assert gap < 1e-5 and kv.max() < 1e-5
    decode = layer_by_layer(model, causal=False) if fast else step_by_step
    gap, kv = decode_vs_recompute(path_step(model, causal=False), x, 8, decode)
    assert gap > 1e-3 and kv[1:, 0].min() > 1e-3  # keys change from layer 1 on
    assert kv[0, 0] < 1e-5                         # layer 0 reads its own row


def test_whole_model_decoding(model):
    ids = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    assert decode_vs_recompute(logits_step(model), ids, 5)[0] < 1e-5
    assert decode_vs_recompute(logits_step(model, causal=False), ids, 5)[0] > 1e-3


def test_decode_positions_counts_the_cache_and_the_queries(model):
    x = model.position_rows(6)
    cache, sizes, query_bytes, traces = decode_positions(model, x)
    row = CONFIG.n_head * CONFIG.d_head * 4  # one position's key (or value), one layer
    assert sizes == [2 * CONFIG.n_layer * row * (t + 1) for t in range(len(x))]
    assert query_bytes == CONFIG.n_layer * row * len(x)
    assert len(traces) == CONFIG.n_layer and traces[0].k.shape[1] == len(x)
    assert cache.nbytes == sizes[-1]
