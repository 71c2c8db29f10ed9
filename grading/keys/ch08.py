"""Exercises of chapter 08, serving (claim K1)."""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from grading.registry import exercise

N = sp.Symbol("n")  # the answers' symbol, as the form reads it
EDITED_POSITION, REPLACEMENT_ROW = 3, 500
TOL_REL = 1e-5   # a key "changes" beyond float32 rounding, as in the chapter


def _queries_reference() -> tuple[sp.Expr, sp.Expr]:
    n, t = sp.symbols("n t", integer=True, positive=True)
    counts = sp.summation(1, (t, 1, n)), sp.summation(t, (t, 1, n))
    return tuple(c.subs(n, N) for c in counts)


@exercise("ex-k1-queries", difficulty="warm-up", minutes=10, reference=_queries_reference,
          mistakes={"n-every-step": lambda: (N, N**2),
                    "steps-from-zero": lambda: (N, N * (N - 1) / 2)})
def _(answer: tuple[sp.Expr, sp.Expr]) -> str | None:
    with_cache, without_cache = answer
    right_with, right_without = _queries_reference()
    problems = []
    if sp.simplify(with_cache - right_with) != 0:
        problems.append("the count with a cache is not right")
    if sp.simplify(without_cache - right_without) != 0:
        at_3 = without_cache.subs(N, 3)
        problems.append("the count without a cache is not right "
                        f"(for n = 3 your expression gives {at_3})")
    return "; ".join(problems).capitalize() + "." if problems else None


@functools.lru_cache(maxsize=1)
def _edit_reference() -> tuple[tuple[int, ...], ...]:
    from attention_book.chapter import rows_a
    from attention_book.gpt2 import load_gpt2

    model = load_gpt2()
    x = rows_a(model)
    x_edit = x.copy()
    x_edit[EDITED_POSITION] = model.position_rows(1, start=REPLACEMENT_ROW)[0]
    before = model.run(x, mlp=False).traces
    after = model.run(x_edit, mlp=False).traces
    return tuple(tuple(np.nonzero((np.abs(a.k - b.k) > TOL_REL * np.abs(a.k).max())
                                  .any(axis=(0, 2)))[0].tolist())
                 for a, b in zip(before, after, strict=True))


def _listing_earlier_rows() -> list[list[int]]:
    return [list(range(EDITED_POSITION)) + list(layer) for layer in _edit_reference()]


@exercise("ex-k1-edit", difficulty="standard", minutes=15,
          reference=lambda: [list(layer) for layer in _edit_reference()],
          mistakes={"before-the-edit": _listing_earlier_rows,
                    "only-the-edit": lambda: [[EDITED_POSITION]] * 12})
def _(answer: list[list[int]]) -> str | None:
    truth = _edit_reference()
    got = [tuple(sorted(layer)) for layer in answer]
    wrong_layers = [layer for layer, (g, t) in enumerate(zip(got, truth, strict=True)) if g != t]
    if not wrong_layers:
        return None
    return (f"The positions are wrong in {len(wrong_layers)} of {len(truth)} layers "
            f"(the first is layer {wrong_layers[0]}).")
