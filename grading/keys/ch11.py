"""Exercises of chapter 11, The checklist."""

from __future__ import annotations

import functools

import numpy as np

from grading.registry import exercise
from grading.tolerance import float32_sums, relative_gap

LLAMA2_70B = {"d_model": 8192, "n_head": 64, "d_head": 128, "n_layer": 80}


def _mqa(layers: int = LLAMA2_70B["n_layer"], bytes_per_number: int = 2
         ) -> tuple[tuple[int, int], int]:
    c = LLAMA2_70B
    return (c["d_model"], c["d_head"]), 2 * layers * 1 * c["d_head"] * bytes_per_number


@exercise("ex-xi-mqa", difficulty="standard", minutes=15, reference=_mqa,
          mistakes={"out-in": lambda: (_mqa()[0][::-1], _mqa()[1]),
                    "half-cache": lambda: _mqa(bytes_per_number=1),
                    "one-layer": lambda: _mqa(layers=1)})
def _(answer: tuple[tuple[int, int], int]) -> str | None:
    w_k, cache = answer
    want_shape, want_bytes = _mqa()
    if w_k != want_shape:
        return f"W_K of shape {w_k} does not fit one key-value head."
    if cache != want_bytes:
        return f"{cache:,} bytes per token is not the cache at g = 1."
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


@exercise("ex-xi-grouped-gpt2", difficulty="standard", minutes=20, reference=_grouped,
          mistakes={"nothing-grouped": lambda: (12, _grouped()[1]),
                    "identical-patterns": lambda: (_grouped()[0], 0.0)}, float32=True)
def _(answer: tuple[int, float]) -> str | None:
    n_distinct, smallest = answer
    want_n, want_diff = _grouped()
    if n_distinct != want_n:
        return f"{n_distinct} is not the number of distinct W_K blocks."
    tol = float32_sums(768)  # differences of float32 patterns, relative to the answer
    if relative_gap(smallest, want_diff) > tol:
        return ("the smallest within-group difference is off; take, for each "
                "group, the largest entry of |pattern_a - pattern_b| over its "
                "pairs of heads, then the smallest over the groups.")
    return None
