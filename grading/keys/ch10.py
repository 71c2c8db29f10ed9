"""Exercises of chapter 10, Reading attention maps."""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from grading.registry import exercise
from grading.tolerance import relative_gap

N = sp.Symbol("n")  # the answers' symbol, as the form reads it


@exercise("ex-i1-two-back", difficulty="standard", minutes=15, reference=lambda: 2,
          mistakes={"original-circuit": lambda: 1, "looks-back": lambda: -2})
def _(offset: int) -> str | None:
    if offset != 2:
        return f"the guesses do not match the token {offset} positions ahead."
    return None


def _uniform_score(n: int) -> Fraction:
    """Induction score of a uniform head on BOS + 2 x n tokens, exactly."""
    return sum(Fraction(1, i + 1) for i in range(n + 1, 2 * n + 1)) / n


@exercise("ex-i2-uniform-score", difficulty="standard", minutes=20,
          reference=lambda: (sp.harmonic(2 * N + 1) - sp.harmonic(N + 1)) / N,
          mistakes={"the-limit": lambda: sp.log(2) / N,
                    "rows-off-by-one": lambda: (sp.harmonic(2 * N) - sp.harmonic(N)) / N})
def _(expr: sp.Expr) -> str | None:
    for value in range(1, 13):
        got = sp.nsimplify(sp.simplify(expr.subs(N, value)).doit())
        if relative_gap(float(got), float(_uniform_score(value))) > 1e-12:  # exact, float64
            if value == 1:
                return f"at n = 1 the score is not {float(got):.6f}."
            return (f"right at small n, perhaps, but at n = {value} the "
                    f"expression gives {float(got):.6f}: it is an "
                    "approximation, not the exact score.")
    return None


@exercise("ex-m1-norm-share", difficulty="warm-up", minutes=10, float32=True,
          reference=lambda: 9 / 29,
          mistakes={"the-weight": lambda: 0.9, "norms-only": lambda: 0.1 / (0.1 + 2.0)})
def _(share: float) -> str | None:
    # an exact ratio of the exercise's numbers: 1e-3 of it covers any rounding
    if relative_gap(share, 9 / 29) > 1e-3:
        return f"{share:.4f} is not BOS's share of the moved norm."
    return None


@exercise("ex-i2-lists", difficulty="warm-up", minutes=5, reference=lambda: {"5.5", "6.9"},
          mistakes={"previous-token-head": lambda: {"5.5", "6.9", "4.11"}})
def _(got: frozenset[str]) -> str | None:
    want = {"5.5", "6.9"}
    if got - want:
        return f"{', '.join(sorted(got - want))} appear(s) in only one of the two lists."
    if want - got:
        return "a head that both lists name is missing."
    return None
