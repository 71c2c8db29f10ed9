"""What chapter 08b asserts on the implementation and no checkpoint can change: the
KV cache the book's decoding keeps has 2 n_layers n_kv d_head T b bytes, for models of
several sizes, and a cache that also kept the queries would not."""

import numpy as np
import pytest

from attention_book.constructed import random_gpt2
from attention_book.gpt2 import KVCache
from attention_book.schema import Config


@pytest.mark.parametrize("config", [Config(n_layer=2, n_head=2, d_model=16, n_ctx=32),
                                    Config(n_layer=3, n_head=4, d_model=32, n_ctx=32)],
                         ids=["2x2", "3x4"])
def test_the_cache_holds_keys_and_values_only(config):
    model = random_gpt2(config, n_vocab=50, seed=1)
    x = model.position_rows(9)
    cache, queries = KVCache(), 0
    for t in range(len(x)):
        fwd = model.run(x[t:t + 1], cache=cache, mlp=False)
        queries += sum(tr.q.nbytes for tr in fwd.traces)
        formula = 2 * config.n_layer * config.n_head * config.d_head * (t + 1) * 4
        assert cache.nbytes == formula
    # each query row is computed once: keeping them too would hold half as much again
    assert queries == config.n_layer * config.n_head * config.d_head * len(x) * 4
    assert 2 * (cache.nbytes + queries) == 3 * cache.nbytes
    assert all(k.shape == (config.n_head, len(x), config.d_head) for k in cache.keys)
    assert np.isfinite(np.concatenate(cache.values)).all()
