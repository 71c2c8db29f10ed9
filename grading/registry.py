"""The answer key's registry: one checker per exercise, with its metadata.

A checker receives a student's answer (never ``None``: ``grading.verdict`` answers that one
itself) and returns ``None`` when the answer is right, or a sentence that says what is wrong
without giving the answer. ``reference`` computes a right answer and ``wrong`` one plausible
wrong answer, for the tests; ``float32`` says that float32 is what a student naturally
computes here, so that the tests also grade the reference rounded to float32.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grading import keys

DIFFICULTIES = ("warm-up", "standard", "challenging")


@dataclass(frozen=True)
class Exercise:
    label: str
    difficulty: str
    minutes: int
    hint: str
    checker: Callable[[Any], str | None]
    reference: Callable[[], Any]
    wrong: Callable[[], Any]
    float32: bool


_REGISTRY: dict[str, Exercise] = {}


def exercise(label: str, *, difficulty: str, minutes: int, hint: str,
             reference: Callable[[], Any], wrong: Callable[[], Any], float32: bool = False):
    """Register the decorated checker as the key of the exercise with this label."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")

    def register(checker: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
        if label in _REGISTRY:
            raise ValueError(f"exercise {label} is registered twice")
        _REGISTRY[label] = Exercise(label, difficulty, minutes, hint, checker, reference,
                                    wrong, float32)
        return checker

    return register


def registry() -> dict[str, Exercise]:
    """Every exercise of the book, by label (imports every chapter's key module once)."""
    for mod in pkgutil.iter_modules(keys.__path__):
        importlib.import_module(f"{keys.__name__}.{mod.name}")
    return dict(_REGISTRY)
