"""Checkable exercises: ``exercises.check("ex-l1-layer5", answer)``.

Each chapter's exercises live in one module of this package (``ch01``, ``ch03``, ...), one
checker per exercise, registered with ``@exercise(label, difficulty, minutes)``. A checker
receives the student's answer and returns ``None`` when it is right, or a sentence saying
what is wrong (never the answer itself). ``check`` adds the exercise's hint to a wrong
answer and shows the verdict; the tests run every reference solution (``reference``) and one
plausible wrong answer (``wrong``) per exercise through it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DIFFICULTIES = ("warm-up", "standard", "challenging")


@dataclass(frozen=True)
class Exercise:
    label: str
    difficulty: str
    minutes: int
    hint: str
    checker: Callable[[Any], str | None]
    reference: Callable[[], Any]  # the reference solution's answer (for the tests)
    wrong: Callable[[], Any]      # one plausible wrong answer (for the tests)


@dataclass(frozen=True)
class Result:
    label: str
    correct: bool
    feedback: str

    def __bool__(self) -> bool:
        return self.correct

    def _repr_markdown_(self) -> str:
        if self.correct:
            return f"**{self.label}: correct.** {self.feedback}".rstrip()
        return f"**{self.label}: not yet.** {self.feedback}"

    def __repr__(self) -> str:
        return self._repr_markdown_().replace("**", "")


_REGISTRY: dict[str, Exercise] = {}


def exercise(label: str, *, difficulty: str, minutes: int, hint: str,
             reference: Callable[[], Any], wrong: Callable[[], Any]):
    """Register the decorated checker for the exercise with this label."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")

    def register(checker: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
        if label in _REGISTRY:
            raise ValueError(f"exercise {label} is registered twice")
        _REGISTRY[label] = Exercise(label, difficulty, minutes, hint, checker, reference, wrong)
        return checker

    return register


def registry() -> dict[str, Exercise]:
    """Every exercise of the book, by label (imports every chapter module once)."""
    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")
    return dict(_REGISTRY)


def check(label: str, answer: Any) -> Result:
    """Say whether ``answer`` solves exercise ``label``; a wrong one gets what is wrong and a
    hint, never the answer."""
    ex = registry().get(label)
    if ex is None:
        raise KeyError(f"no exercise '{label}'; the labels are {sorted(registry())}")
    try:
        problem = ex.checker(answer)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError) as e:
        problem = f"the answer could not be read ({type(e).__name__}: {e})"
    if problem is None:
        return Result(label, True, "")
    return Result(label, False, f"{problem} Hint: {ex.hint}")
