"""Exercises of chapter 08b, the cache budget (claims K3, K5, K6)."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from grading.registry import exercise
from grading.tolerance import float32_sums, relative_gap

GIB = 2**30
LLAMA_70B_PARAMS = 68_976_648_192   # Touvron et al. 2023, embeddings and norms included
MEMORY = 8 * 80e9                   # eight 80 GB accelerators
GROUP = 4                           # query heads per mean-pooled key head


def _kv_bytes(layers: int, kv_heads: int, d_head: int, positions: int, nbytes: int) -> int:
    return 2 * layers * kv_heads * d_head * positions * nbytes


def _llama7b_reference() -> int:
    return _kv_bytes(32, 32, 128, 4096, 2)


@exercise("ex-k3-llama7b", difficulty="warm-up", minutes=10, reference=_llama7b_reference,
          mistakes={"not-bytes": lambda: _llama7b_reference() // GIB,
                    "half": lambda: _kv_bytes(32, 32, 128, 4096, 2) // 2,
                    "four-bytes": lambda: _kv_bytes(32, 32, 128, 4096, 4)})
def _(got: int) -> str | None:
    if got == _llama7b_reference():
        return None
    if got * 4 == _llama7b_reference():
        return "Check the number of key-value heads: this model has no grouping."
    return "That is not the cache size in bytes."


def pairwise_tv(pattern: np.ndarray, n_kv_heads: int) -> np.ndarray:
    """Mean total-variation distance between the rows of every pair of heads in a group."""
    group = pattern.shape[0] // n_kv_heads
    pairs = [(first + p, first + p_) for first in range(0, pattern.shape[0], group)
             for p, p_ in itertools.combinations(range(group), 2)]
    return np.array([0.5 * np.abs(pattern[x, 1:] - pattern[y, 1:]).sum(-1).mean()
                     for x, y in pairs])


def _layer0_distances(pooled: bool) -> np.ndarray:
    from attention_book.chapter import rows_a
    from attention_book.gpt2 import causal_mask, layer_norm, load_gpt2, softmax

    model = load_gpt2()
    cfg, w = model.config, model.layers[0]
    x = rows_a(model)
    x_ln = layer_norm(x, w.ln_w, w.ln_b)
    if pooled:
        W_K = w.W_K.reshape(-1, GROUP, cfg.d_model, cfg.d_head).mean(1)
        b_K = w.b_K.reshape(-1, GROUP, cfg.d_head).mean(1)
    else:  # the group's first head, as in the chapter's K5
        W_K, b_K = w.W_K[::GROUP], w.b_K[::GROUP]
    q = np.einsum("td,hde->hte", x_ln, w.W_Q) + w.b_Q[:, None]
    k = np.repeat(np.einsum("td,hde->hte", x_ln, W_K) + b_K[:, None], GROUP, 0)
    n = len(x)
    scores = (q @ k.transpose(0, 2, 1)) / math.sqrt(cfg.d_head)
    pattern = softmax(np.where(causal_mask(n, n), -np.inf, scores))
    return pairwise_tv(pattern, cfg.n_head // GROUP)


@functools.lru_cache(maxsize=2)
def _meanpool_min(pooled: bool = True) -> float:
    return float(_layer0_distances(pooled).min())


@exercise("ex-k5-meanpool", difficulty="standard", minutes=20, float32=True,
          reference=lambda: _meanpool_min(True),
          mistakes={"first-head-keys": lambda: _meanpool_min(False)})
def _(got: float) -> str | None:
    tol = float32_sums(768)  # distances of float32 patterns, relative to the distance
    if relative_gap(got, _meanpool_min(True)) <= tol:
        return None
    return "That is not the smallest distance between two heads of a group."


def _capacity(weights_counted: bool = True, whole: bool = True) -> dict[str, int]:
    free = MEMORY - (2 * LLAMA_70B_PARAMS if weights_counted else 0)
    fits = {name: free / _kv_bytes(80, heads, 128, 4096, 2)
            for name, heads in (("GQA", 8), ("MHA", 64))}
    return {name: int(math.floor(n) if whole else math.ceil(n)) for name, n in fits.items()}


@exercise("ex-k6-capacity", difficulty="standard", minutes=15, reference=_capacity,
          mistakes={"weights-left-in": lambda: _capacity(weights_counted=False),
                    "rounded-up": lambda: _capacity(whole=False)})
def _(got: dict[str, int]) -> str | None:
    right = _capacity()
    if got == right:
        return None
    wrong = [name for name in right if got[name] != right[name]]
    return f"The count for {' and '.join(wrong)} is not right."
