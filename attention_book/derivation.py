"""Derivations recorded from what SymPy does, shown as one chain of named steps.

A chapter derives a claim inside ``with ch.derive("L1") as d:``. ``d.start(expr, "q_{ic}")``
opens a chain on an expression (the optional name is what the typeset chain calls it).
Every SymPy method called on the chain (``.diff(x)``, ``.doit()``, ``.subs(j, 0)``, ...),
and every SymPy function reached the same way (``.factor_terms()``), runs on the chain's
expression, is recorded as a step and returns the chain one step further: the line a
reader retypes in plain SymPy is the same line without ``d.start(...)``. A function of the
book's own is applied with ``.by(function, *args, why=..., equal=...)``; any step takes
``why="..."``, the words the typeset chain shows beside the operation.

``d.conclude(chain, claim)`` asks SymPy whether the chain's expression is the claim
(``relation="=="``: their difference reduces to zero) or is non-negative (``">= 0"``:
SymPy's assumptions decide the sign). A step SymPy cannot perform is a named, cited
theorem: ``d.rests_on(theorem, cite=key, statement=latex)``. When the ``with`` block ends
the derivation is displayed once, as one aligned chain: every step that changed the
expression on its own line, named by the SymPy operation (or the theorem) that justifies
it. A step that changed nothing is recorded but not shown, so no line reads "X = X".

The ledger's derivations table is generated from these records:

- *genuine*: SymPy performed at least one step that changed the expression and SymPy
  confirmed the conclusion, in general form: a size (a matrix's shape, a sum's limit, an
  index range) is a symbol. Index symbols are not sizes;
- *partial*: as genuine, but a named, cited theorem carries a step SymPy cannot perform;
- *decorative*: anything else (no step changed anything, no conclusion, or only fixed
  sizes). A test asserts the book has none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import sympy as sp

from .checks import ClaimCheckFailed
from .typeset import label_tex, tex

GENUINE, PARTIAL, DECORATIVE = "genuine", "partial", "decorative"
# The sign relations a conclusion can state: how the chain writes it, what SymPy decides.
SIGNS = {">= 0": (r"\ge", "is_nonnegative"), "> 0": (">", "is_positive")}

# Operations whose result equals their input (they rewrite, they do not transform).
EQUALITIES = frozenset({
    "doit", "expand", "simplify", "factor", "factor_terms", "cancel", "together", "apart",
    "collect", "reorder", "change_index", "rewrite", "trigsimp", "powsimp", "radsimp",
    "ratsimp", "combsimp", "gammasimp", "expand_log", "expand_trig", "logcombine",
    "powdenest", "expand_power_base", "nsimplify_exact"})
# What the chain shows for an operation when the author gives no words of their own.
PHRASES = {
    "doit": "evaluate", "expand": "expand", "simplify": "simplify", "factor": "factor",
    "factor_terms": "take out common factors", "cancel": "cancel", "together": "one fraction",
    "apart": "partial fractions", "collect": "collect", "reorder": "swap the sums",
    "change_index": "shift the index", "rewrite": "rewrite", "diff": "differentiate",
    "subs": "substitute", "xreplace": "substitute", "integrate": "integrate",
    "limit": "take the limit", "solve": "solve", "summation": "sum", "det": "determinant",
}


@dataclass(frozen=True)
class Step:
    name: str       # what the step does, in words
    operation: str  # the SymPy function or method that performed it
    changed: bool   # the result differs from the input (structurally)


@dataclass(frozen=True)
class Row:
    """One line of the typeset chain: ``lhs rel rhs`` and, beside it, why."""

    lhs: str
    rel: str
    rhs: str
    note: str
    shown: bool = True  # False: the next line takes over its left-hand side and its note


def _is_size_symbol(s: object) -> bool:
    return isinstance(s, sp.Symbol) and not isinstance(s, sp.Dummy)


def _sizes(*exprs: object) -> set[str]:
    """The symbols that size something: shapes of matrix expressions, the limits of sums
    and products, the range of a Kronecker delta or an indexed base's shape. An index that
    runs over such a range is not a size."""
    found: set[sp.Symbol] = set()
    for e in exprs:
        if isinstance(e, sp.MatrixBase):  # a mutable Matrix is not a sp.Basic
            e = sp.ImmutableMatrix(e)
        if not isinstance(e, sp.Basic):
            continue
        for node in sp.preorder_traversal(e):
            found |= _node_sizes(node)
    return {str(s) for s in found if _is_size_symbol(s)}


def _node_sizes(node: sp.Basic) -> set:
    if isinstance(node, sp.MatrixExpr):
        return set().union(*(sp.sympify(k).free_symbols for k in node.shape))
    if isinstance(node, sp.concrete.expr_with_limits.ExprWithLimits):
        bound = {lim[0] for lim in node.limits}
        return {s for lim in node.limits for b in lim[1:] for s in sp.sympify(b).free_symbols
                } - bound
    if isinstance(node, sp.KroneckerDelta) and node.delta_range is not None:
        return set().union(*(sp.sympify(b).free_symbols for b in node.delta_range))
    if isinstance(node, sp.IndexedBase) and node.shape is not None:
        return set().union(*(sp.sympify(k).free_symbols for k in node.shape))
    return set()


def _operation_name(op: Callable) -> str:
    name = getattr(op, "__name__", type(op).__name__)
    return name if name != "<lambda>" else "a function of the book's"


def _changed(before: object, after: object) -> bool:
    if isinstance(after, sp.Basic | sp.MatrixBase) and isinstance(before, sp.Basic |
                                                                  sp.MatrixBase):
        return sp.srepr(after) != sp.srepr(before)
    return True


def _named(name: object, operation: str, args: tuple) -> object | None:
    """What the chain calls the result of a step that transforms (does not rewrite) its
    expression: d/dx of the name, the name at j = 0, ... (None: no standard notation)."""
    name = sp.sympify(name) if not isinstance(name, sp.Basic) else name
    try:
        if operation == "diff":
            return sp.Derivative(name, *args)
        if operation in ("subs", "xreplace"):
            pairs = (list(args[0].items()) if len(args) == 1 and isinstance(args[0], dict)
                     else [tuple(args)] if len(args) == 2 else list(args[0]))
            return sp.Subs(name, *zip(*pairs, strict=True))
        if operation == "integrate":
            return sp.Integral(name, *args)
        if operation == "limit":
            return sp.Limit(name, *args)
    except (TypeError, ValueError, AttributeError, sp.SympifyError):
        return None  # e.g. Subs of a matrix expression, which SymPy cannot build
    return None


class Chain:
    """An expression inside a derivation; SymPy operations called on it are recorded."""

    def __init__(self, derivation: Derivation, expr: object, name: object, row: int | None):
        self.derivation, self.expr, self.name, self.row = derivation, expr, name, row

    def __getattr__(self, attr: str) -> Callable[..., Chain]:
        if attr.startswith("_"):
            raise AttributeError(attr)
        method = getattr(self.expr, attr, None)
        if callable(method):
            return lambda *args, why="", show=True, **kw: self._take(
                attr, method, args, kw, why, attr in EQUALITIES, show)
        function = getattr(sp, attr, None)
        if callable(function):
            return lambda *args, why="", show=True, **kw: self._take(
                attr, lambda *a, **k: function(self.expr, *a, **k), args, kw, why,
                attr in EQUALITIES, show)
        raise AttributeError(f"neither the expression nor sympy has '{attr}'")

    def by(self, function: Callable, *args, why: str, equal: bool, show: bool = True,
           **kwargs) -> Chain:
        """Apply a function of the book's own (``equal``: its result equals its input)."""
        return self._take(_operation_name(function),
                          lambda *a, **k: function(self.expr, *a, **k), args, kwargs, why,
                          equal, show)

    def _take(self, operation: str, call: Callable, args: tuple, kwargs: dict, why: str,
              equal: bool, show: bool) -> Chain:
        out = call(*args, **kwargs)
        return self.derivation._record(self, operation, args, out, why, equal, show)

    def __repr__(self) -> str:
        return f"Chain({self.expr!r})"

    def _repr_latex_(self) -> str:
        return f"$\\displaystyle {tex(self.expr)}$"


