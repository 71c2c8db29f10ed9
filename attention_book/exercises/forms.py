"""The form of an answer: what a student's check can say without knowing the answer.

A form checks the type, shape, length and range that the exercise's statement asks for, and
nothing else: it accepts every answer of the right form, right or wrong. Each form is a
callable returning ``None`` when the answer has the form, or a sentence saying how it
differs.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Problem = str | None


@dataclass(frozen=True)
class Number:
    """One real number (a 0-d or one-element array too), optionally within [low, high]."""
    low: float | None = None
    high: float | None = None
    what: str = "a number"

    def __call__(self, answer: Any) -> Problem:
        if isinstance(answer, bool):
            return f"expected {self.what}, got a bool."
        try:
            value = np.asarray(answer, dtype=np.float64)
        except (TypeError, ValueError):
            return f"expected {self.what}, got {type(answer).__name__}."
        if value.size != 1:
            return f"expected {self.what}, got an array of shape {value.shape}."
        x = float(value.reshape(()))
        if not np.isfinite(x):
            return f"expected {self.what}, got {x}."
        if self.low is not None and x < self.low:
            return f"{self.what} is at least {self.low:g}; {x:g} is not."
        if self.high is not None and x > self.high:
            return f"{self.what} is at most {self.high:g}; {x:g} is not."
        return None


@dataclass(frozen=True)
class Whole:
    """A whole number (an int, or a float or SymPy number without a fractional part)."""
    what: str = "a whole number"

    def __call__(self, answer: Any) -> Problem:
        if isinstance(answer, bool) or not isinstance(answer, numbers.Real | np.integer):
            try:
                answer = float(answer)
            except (TypeError, ValueError):
                return f"expected {self.what}, got {type(answer).__name__}."
        if float(answer) != int(answer):
            return f"expected {self.what}, got {answer}."
        return None


@dataclass(frozen=True)
class Array:
    """A numeric array of this shape (None: any length on that axis)."""
    shape: tuple[int | None, ...]
    what: str = "an array"

    def __call__(self, answer: Any) -> Problem:
        try:
            a = np.asarray(answer, dtype=np.float64)
        except (TypeError, ValueError):
            return f"expected {self.what} of numbers, got {type(answer).__name__}."
        want = "[" + ", ".join("any" if n is None else str(n) for n in self.shape) + "]"
        if a.ndim != len(self.shape) or any(
                n is not None and n != m for n, m in zip(self.shape, a.shape, strict=True)):
            return f"expected {self.what} of shape {want}, got shape {a.shape}."
        if not np.isfinite(a).all():
            return f"{self.what} holds values that are not finite."
        return None


@dataclass(frozen=True)
class Tuple:
    """A sequence of exactly these parts, in order."""
    parts: tuple[Callable[[Any], Problem], ...]
    names: tuple[str, ...]

    def __call__(self, answer: Any) -> Problem:
        if isinstance(answer, str | bytes | Mapping) or not isinstance(answer, Sequence):
            return (f"expected a tuple ({', '.join(self.names)}), "
                    f"got {type(answer).__name__}.")
        if len(answer) != len(self.parts):
            return (f"expected {len(self.parts)} parts ({', '.join(self.names)}), "
                    f"got {len(answer)}.")
        for name, form, part in zip(self.names, self.parts, answer, strict=True):
            if (problem := form(part)) is not None:
                return f"{name}: {problem}"
        return None


@dataclass(frozen=True)
class Dict:
    """A mapping with exactly these keys, each value of its form."""
    parts: Mapping[Any, Callable[[Any], Problem]]

    def __call__(self, answer: Any) -> Problem:
        if not isinstance(answer, Mapping):
            return f"expected a dict with the keys {list(self.parts)}, got {type(answer).__name__}."
        if set(answer) != set(self.parts):
            return f"expected the keys {list(self.parts)}, got {list(answer)}."
        for key, form in self.parts.items():
            if (problem := form(answer[key])) is not None:
                return f"[{key!r}]: {problem}"
        return None


@dataclass(frozen=True)
class Many:
    """A list, tuple or set of items of one form (``length``: how many, when fixed)."""
    item: Callable[[Any], Problem]
    length: int | None = None
    what: str = "a collection"

    def __call__(self, answer: Any) -> Problem:
        if not isinstance(answer, list | tuple | set | frozenset):
            return f"expected {self.what} (a list, tuple or set), got {type(answer).__name__}."
        if self.length is not None and len(answer) != self.length:
            return f"expected {self.what} of {self.length} items, got {len(answer)}."
        for item in answer:
            if (problem := self.item(item)) is not None:
                return f"an item: {problem}"
        return None


@dataclass(frozen=True)
class Expression:
    """A SymPy expression (or an ``sp.Eq``) in these symbols only, matched by name."""
    symbols: tuple[str, ...]

    def __call__(self, answer: Any) -> Problem:
        import sympy as sp

        try:
            expr = sp.sympify(answer)
        except (sp.SympifyError, TypeError):
            return f"expected a SymPy expression in {', '.join(self.symbols)}."
        names = {s.name for s in getattr(expr, "free_symbols", set())}
        if extra := names - set(self.symbols):
            return (f"the expression should use only {', '.join(self.symbols)}, "
                    f"not {', '.join(sorted(extra))}.")
        return None


@dataclass(frozen=True)
class HeadName:
    """A head as "layer.head" or (layer, head)."""

    def __call__(self, answer: Any) -> Problem:
        if isinstance(answer, str):
            parts = answer.split(".")
            ok = len(parts) == 2 and all(p.isdigit() for p in parts)
        else:
            ok = isinstance(answer, tuple) and len(answer) == 2
        return None if ok else f"a head is named 'layer.head' or (layer, head), not {answer!r}."
