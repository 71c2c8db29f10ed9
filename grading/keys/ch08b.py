"""Exercises of chapter 08b, the cache budget (claims K3, K5, K6)."""

from __future__ import annotations

import functools
import itertools
import math
import numbers

import numpy as np

from grading.registry import exercise
from grading.tolerance import float32_sums, relative_gap

GIB = 2**30
LLAMA_70B_PARAMS = 68_976_648_192   # Touvron et al. 2023, embeddings and norms included
MEMORY = 8 * 80e9                   # eight 80 GB accelerators
GROUP = 4                           # query heads per mean-pooled key head


def _kv_bytes(layers: int, kv_heads: int, d_head: int, positions: int, nbytes: int) -> int:
    return 2 * layers * kv_heads * d_head * positions * nbytes


def _integer(answer: object) -> int:
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        raise TypeError(f"expected a number, got {type(answer).__name__}")
    if float(answer) != int(answer):
        raise ValueError("expected a whole number")
    return int(answer)


def _llama7b_reference() -> int:
    return _kv_bytes(32, 32, 128, 4096, 2)


@exercise("ex-k3-llama7b", difficulty="warm-up", minutes=10,
          hint="Use the chapter's cache formula with the 7B model's shape, and count "
               "every array the cache holds, in bytes.",
          reference=_llama7b_reference,
          wrong=lambda: _kv_bytes(32, 32, 128, 4096, 2) // 2)
def _(answer) -> str | None:
    got, right = _integer(answer), _llama7b_reference()
    if got == right:
        return None
    if got * 2 == right:
        return "That is half the cache: are both keys and values counted, at 2 bytes each?"
    if got * 4 == right:
        return "Check the number of key-value heads: this model has no grouping."
    if got == right * 2:
        return "Check the bytes per number: 16-bit numbers take 2 bytes."
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


@exercise("ex-k5-meanpool", difficulty="standard", minutes=20,
          hint="K5 gave each group the keys of its first head; here the group shares "
               "the mean of its four key lenses (biases too). Measure as K5 does.",
          reference=lambda: _meanpool_min(True),
          wrong=lambda: _meanpool_min(False), float32=True)
def _(answer) -> str | None:
    got = float(answer)
    tol = float32_sums(768)  # distances of float32 patterns, relative to the distance
    if relative_gap(got, _meanpool_min(True)) <= tol:
        return None
    if relative_gap(got, _meanpool_min(False)) <= tol:
        return ("That is the distance with the group's first head's keys, as in K5, not "
                "with mean-pooled keys.")
    if not 0 <= got <= 1:
        return f"A total-variation distance lies between 0 and 1; {got:.3g} does not."
    return "That is not the smallest distance between two heads of a group."


def _capacity(weights_counted: bool = True) -> dict[str, int]:
    free = MEMORY - (2 * LLAMA_70B_PARAMS if weights_counted else 0)
    return {name: int(free // _kv_bytes(80, heads, 128, 4096, 2))
            for name, heads in (("GQA", 8), ("MHA", 64))}


@exercise("ex-k6-capacity", difficulty="standard", minutes=15,
          hint="What is left of the memory once the weights are loaded, and how many "
               "whole sequences' caches fit in it?",
          reference=_capacity,
          wrong=lambda: _capacity(weights_counted=False))
def _(answer) -> str | None:
    if not isinstance(answer, dict) or set(answer) != {"GQA", "MHA"}:
        return 'The answer should be a dict with the keys "GQA" and "MHA".'
    got = {name: _integer(value) for name, value in answer.items()}
    right = _capacity()
    if got == right:
        return None
    if got == _capacity(weights_counted=False):
        return "These counts leave no room for the weights."
    wrong = [name for name in right if got[name] != right[name]]
    return f"The count for {' and '.join(wrong)} is not right."
