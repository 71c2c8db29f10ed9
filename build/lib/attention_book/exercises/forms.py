"""The form of an answer: its type, shape, parts and range, and how it is read.

A form reads an answer into one canonical value (``read``): a float, an int, a float64
array, a tuple, a dict, a list or frozenset, a SymPy expression in plain symbols, or a head
name "layer.head". It accepts every answer of the right form, right or wrong, and raises
``NotInForm`` with a sentence saying how an answer differs. The student's check and the
answer key read every answer this one way; ``ranges=False`` reads it without the range a
quantity takes by definition (a share lies in [0, 1]), so that a mistake such as a count
given for a share can still be named.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np


class NotInForm(ValueError):
    """How an answer differs from the form its exercise asks for."""


class Form(Protocol):
    def read(self, answer: Any, ranges: bool = True) -> Any: ...


@dataclass(frozen=True)
class Number:
    """One real number (a 0-d or one-element array too), optionally within [low, high]."""
    low: float | None = None
    high: float | None = None
    what: str = "a number"

    def read(self, answer: Any, ranges: bool = True) -> float:
        if isinstance(answer, bool | str):
            raise NotInForm(f"expected {self.what}, got {type(answer).__name__}.")
        try:
            value = np.asarray(answer, dtype=np.float64)
        except (TypeError, ValueError):
            raise NotInForm(f"expected {self.what}, got {type(answer).__name__}.") from None
        if value.size != 1:
            raise NotInForm(f"expected {self.what}, got an array of shape {value.shape}.")
        x = float(value.reshape(()))
        if not np.isfinite(x):
            raise NotInForm(f"expected {self.what}, got {x}.")
        if ranges and self.low is not None and x < self.low:
            raise NotInForm(f"{self.what} is at least {self.low:g}; {x:g} is not.")
        if ranges and self.high is not None and x > self.high:
            raise NotInForm(f"{self.what} is at most {self.high:g}; {x:g} is not.")
        return x


@dataclass(frozen=True)
class Whole:
    """A whole number (an int, or a float or SymPy number without a fractional part)."""
    what: str = "a whole number"

    def read(self, answer: Any, ranges: bool = True) -> int:
        try:
            x = None if isinstance(answer, bool | str) else float(answer)
        except (TypeError, ValueError):
            x = None
        if x is None or not np.isfinite(x):
            raise NotInForm(f"expected {self.what}, got {type(answer).__name__}.")
        if x != int(x):
            raise NotInForm(f"expected {self.what}, got {answer}.")
        return int(answer) if isinstance(answer, numbers.Integral) else int(x)


@dataclass(frozen=True)
class Array:
    """A numeric array of this shape (None: any length on that axis), optionally with every
    entry within [low, high]."""
    shape: tuple[int | None, ...]
    what: str = "an array"
    low: float | None = None
    high: float | None = None

    def read(self, answer: Any, ranges: bool = True) -> np.ndarray:
        try:
            a = np.asarray(answer, dtype=np.float64)
        except (TypeError, ValueError):
            raise NotInForm(f"expected {self.what} of numbers, got "
                            f"{type(answer).__name__}.") from None
        want = "[" + ", ".join("any" if n is None else str(n) for n in self.shape) + "]"
        if a.ndim != len(self.shape) or any(
                n is not None and n != m for n, m in zip(self.shape, a.shape, strict=True)):
            raise NotInForm(f"expected {self.what} of shape {want}, got shape {a.shape}.")
        if not np.isfinite(a).all():
            raise NotInForm(f"{self.what} holds values that are not finite.")
        outside = ranges and ((self.low is not None and (a < self.low).any())
                              or (self.high is not None and (a > self.high).any()))
        if outside:
            raise NotInForm(f"every entry of {self.what} lies in [{self.low}, "
                            f"{self.high}]; some of yours do not.")
        return a


@dataclass(frozen=True)
class OneOf:
    """The first of these forms that reads the answer."""
    forms: tuple[Form, ...]
    what: str

    def read(self, answer: Any, ranges: bool = True) -> Any:
        for form in self.forms:
            try:
                return form.read(answer, ranges)
            except NotInForm:
                pass
        raise NotInForm(f"expected {self.what}.")


@dataclass(frozen=True)
class Tuple:
    """A sequence of exactly these parts, in order."""
    parts: tuple[Form, ...]
    names: tuple[str, ...]

    def read(self, answer: Any, ranges: bool = True) -> tuple:
        listed = ", ".join(self.names)
        if isinstance(answer, str | bytes | Mapping) or not isinstance(answer, Sequence):
            raise NotInForm(f"expected a tuple ({listed}), got {type(answer).__name__}.")
        if len(answer) != len(self.parts):
            raise NotInForm(f"expected {len(self.parts)} parts ({listed}), got {len(answer)}.")
        return tuple(_part(name, form, part, ranges)
                     for name, form, part in zip(self.names, self.parts, answer, strict=True))


@dataclass(frozen=True)
class Dict:
    """A mapping with exactly these keys, each value of its form."""
    parts: Mapping[Any, Form]

    def read(self, answer: Any, ranges: bool = True) -> dict:
        if not isinstance(answer, Mapping):
            raise NotInForm(f"expected a dict with the keys {list(self.parts)}, got "
                            f"{type(answer).__name__}.")
        if set(answer) != set(self.parts):
            raise NotInForm(f"expected the keys {list(self.parts)}, got {list(answer)}.")
        return {key: _part(f"[{key!r}]", form, answer[key], ranges)
                for key, form in self.parts.items()}


@dataclass(frozen=True)
class Many:
    """A list, tuple or set of items of one form (``length``: how many, when fixed), read
    as a list, or as a frozenset when the order does not matter."""
    item: Form
    length: int | None = None
    what: str = "a collection"
    unordered: bool = False

    def read(self, answer: Any, ranges: bool = True) -> list | frozenset:
        if not isinstance(answer, list | tuple | set | frozenset):
            raise NotInForm(f"expected {self.what} (a list, tuple or set), got "
                            f"{type(answer).__name__}.")
        if self.length is not None and len(answer) != self.length:
            raise NotInForm(f"expected {self.what} of {self.length} items, got {len(answer)}.")
        items = [_part("an item", self.item, item, ranges) for item in answer]
        return frozenset(items) if self.unordered else items


@dataclass(frozen=True)
class Choice:
    """One of these names."""
    names: tuple[str, ...]

    def read(self, answer: Any, ranges: bool = True) -> str:
        if answer not in self.names:
            raise NotInForm(f"{answer!r} is not one of {self.names}.")
        return answer


@dataclass(frozen=True)
class Expression:
    """A SymPy expression (or an ``sp.Eq``) in these symbols only, matched by name and read
    with plain symbols of those names (whatever assumptions the student gave them)."""
    symbols: tuple[str, ...]

    def read(self, answer: Any, ranges: bool = True) -> Any:
        import sympy as sp

        try:
            expr = sp.sympify(answer, locals={s: sp.Symbol(s) for s in self.symbols})
        except (sp.SympifyError, TypeError, AttributeError):
            raise NotInForm(f"expected a SymPy expression in {', '.join(self.symbols)}.") \
                from None
        free = getattr(expr, "free_symbols", set())
        if extra := {s.name for s in free} - set(self.symbols):
            raise NotInForm(f"the expression should use only {', '.join(self.symbols)}, "
                            f"not {', '.join(sorted(extra))}.")
        return expr.xreplace({s: sp.Symbol(s.name) for s in free})


@dataclass(frozen=True)
class HeadName:
    """A head as "layer.head" or (layer, head), read as "layer.head"."""

    def read(self, answer: Any, ranges: bool = True) -> str:
        parts = answer.split(".") if isinstance(answer, str) else answer
        if (isinstance(parts, list | tuple) and len(parts) == 2
                and all(str(p).isdigit() for p in parts)):
            return f"{int(parts[0])}.{int(parts[1])}"
        raise NotInForm(f"a head is named 'layer.head' or (layer, head), not {answer!r}.")


def _part(name: str, form: Form, answer: Any, ranges: bool) -> Any:
    try:
        return form.read(answer, ranges)
    except NotInForm as e:
        raise NotInForm(f"{name}: {e}") from None

