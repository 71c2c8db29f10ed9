"""Decoding with a KV cache against recomputing everything, as chapter 08 compares them.

A *step* is ``step(part, cache)``: one call of a model on the positions ``part``, after
those whose keys and values ``cache`` already holds, returning that call's output rows.
``path_step`` runs the attention path (residual rows in, x <- x + attn(x) through every
layer); ``logits_step`` the whole model (token ids in, logits out).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .gpt2 import GPT2, AttentionTrace, KVCache, attention

Step = Callable[[np.ndarray, KVCache], np.ndarray]
Decode = Callable[[Step, np.ndarray, int, KVCache], np.ndarray]


def rel_gap(a: np.ndarray, b: np.ndarray) -> float:
    """Largest |a - b| relative to b's largest entry."""
    return float(np.abs(a - b).max() / np.abs(b).max())


def step_by_step(step: Step, inputs: np.ndarray, n_prompt: int, cache: KVCache
                 ) -> np.ndarray:
    """Cached decoding as a server does it: the prompt in one call, then
    one position per call, each call through every layer."""
    pieces = [step(inputs[:n_prompt], cache)]
    for t in range(n_prompt, len(inputs)):
        pieces.append(step(inputs[t:t + 1], cache))
    return np.concatenate(pieces)


def layer_by_layer(model: GPT2, causal: bool = True) -> Decode:
    """Cached decoding of the attention path with the loops swapped: every step through
    layer 0, then every step through layer 1, and so on. Each new row still sees only
    itself and the cache, so the numbers are ``step_by_step``'s (a unit test holds them
    to it bit for bit); it needs every row in advance, which a server does not have, and
    runs faster: one layer's weights stay in the CPU's cache."""
    def decode(_step: Step, rows: np.ndarray, n_prompt: int, cache: KVCache) -> np.ndarray:
        for layer, w in enumerate(model.layers):
            parts = [rows[:n_prompt]] + [rows[t:t + 1] for t in range(n_prompt, len(rows))]
            rows = np.concatenate([
                part + attention(w, part, causal=causal, cache=cache, layer=layer,
                                 eps=model.config.eps).out for part in parts])
        return rows
    return decode


def decode_vs_recompute(step: Step, inputs: np.ndarray, n_prompt: int,
                        decode: Decode = step_by_step) -> tuple[float, np.ndarray]:
    """Decode ``inputs`` (a prompt of ``n_prompt`` rows, then one row per step) and
    recompute them in one pass. Returns the relative gap between the two outputs, and per
    layer the relative gaps of the keys and of the values the two caches hold
    ([layers, 2]): each decoded key and value was computed when its position (or the
    prompt) was the last one, the recomputed ones with every later position present."""
    full_cache, cache = KVCache(), KVCache()
    full = step(inputs, full_cache)
    out_gap = rel_gap(decode(step, inputs, n_prompt, cache), full)
    kv_gap = np.array([[rel_gap(cache.keys[layer], full_cache.keys[layer]),
                        rel_gap(cache.values[layer], full_cache.values[layer])]
                       for layer in range(len(full_cache.keys))])
    return out_gap, kv_gap


def path_step(model: GPT2, causal: bool = True) -> Step:
    """Residual rows in, the attention path's rows out."""
    return lambda part, cache: model.run(part, cache=cache, mlp=False,
                                         causal=causal).output


def logits_step(model: GPT2, causal: bool = True) -> Step:
    """Token ids in, the whole model's output out: logits (causal), or the last residual
    rows of the model run without its mask."""
    def step(part: np.ndarray, cache: KVCache) -> np.ndarray:
        if causal:
            return model.logits(part, cache)
        return model.run(model.embed(part, start=len(cache)), cache=cache,
                         causal=False).output
    return step


def decode_positions(model: GPT2, x: np.ndarray
                     ) -> tuple[KVCache, list[int], int, list[AttentionTrace]]:
    """Decode the rows x one at a time through the attention path: the cache, its size
    in bytes after every step, the bytes of every query computed, and the last step's
    traces."""
    cache, sizes, query_bytes, traces = KVCache(), [], 0, []
    for t in range(len(x)):
        traces = model.run(x[t:t + 1], cache=cache, mlp=False).traces
        query_bytes += sum(tr.q.nbytes for tr in traces)
        sizes.append(cache.nbytes)
    return cache, sizes, query_bytes, traces
