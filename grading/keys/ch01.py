"""Exercises of chapter 01, One row, three lenses (claims L1-L3)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from attention_book.chapter import rows_a
from attention_book.gpt2 import attention, layer_norm, load_gpt2
from grading.registry import exercise
from grading.tolerance import float32_sums, relative_gap

LAYER = 5
KEY_HEAD = 7
ALPHA, BETA = sp.symbols("alpha beta")


def _layer5_by_hand(normalise: bool = True) -> tuple[np.ndarray, ...]:
    """q, k, v [12, T, 64] of layer 5 on the example rows, from c_attn and ln_1."""
    model = load_gpt2()
    t, cfg = model.tensors, model.config
    x = rows_a(model)
    p = f"h.{LAYER}."
    if normalise:
        x = layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"])
    qkv = x @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]
    d = cfg.d_model
    return tuple(qkv[:, s * d:(s + 1) * d]
                 .reshape(len(x), cfg.n_head, cfg.d_head).transpose(1, 0, 2)
                 for s in range(3))


@exercise("ex-l1-layer5", difficulty="standard", minutes=15, reference=_layer5_by_hand,
          mistakes={"no-layernorm": lambda: _layer5_by_hand(normalise=False)}, float32=True)
def _(answer: tuple[np.ndarray, ...]) -> str | None:
    model = load_gpt2()
    want = attention(model.layers[LAYER], rows_a(model))
    for name, got, ref in zip("qkv", answer, (want.q, want.k, want.v), strict=True):
        if got.shape != ref.shape:
            return (f"{name} has shape {got.shape}; expected one array per head, "
                    f"[heads, positions, head width] = {ref.shape}.")
        # float32 sums of 768 products (plus a bias), relative to the largest entry
        gap = relative_gap(got, ref)
        if not gap <= float32_sums(768):
            return (f"{name} differs from what layer 5 computes by up to {gap:.2g} of its "
                    f"largest entry (float32 rounding allows {float32_sums(768):.1g}).")
    return None


def _point_on(factor: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """A pair (alpha, beta) where the factor vanishes but alpha + beta != 1."""
    for a in (2, 3, -1):
        for b in sp.solve(factor.subs(ALPHA, a), BETA):
            if b.is_real and a + b != 1:
                return sp.Integer(a), b
    for a in sp.solve(factor.subs(BETA, 0), ALPHA):
        if a.is_real and a != 1:
            return a, sp.Integer(0)
    return None


@exercise("ex-l2-defect", difficulty="warm-up", minutes=10,
          reference=lambda: sp.Eq(ALPHA + BETA, 1),
          mistakes={"allows-no-mix": lambda: sp.Eq(ALPHA + BETA, 0),
                    "allows-a-sum": lambda: sp.Eq(ALPHA + BETA, 2)})
def _(answer: sp.Basic) -> str | None:
    expr = answer.lhs - answer.rhs if isinstance(answer, sp.Equality) else answer
    if not isinstance(expr, sp.Expr) or not expr.free_symbols:
        return "the answer should be a condition on alpha and beta, e.g. sp.Eq(..., ...)."
    try:
        _, factors = sp.factor_list(sp.numer(sp.together(expr)), ALPHA, BETA)
    except sp.PolynomialError:
        return "write the condition as a polynomial equation in alpha and beta."
    target = ALPHA + BETA - 1
    wrong = [f for f, _ in factors if sp.simplify(f / target).free_symbols]
    if not wrong:
        return None
    point = _point_on(wrong[0])
    if point is None:
        return "your condition is not the set of pairs where the defect vanishes."
    a, b = point
    return (f"your condition allows alpha = {a}, beta = {b}, where the defect is "
            f"{1 - a - b} times b, not zero.")


KEY_COLUMNS = (768 + KEY_HEAD * 64, 768 + (KEY_HEAD + 1) * 64)


@exercise("ex-l3-columns", difficulty="warm-up", minutes=5, reference=lambda: KEY_COLUMNS,
          mistakes={"not-one-head": lambda: (KEY_COLUMNS[0], KEY_COLUMNS[1] - 1),
                    "query-block": lambda: (KEY_HEAD * 64, (KEY_HEAD + 1) * 64),
                    "value-block": lambda: (1536 + KEY_HEAD * 64, 1536 + (KEY_HEAD + 1) * 64),
                    "straddles-heads": lambda: (KEY_COLUMNS[0] + 32, KEY_COLUMNS[1] + 32),
                    "head-counted-from-one": lambda: (KEY_COLUMNS[0] - 64, KEY_COLUMNS[0])})
def _(answer: tuple[int, int]) -> str | None:
    start, stop = answer
    if answer == KEY_COLUMNS:
        return None
    if not 768 <= start < 1536 or stop - start != 64 or start % 64:
        return f"columns {start}:{stop} are not one head's keys."
    return f"columns {start}:{stop} hold the keys of head {(start - 768) // 64}."
