"""The answer key of the book's exercises: the teacher's, never the student's.

This folder is not part of the ``attention-book`` package (``pyproject.toml`` packages
``attention_book`` and ``book_tools`` only): a student who installs the book cannot import
it. ``make assignment`` ships it inside each chapter's otter autograder zip only, where the
hidden tests call ``grade(label, answer)``: it returns quietly for a right answer and raises
``AssertionError`` with what is wrong and a hint for any other, and otter records the
message as the exercise's feedback.

Why the key computes its reference answers itself instead of reusing the chapter's solution
cell: the autograder runs the student's notebook, in which the solutions are gone, and the
tests must check the key in seconds, without executing chapters. ``make assignment`` runs
each chapter's own solutions through this key (otter's ``run_tests``), so the two
computations are checked against each other every time the assignments are built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grading.registry import registry

NOT_ANSWERED = "not answered yet: the answer is still None."


@dataclass(frozen=True)
class Verdict:
    label: str
    correct: bool
    feedback: str


def unanswered(answer: Any) -> bool:
    """None, or otter's ``...`` placeholder."""
    return answer is None or answer is Ellipsis


def verdict(label: str, answer: Any) -> Verdict:
    """Whether ``answer`` solves exercise ``label``; a wrong one gets what is wrong and a
    hint, never the answer."""
    ex = registry().get(label)
    if ex is None:
        raise KeyError(f"no exercise '{label}'; the labels are {sorted(registry())}")
    if unanswered(answer):
        return Verdict(label, False, NOT_ANSWERED)
    try:
        problem = ex.checker(answer)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError) as e:
        problem = f"the answer could not be read ({type(e).__name__}: {e})."
    if problem is None:
        return Verdict(label, True, "")
    return Verdict(label, False, f"{problem} Hint: {ex.hint}")


def grade(label: str, answer: Any) -> None:
    """The otter test of exercise ``label``: raises AssertionError unless it is right."""
    result = verdict(label, answer)
    if not result.correct:
        raise AssertionError(f"{label}: {result.feedback}")