def _note(why: str, operation: str, args: tuple) -> str:
    words = why or PHRASES.get(operation, operation)
    if not why and operation in ("diff", "integrate") and args:
        words += " by " + ", ".join(f"${tex(a)}$" for a in args)
    op = operation.replace("_", r"\_")
    return rf"{label_tex(words)}\;\cdot\;\mathtt{{{op}}}"


@dataclass
class Derivation:
    """The record of one claim's derivation (see the module docstring)."""

    claim: str
    chapter: str = ""
    steps: list[Step] = field(default_factory=list)
    sizes: set[str] = field(default_factory=set)
    conclusions: list[str] = field(default_factory=list)  # LaTeX of what SymPy confirmed
    theorem: str = ""
    cite: str = ""
    on_done: Callable[[Derivation], None] | None = field(default=None, repr=False)
    display: Callable[[str], None] | None = field(default=None, repr=False)
    rows: list[Row] = field(default_factory=list, repr=False)
    _shown: int = field(default=0, repr=False)

    def start(self, expr: object, name: str | object | None = None) -> Chain:
        """A chain on ``expr``; ``name`` (LaTeX or a SymPy expression) is what the chain
        calls it, shown once as ``name = expr``."""
        self.sizes |= _sizes(expr)
        if name is None:
            return Chain(self, expr, expr, None)
        named = sp.Symbol(name) if isinstance(name, str) else name
        self.rows.append(Row(tex(named), "=", tex(expr), label_tex("define")))
        return Chain(self, expr, named, len(self.rows) - 1)

    def _record(self, chain: Chain, operation: str, args: tuple, out: object, why: str,
                equal: bool, show: bool = True) -> Chain:
        changed = _changed(chain.expr, out)
        self.steps.append(Step(why or PHRASES.get(operation, operation), operation, changed))
        self.sizes |= _sizes(chain.expr, out)
        if not changed:
            return Chain(self, out, chain.name, chain.row)
        note = _note(why, operation, args)
        if equal:
            continues = chain.row is not None and chain.row == len(self.rows) - 1
            lhs = "" if continues else tex(chain.name)
            self.rows.append(Row(lhs, "=", tex(out), note, show))
            return Chain(self, out, chain.name, len(self.rows) - 1)
        named = _named(chain.name, operation, args)
        if named is None:
            self.rows.append(Row("", r"\longrightarrow", tex(out), note, show))
            return Chain(self, out, out, len(self.rows) - 1)
        self.rows.append(Row(tex(named), "=", tex(out), note, show))
        return Chain(self, out, named, len(self.rows) - 1)

    def conclude(self, derived: object, claim: object = 0, *, relation: str = "==") -> None:
        """SymPy decides that ``derived`` (a chain or an expression) equals ``claim``
        (relation "==") or that ``derived - claim`` is non-negative (">= 0") or positive
        ("> 0")."""
        chain = derived if isinstance(derived, Chain) else None
        expr = chain.expr if chain else derived
        gap = sp.sympify(expr) - sp.sympify(claim)
        if relation == "==":
            gap = _reduce(gap)
            ok = _is_zero(gap)
        elif relation in SIGNS:
            ok = bool(getattr(gap, SIGNS[relation][1], None))
        else:
            raise ValueError(f"relation must be '==', '>= 0' or '> 0', got {relation!r}")
        if not ok:
            raise ClaimCheckFailed(f"{self.claim} failed: SymPy does not confirm "
                                   f"{expr} {relation} {claim} (gap: {gap})")
        self.sizes |= _sizes(expr, claim)
        rel = SIGNS[relation][0] if relation in SIGNS else "="
        self.conclusions.append(f"{tex(expr)} {rel} {tex(claim)}")
        self._conclusion_row(chain, expr, claim, relation)

    def _conclusion_row(self, chain: Chain | None, expr: object, claim: object,
                        relation: str) -> None:
        last = len(self.rows) - 1
        continues = chain is not None and chain.row is not None and chain.row == last
        lhs = "" if continues else tex(chain.name if chain else expr)
        qed = r"\qquad\blacksquare"
        if relation in SIGNS:
            self.rows.append(Row(lhs, SIGNS[relation][0], tex(claim) + qed,
                                 label_tex("SymPy decides the sign")))
        elif not _changed(sp.sympify(expr), sp.sympify(claim)) and continues:
            r = self.rows[last]  # the chain already ends on the claim itself
            self.rows[last] = Row(r.lhs, r.rel, r.rhs + qed, r.note, r.shown)
        elif not _changed(sp.sympify(expr), sp.sympify(claim)):
            self.rows.append(Row("", "", lhs + qed, label_tex("as derived above")))
        else:
            self.rows.append(Row(lhs, "=", tex(claim) + qed,
                                 label_tex("SymPy: the difference reduces to 0")))

    def rests_on(self, theorem: str, *, cite: str | tuple[str, ...], statement: str = ""
                 ) -> None:
        """A step SymPy cannot perform is carried by this named theorem, cited by one bibtex
        key or several; ``statement`` (LaTeX) is the step as the chain shows it."""
        keys = (cite,) if isinstance(cite, str) else tuple(cite)
        if not theorem or not keys or not all(k.strip() for k in keys):
            raise ValueError("a partial derivation names its theorem and a citation")
        self.theorem, self.cite = theorem, ",".join(k.strip() for k in keys)
        if statement:
            self.rows.append(Row("", "", statement, label_tex(f"by {theorem}")))

    @property
    def status(self) -> str:
        performed = any(s.changed for s in self.steps)
        if not (performed and self.conclusions and self.sizes):
            return DECORATIVE
        return PARTIAL if self.theorem else GENUINE

    def as_record(self) -> dict:
        data = asdict(self)
        for private in ("on_done", "display", "rows", "_shown"):
            data.pop(private)
        data["sizes"] = sorted(self.sizes)
        data["status"] = self.status
        return data

    def latex(self, rows: list[Row] | None = None) -> str:
        """The chain as one aligned display: ``lhs rel rhs`` and, right of it, why. A line
        not shown hands its left-hand side and its note on to the next."""
        lines, carry = [], None
        for r in rows or self.rows:
            if carry is not None:
                r = Row(r.lhs or carry.lhs, r.rel if r.lhs else carry.rel or r.rel, r.rhs,
                        carry.note + r",\ " + r.note, r.shown)
                carry = None
            if not r.shown:
                carry = r
                continue
            lines += _lines(r)
        if carry is not None:
            lines += _lines(carry)
        return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"

    def __enter__(self) -> Derivation:
        return self

    def __exit__(self, kind, *rest) -> None:
        if kind is not None:
            return
        new = self.rows[self._shown:]
        self._shown = len(self.rows)
        if new:
            (self.display or _display_math)(self.latex(new))
        if self.on_done is not None:
            self.on_done(self)


def _lines(row: Row) -> list[str]:
    """A step's note, small and grey, on its own line above the step it justifies."""
    note = rf"&\quad {{\small\color{{#5a5a5a}}{{\unicode{{x25B8}}\;{row.note}}}}}"
    return [note, rf"{row.lhs} &{row.rel} {row.rhs}"]


def _display_math(latex: str) -> None:
    from IPython.display import Math, display

    display(Math(latex))


def _is_zero(gap: Any) -> bool:
    return bool(gap == 0 or getattr(gap, "is_ZeroMatrix", False) or
                (isinstance(gap, sp.MatrixBase) and gap.is_zero_matrix))


def _reduce(gap: sp.Basic) -> sp.Basic:
    """``gap`` expanded; when that leaves it non-zero, with its common factors pulled out
    (which cancels quotients of sums); then simplified. Each is tried only when the cheaper
    one before it leaves a non-zero: ``simplify`` costs tens of times more."""
    expanded = sp.expand(gap)
    if _is_zero(expanded):
        return expanded
    factored = sp.factor_terms(expanded)
    return factored if _is_zero(factored) else sp.simplify(gap)
