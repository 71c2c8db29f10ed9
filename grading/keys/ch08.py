"""Exercises of chapter 08, serving (claim K1)."""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from grading.registry import exercise

N = sp.Symbol("n", integer=True, positive=True)
EDITED_POSITION, REPLACEMENT_ROW = 3, 500
TOL_REL = 1e-5   # a key "changes" beyond float32 rounding, as in the chapter


def _as_expression(value: object) -> sp.Expr:
    """An answer in n as a SymPy expression, whatever symbol object the student built."""
    expr = sp.sympify(value)
    names = {s.name for s in expr.free_symbols}
    if names - {"n"}:
        raise ValueError(f"the expression uses symbols other than n: {sorted(names - {'n'})}")
    return expr.subs({s: N for s in expr.free_symbols})


def _queries_reference() -> tuple[sp.Expr, sp.Expr]:
    t = sp.Symbol("t", integer=True, positive=True)
    return sp.summation(1, (t, 1, N)), sp.summation(t, (t, 1, N))


@exercise("ex-k1-queries", difficulty="warm-up", minutes=10,
          hint="How many queries does step t compute with a cache, and how many when "
               "everything is recomputed? Then add up the steps.",
          reference=_queries_reference,
          wrong=lambda: (N, N**2))
def _(answer) -> str | None:
    if len(answer) != 2:
        return "The answer should be a pair (with_cache, without_cache)."
    with_cache, without_cache = (_as_expression(a) for a in answer)
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


@exercise("ex-k1-edit", difficulty="standard", minutes=15,
          hint="Layer 0 computes keys row by row; from layer 1 on, a row's key depends on "
               "the rows it attended to in the layer below.",
          reference=lambda: [list(layer) for layer in _edit_reference()],
          wrong=lambda: [[EDITED_POSITION]] * 12)
def _(answer) -> str | None:
    truth = _edit_reference()
    if len(answer) != len(truth):
        return f"The answer should be a list with one list of positions per layer ({len(truth)})."
    got = [tuple(sorted(int(p) for p in layer)) for layer in answer]
    wrong_layers = [layer for layer, (g, t) in enumerate(zip(got, truth, strict=True)) if g != t]
    if not wrong_layers:
        return None
    if any(p < EDITED_POSITION for layer in got for p in layer):
        return ("Some listed positions come before the edit; can their keys depend on a "
                "later row under the causal mask?")
    return (f"The positions are wrong in {len(wrong_layers)} of {len(truth)} layers "
            f"(the first is layer {wrong_layers[0]}).")
