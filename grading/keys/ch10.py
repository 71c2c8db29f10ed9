"""Exercises of chapter 10, Reading attention maps."""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from grading.registry import exercise
from grading.tolerance import relative_gap


@exercise("ex-i1-two-back", difficulty="standard", minutes=15,
          hint="the note in row t now names the token two before t; follow "
               "where the induction head's weight lands and what that row "
               "holds.",
          reference=lambda: 2, wrong=lambda: 1)
def _(answer) -> str | None:
    if int(answer) != answer:
        return "give a whole number of positions."
    if answer == 1:
        return ("an offset of 1 is what the original circuit predicts; the "
                "note is no longer about the previous token.")
    if answer != 2:
        return f"the guesses do not match the token {answer} positions ahead."
    return None


def _uniform_score(n: int) -> Fraction:
    """Induction score of a uniform head on BOS + 2 x n tokens, exactly."""
    return sum(Fraction(1, i + 1) for i in range(n + 1, 2 * n + 1)) / n


@exercise("ex-i2-uniform-score", difficulty="standard", minutes=20,
          hint="What weight does row i of a uniform head put on each position it can "
               "see? The score averages one position's weight over the rows of the "
               "second copy.",
          reference=lambda: (sp.harmonic(2 * sp.Symbol("n") + 1)
                             - sp.harmonic(sp.Symbol("n") + 1))
          / sp.Symbol("n"),
          wrong=lambda: sp.log(2) / sp.Symbol("n"))
def _(answer) -> str | None:
    expr = sp.sympify(answer)
    free = sorted(expr.free_symbols, key=str)
    if len(free) != 1:
        return "give an expression in the one symbol n."
    n = free[0]
    for value in range(1, 13):
        got = sp.nsimplify(sp.simplify(expr.subs(n, value)).doit())
        want = _uniform_score(value)
        if relative_gap(float(got), float(want)) > 1e-12:  # exact values, float64
            if value == 1:
                return f"at n = 1 the score is not {float(got):.6f}."
            return (f"right at small n, perhaps, but at n = {value} the "
                    f"expression gives {float(got):.6f}: it is an "
                    "approximation, not the exact score.")
    return None


@exercise("ex-m1-norm-share", difficulty="warm-up", minutes=10,
          hint="The map shows weights; the share asks how much of what the row moves "
               "comes from BOS. What does each source move?",
          reference=lambda: 9 / 29, wrong=lambda: 0.9, float32=True)
def _(answer) -> str | None:
    share = float(answer)
    # an exact ratio of the exercise's numbers: 1e-3 of it covers any rounding
    if relative_gap(share, 0.9) < 1e-3:
        return "that is the weight alpha, what the map shows, not the share."
    if not 0 <= share <= 1:
        return "a share lies between 0 and 1."
    if relative_gap(share, 9 / 29) > 1e-3:
        return f"{share:.4f} is not BOS's share of the moved norm."
    return None


def _names(answer) -> set[str]:
    out = set()
    for h in answer:
        out.add(h if isinstance(h, str) else f"{h[0]}.{h[1]}")
    return out


@exercise("ex-i2-lists", difficulty="warm-up", minutes=5,
          hint="compare the induction columns of the table in section I2; "
               "4.11 is listed as a previous-token head.",
          reference=lambda: {"5.5", "6.9"},
          wrong=lambda: {"5.5", "6.9", "4.11"})
def _(answer) -> str | None:
    got = _names(answer)
    want = {"5.5", "6.9"}
    if "4.11" in got:
        return "4.11 is a previous-token head in the lists, not an induction head."
    if got - want:
        return (f"{', '.join(sorted(got - want))} appear(s) in only one of the "
                "two lists.")
    if want - got:
        return "a head that both lists name is missing."
    return None
