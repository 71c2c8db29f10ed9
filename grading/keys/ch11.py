"""Exercises of chapter 11, The checklist."""

from __future__ import annotations

import functools

import numpy as np

from grading.registry import exercise
from grading.tolerance import float32_sums, relative_gap

LLAMA2_70B = {"d_model": 8192, "n_head": 64, "d_head": 128, "n_layer": 80}


def _mqa() -> tuple[tuple[int, int], int]:
    c = LLAMA2_70B
    return (c["d_model"], c["d_head"]), 2 * c["n_layer"] * 1 * c["d_head"] * 2


@exercise("ex-xi-mqa", difficulty="standard", minutes=15,
          hint="Which dimension of W_K follows the number of key-value heads? For the "
               "cache, count what every layer keeps for one token.",
          reference=_mqa,
          wrong=lambda: ((8192, 128), 2 * 80 * 128))
def _(answer) -> str | None:
    w_k, cache = answer
    w_k = tuple(int(v) for v in w_k)
    (want_shape, want_bytes) = _mqa()
    if w_k == want_shape[::-1]:
        return ("the shape is transposed: the book stores weights as "
                "[in, out], rows of width d_model in.")
    if w_k != want_shape:
        return f"W_K of shape {w_k} does not fit one key-value head."
    if int(cache) * 2 == want_bytes:
        return ("the cache holds half of what it should: keys and values "
                "both, or 16-bit numbers?")
    if int(cache) != want_bytes:
        return f"{int(cache):,} bytes per token is not the cache at g = 1."
    return None


@functools.lru_cache(maxsize=1)
def _grouped() -> tuple[int, float]:
    from dataclasses import replace

    from attention_book.chapter import rows_a
    from attention_book.gpt2 import attention, load_gpt2

    model = load_gpt2()
    w0 = model.layers[0]
    grouped = replace(w0, W_K=np.repeat(w0.W_K[::3], 3, axis=0),
                      b_K=np.repeat(w0.b_K[::3], 3, axis=0))
    n_distinct = len({b.tobytes() for b in grouped.W_K})
    patterns = attention(grouped, rows_a(model)).pattern
    within = [max(np.abs(patterns[3 * g + a] - patterns[3 * g + b]).max()
                  for a, b in ((0, 1), (0, 2), (1, 2))) for g in range(4)]
    return n_distinct, float(min(within))


@exercise("ex-xi-grouped-gpt2", difficulty="standard", minutes=20,
          hint="Two key blocks are the same only if every entry is; the heads of a "
               "group share keys, but do they share everything that makes a pattern?",
          reference=_grouped, wrong=lambda: (12, 0.0), float32=True)
def _(answer) -> str | None:
    n_distinct, smallest = answer
    want_n, want_diff = _grouped()
    if int(n_distinct) == 12:
        return ("12 distinct key matrices means nothing was grouped: each "
                "group of three should share its first head's keys.")
    if int(n_distinct) != want_n:
        return f"{int(n_distinct)} is not the number of distinct W_K blocks."
    tol = float32_sums(768)  # differences of float32 patterns, relative to the answer
    if float(smallest) <= tol * want_diff:
        return ("the heads of a group do not attend identically: they share "
                "keys, but their queries differ.")
    if relative_gap(float(smallest), want_diff) > tol:
        return ("the smallest within-group difference is off; take, for each "
                "group, the largest entry of |pattern_a - pattern_b| over its "
                "pairs of heads, then the smallest over the groups.")
    return None
