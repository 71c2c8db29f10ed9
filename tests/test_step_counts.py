"""Chapter 08b's counted decoding step (attention_book.step_counts): the torch step is
the book's attention; its FLOPs are 2 * 2 n_q T_q T_k d and its bytes are q, K, V read
and the output written, on real tensors and on the meta device alike."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attention_book.constructed import random_gpt2  # noqa: E402
from attention_book.gpt2 import KVCache  # noqa: E402
from attention_book.schema import Config  # noqa: E402
from attention_book.step_counts import attention_torch, count  # noqa: E402


def test_the_torch_step_is_the_books_attention():
    m = random_gpt2(Config(n_layer=1, n_head=4, d_model=32, n_ctx=16), n_vocab=20)
    cache = KVCache()
    m.run(m.position_rows(6), cache=cache, mlp=False)
    tr = m.run(m.position_rows(1, start=6), cache=cache, mlp=False).traces[0]
    out = attention_torch(*(torch.from_numpy(a) for a in (tr.q, tr.k, tr.v)))
    assert np.allclose(out.numpy(), tr.z, atol=1e-6)
    swapped = attention_torch(*(torch.from_numpy(a) for a in (tr.q, tr.v, tr.k)))
    assert not np.allclose(swapped.numpy(), tr.z, atol=1e-3)


@pytest.mark.parametrize(("n_q", "n_kv", "t_q", "t_k"), [(12, 12, 1, 9), (8, 2, 5, 5)])
def test_counts_on_meta_tensors(n_q, n_kv, t_q, t_k):
    d, b = 16, 2
    meta = lambda *s: torch.empty(*s, dtype=torch.bfloat16, device="meta")  # noqa: E731
    got = count(meta(n_q, t_q, d), meta(n_kv, t_k, d), meta(n_kv, t_k, d))
    assert got.flops == 2 * 2 * n_q * t_q * t_k * d
    assert got.cache_bytes == 2 * n_kv * t_k * d * b
    assert got.bytes_moved == got.cache_bytes + 2 * n_q * t_q * d * b
