"""Derivations as the reader should see them: SymPy results typeset as mathematics.

Chapters never print a SymPy object (its repr reads ``P.T*x_i-1.T``); they ``show`` it, and
IPython renders the LaTeX that ``sympy.latex`` writes, on the site through MathJax.
"""

from __future__ import annotations

import sympy as sp
from IPython.display import Math, display


def tex(part: object) -> str:
    """LaTeX of a SymPy object; a string is taken as LaTeX already."""
    return part if isinstance(part, str) else sp.latex(part)


def show(*parts: object, label: str = "") -> None:
    """Display one typeset line made of SymPy objects and LaTeX strings, e.g.
    ``show(lhs, "=", rhs)``; ``label`` is a few words of text before it."""
    body = " ".join(tex(p) for p in parts)
    display(Math(rf"\text{{{label}}}\quad {body}" if label else body))


def show_steps(*steps: tuple[str, object]) -> None:
    """An aligned chain of steps, each (relation or label, expression): the first
    expression stands alone, the others follow their relation ("=", "\\le", ...)."""
    lines = [(rel, tex(expr)) for rel, expr in steps]
    first_rel, first = lines[0]
    rows = [rf"& {first}" if not first_rel else rf"{first_rel} &\; {first}"]
    rows += [rf"{rel} &\; {expr}" for rel, expr in lines[1:]]
    display(Math(r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"))
