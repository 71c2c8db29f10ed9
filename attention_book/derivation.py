"""Derivations recorded from what SymPy does, not from a label typed beside them.

A chapter derives a claim inside ``with chapter.derive("Q3") as d:``. Each ``d.step(name,
operation, expr)`` runs the SymPy operation and records it; ``d.conclude(derived, claim)``
asks SymPy whether the derived expression is the claim (``relation="=="``: their
difference simplifies to zero) or is non-negative (``">= 0"``: SymPy's assumptions system
decides the sign), and typesets the result. The ledger's derivations table is generated
from these records:

- *genuine*: SymPy performed at least one step that changed the expression and SymPy
  confirmed the conclusion, in general form (a size such as n, d or d_k is a symbol);
- *partial*: as genuine, but a named, cited theorem carries a step SymPy cannot perform
  (``d.rests_on(theorem, cite=bibtex_key)``, or ``cite=(key, ...)``);
- *decorative*: anything else (no step changed anything, no conclusion, or only fixed
  sizes). The book has none; a test asserts it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import sympy as sp

from .checks import ClaimCheckFailed
from .typeset import show, tex

GENUINE, PARTIAL, DECORATIVE = "genuine", "partial", "decorative"


@dataclass(frozen=True)
class Step:
    name: str       # what the step does, in words
    operation: str  # the SymPy function or method that performed it
    changed: bool   # the result differs from the input (structurally)


def _sizes(*exprs: object) -> set[str]:
    """The symbolic sizes in expressions: integer symbols among the free symbols, the
    limits of sums and the shapes of matrix symbols."""
    found: set[str] = set()
    for e in exprs:
        if isinstance(e, sp.MatrixBase):  # a mutable Matrix is not a sp.Basic
            e = sp.ImmutableMatrix(e)
        if not isinstance(e, sp.Basic):
            continue
        symbols = set(e.free_symbols)
        for m in e.atoms(sp.MatrixSymbol):
            symbols |= set().union(*(sp.sympify(k).free_symbols for k in m.shape))
        found |= {str(s) for s in symbols if isinstance(s, sp.Symbol) and s.is_integer}
    return found


def _operation_name(op: Callable) -> str:
    name = getattr(op, "__name__", type(op).__name__)
    module = getattr(op, "__module__", "") or ""
    return name if name != "<lambda>" else f"lambda in {module or 'the chapter'}"


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

    def step(self, name: str, operation: Callable, expr: object, *args, **kwargs) -> object:
        """Run ``operation(expr, *args, **kwargs)``: a SymPy function or method. A method
        named through a base class (``sp.Basic.doit``) runs as the expression's own
        (``Sum.doit``), as ``expr.doit()`` would."""
        name, qualname = getattr(operation, "__name__", ""), getattr(operation,
                                                                      "__qualname__", "")
        if "." in qualname and isinstance(expr, sp.Basic) and hasattr(expr, name):
            out = getattr(expr, name)(*args, **kwargs)
        else:
            out = operation(expr, *args, **kwargs)
        changed = sp.srepr(out) != sp.srepr(expr) if isinstance(out, sp.Basic) else True
        self.steps.append(Step(name, _operation_name(operation), changed))
        self.sizes |= _sizes(expr, out)
        return out

    def conclude(self, derived: object, claim: object = 0, *, relation: str = "==",
                 label: str = "") -> None:
        """SymPy decides that ``derived`` equals ``claim`` (relation "==") or that
        ``derived - claim`` is non-negative (relation ">= 0"); typeset what it confirmed."""
        gap = sp.sympify(derived) - sp.sympify(claim)
        if relation == "==":
            gap = _reduce(gap)
        if relation == "==":
            ok = gap == 0 or getattr(gap, "is_ZeroMatrix", False) or \
                (isinstance(gap, sp.MatrixBase) and gap.is_zero_matrix)
        elif relation == ">= 0":
            ok = bool(getattr(gap, "is_nonnegative", None))
        else:
            raise ValueError(f"relation must be '==' or '>= 0', got {relation!r}")
        if not ok:
            raise ClaimCheckFailed(f"{self.claim} failed: SymPy does not confirm "
                                   f"{derived} {relation} {claim} (gap: {gap})")
        self.sizes |= _sizes(derived, claim)
        rel = "=" if relation == "==" else r"\ge"
        text = f"{tex(derived)} {rel} {tex(claim)}"
        self.conclusions.append(text)
        show(text, label=label)

    def rests_on(self, theorem: str, *, cite: str | tuple[str, ...]) -> None:
        """A step SymPy cannot perform is carried by this named theorem, cited by one bibtex
        key or several (kept as "key1,key2", as a {cite} role lists them)."""
        keys = (cite,) if isinstance(cite, str) else tuple(cite)
        if not theorem or not keys or not all(k.strip() for k in keys):
            raise ValueError("a partial derivation names its theorem and a citation")
        self.theorem, self.cite = theorem, ",".join(k.strip() for k in keys)

    @property
    def status(self) -> str:
        performed = any(s.changed for s in self.steps)
        if not (performed and self.conclusions and self.sizes):
            return DECORATIVE
        return PARTIAL if self.theorem else GENUINE

    def as_record(self) -> dict:
        data = asdict(self)
        data.pop("on_done")
        data["sizes"] = sorted(self.sizes)
        data["status"] = self.status
        return data

    def __enter__(self) -> Derivation:
        return self

    def __exit__(self, kind, *rest) -> None:
        if kind is None and self.on_done is not None:
            self.on_done(self)


def _reduce(gap: sp.Basic) -> sp.Basic:
    """``gap`` expanded, or simplified when expanding leaves it non-zero (expanding is
    enough for most of the book's identities and costs a fraction of ``simplify``)."""
    expanded = sp.expand(gap)
    if expanded == 0 or getattr(expanded, "is_ZeroMatrix", False) or \
            (isinstance(expanded, sp.MatrixBase) and expanded.is_zero_matrix):
        return expanded
    return sp.simplify(gap)
