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
    ``show(lhs, "=", rhs)``; ``label`` is a few words of text before it, with any
    mathematics in it between dollars: ``label="tied $W_K = W_V$:"``."""
    body = " ".join(tex(p) for p in parts)
    display(Math(rf"{label_tex(label)}\quad {body}" if label else body))


def label_tex(label: str) -> str:
    """A label's LaTeX: its words as text, what stands between dollars as mathematics (TeX
    inside ``\text{}`` would be shown as it is typed, backslashes and all)."""
    pieces = label.split("$")
    if len(pieces) % 2 == 0:
        raise ValueError(f"a label's mathematics is opened with $ and never closed: {label!r}")
    return "".join((piece if i % 2 else rf"\text{{{piece}}}") for i, piece in enumerate(pieces)
                   if piece)


def show_steps(*steps: tuple[str, object]) -> None:
    """An aligned chain of steps, each (relation or label, expression): the first
    expression stands alone, the others follow their relation ("=", "\\le", ...)."""
    lines = [(rel, tex(expr)) for rel, expr in steps]
    first_rel, first = lines[0]
    rows = [rf"& {first}" if not first_rel else rf"{first_rel} &\; {first}"]
    rows += [rf"{rel} &\; {expr}" for rel, expr in lines[1:]]
    display(Math(r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"))
