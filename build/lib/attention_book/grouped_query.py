"""Grouped-query attention built from GPT-2's own weights, as chapter 08b measures it.

The 12 query heads of a layer are split into ``n_kv_heads`` groups of consecutive heads;
every head of a group reads the keys and values of the group's first head (its W_K, W_V
and biases), and a cache stores only those ``n_kv_heads`` heads. These are constructions
from the real weights, not trained GQA models. With ``n_kv_heads`` equal to the number of
heads the construction is the model itself (a unit test holds it to ``gpt2.attention``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .gpt2 import GPT2, AttentionWeights, KVCache, causal_mask, layer_norm, softmax
from .verify import gamma


def grouped_attention(w: AttentionWeights, x: np.ndarray, n_kv_heads: int,
                      cache: KVCache | None = None, layer: int = 0,
                      share_queries: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """One layer's output [T, d_model] and attention pattern [H, T, T_k] with the query
    heads grouped onto ``n_kv_heads`` key-value heads. ``share_queries``: every head of a
    group also uses the group's first head's W_Q and b_Q."""
    group = w.W_Q.shape[0] // n_kv_heads
    x_ln = layer_norm(x, w.ln_w, w.ln_b)
    W_Q, b_Q = w.W_Q, w.b_Q
    if share_queries:
        W_Q, b_Q = np.repeat(w.W_Q[::group], group, 0), np.repeat(w.b_Q[::group], group, 0)
    q = x_ln @ W_Q + b_Q[:, None]                   # [T, d] @ [H, d, e]
    k = x_ln @ w.W_K[::group] + w.b_K[::group, None]
    v = x_ln @ w.W_V[::group] + w.b_V[::group, None]
    if cache is not None:
        k, v = cache.extend(layer, k, v)            # the n_kv heads are stored
    k, v = np.repeat(k, group, 0), np.repeat(v, group, 0)
    scores = (q @ k.transpose(0, 2, 1)) / math.sqrt(q.shape[-1])
    pattern = softmax(np.where(causal_mask(q.shape[1], k.shape[1]), -np.inf, scores))
    return (pattern @ v @ w.W_O).sum(0) + w.b_O, pattern


def grouped_decode(model: GPT2, x: np.ndarray, n_kv_heads: int
                   ) -> tuple[KVCache, list[int]]:
    """Decode the rows x one at a time through the grouped attention path: the cache and
    its size in bytes after every step."""
    cache, sizes = KVCache(), []
    for t in range(len(x)):
        row = x[t:t + 1]
        for layer, w in enumerate(model.layers):
            row = row + grouped_attention(w, row, n_kv_heads, cache, layer)[0]
        sizes.append(cache.nbytes)
    return cache, sizes


def grouped_path(model: GPT2, x: np.ndarray, n_kv_heads: int) -> np.ndarray:
    """The grouped model's attention path x <- x + attn(x), all rows at once."""
    for w in model.layers:
        x = x + grouped_attention(w, x, n_kv_heads)[0]
    return x


def group_pairs(n_head: int, n_kv_heads: int) -> list[tuple[int, int]]:
    """Every pair of query heads that share a key-value head."""
    group = n_head // n_kv_heads
    return [(first + a, first + b) for first in range(0, n_head, group)
            for a, b in itertools.combinations(range(group), 2)]


def pairwise_tv(pattern: np.ndarray, n_kv_heads: int) -> np.ndarray:
    """For every pair of heads in a group, the total-variation distance between their
    attention rows (half the sum of absolute differences: 0 identical, 1 disjoint),
    averaged over the rows that have more than one key to choose from."""
    return np.array([0.5 * np.abs(pattern[a, 1:] - pattern[b, 1:]).sum(-1).mean()
                     for a, b in group_pairs(pattern.shape[0], n_kv_heads)])


def tv_rounding_bound(w: AttentionWeights, x: np.ndarray, n_kv_heads: int) -> np.ndarray:
    """Per head, how far (in total variation, averaged over the rows pairwise_tv reads)
    float32 rounding can move a computed attention row of ``grouped_attention`` from the
    exact one, for the same LayerNorm'd rows: Higham's bound on q and k (sums of d_model
    terms and a bias) and on q.k (d_head terms) gives a score error delta, softmax turns
    it into at most (e^{2 delta} - 1) / 2, and its own arithmetic adds gamma_{T+2} / 2.
    Two heads whose computed rows differ by more than the sum of their bounds attend
    differently in exact arithmetic."""
    group = w.W_Q.shape[0] // n_kv_heads
    x_ln = layer_norm(x, w.ln_w, w.ln_b).astype(np.float64)
    d_model, d_head = w.W_Q.shape[1:]

    def lens(W, b):
        value = x_ln @ W + b[:, None]
        error = gamma(d_model + 1) * (np.abs(x_ln) @ np.abs(W) + np.abs(b)[:, None])
        return np.abs(value), error

    q, dq = lens(w.W_Q, w.b_Q)
    k, dk = (np.repeat(a, group, 0) for a in lens(w.W_K[::group], w.b_K[::group]))
    kt, dkt = k.transpose(0, 2, 1), dk.transpose(0, 2, 1)
    delta = (gamma(d_head) * q @ kt + dq @ kt + q @ dkt) / math.sqrt(d_head)
    T = x.shape[0]
    delta = np.where(causal_mask(T, T), 0.0, delta).max(-1)      # [H, T]
    bound = 0.5 * np.expm1(2 * delta) + 0.5 * gamma(T + 2)
    return bound[:, 1:].mean(-1)
