"""The answer key's registry: one checker per exercise, with its metadata.

A checker receives a student's answer as the exercise's form reads it
(``attention_book.exercises.read``: a float, an int, an array, a tuple, ...; never ``None``)
and returns ``None`` when the answer is right, or a sentence that says what is wrong without
giving the answer. ``reference`` computes a right answer; ``mistakes`` computes, for each
mistake the catalogue names for the exercise (``attention_book.exercises.catalogue``), an
answer that shows it: the tests check that the student's check and the key both recognise
it, and ``python -m grading.fingerprints`` stores the fingerprints of the ones recognised
by fingerprint. ``float32`` says that float32 is what a student naturally computes here,
so that the tests also grade the reference rounded to float32. The hints are the
catalogue's.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from attention_book import exercises
from grading import keys

DIFFICULTIES = ("warm-up", "standard", "challenging")


@dataclass(frozen=True)
class Exercise:
    label: str
    difficulty: str
    minutes: int
    checker: Callable[[Any], str | None]
    reference: Callable[[], Any]
    mistakes: Mapping[str, Callable[[], Any]]
    float32: bool

    @property
    def hint(self) -> str:
        return exercises.hint(self.label)


_REGISTRY: dict[str, Exercise] = {}


def exercise(label: str, *, difficulty: str, minutes: int, reference: Callable[[], Any],
             mistakes: Mapping[str, Callable[[], Any]], float32: bool = False):
    """Register the decorated checker as the key of the exercise with this label."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {difficulty!r}")

    def register(checker: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
        if label in _REGISTRY:
            raise ValueError(f"exercise {label} is registered twice")
        _REGISTRY[label] = Exercise(label, difficulty, minutes, checker, reference,
                                    dict(mistakes), float32)
        return checker

    return register


def registry() -> dict[str, Exercise]:
    """Every exercise whose key is here, by label (imports every key module once: in an
    autograder zip, the one chapter's)."""
    for mod in pkgutil.iter_modules(keys.__path__):
        importlib.import_module(f"{keys.__name__}.{mod.name}")
    return dict(_REGISTRY)
