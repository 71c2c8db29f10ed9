"""The answer key of the book's exercises: the teacher's, never the student's.

This folder is not part of the ``attention-book`` package: a student who installs the book
cannot import it. ``make assignment`` ships it inside each chapter's otter autograder zip,
with that chapter's key module only, where the hidden tests call ``grade(label, answer)``:
it returns quietly for a right answer and raises ``AssertionError`` with the feedback for
any other, and otter records the message as the exercise's feedback.

The answer is read through its exercise's form, and a wrong one gets the feedback the
student's check gives (``attention_book.exercises.check``: the form's problem or the
catalogued mistake, with its hint); a wrong answer the check cannot tell from a right one
gets what the checker says is wrong and the exercise's hint. The mark is the checker's.

Why the key computes its reference answers itself instead of reusing the chapter's solution
cell: the autograder runs the student's notebook, in which the solutions are gone, and the
tests must check the key in seconds, without executing chapters. ``make assignment`` runs
each chapter's own solutions through this key (otter's ``run_tests``), so the two
computations are checked against each other every time the assignments are built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attention_book import exercises
from attention_book.exercises.forms import NotInForm
from grading.registry import registry

NOT_ANSWERED = "not answered yet: the answer is still None."


@dataclass(frozen=True)
class Verdict:
    label: str
    correct: bool
    feedback: str


def verdict(label: str, answer: Any) -> Verdict:
    """Whether ``answer`` solves exercise ``label``; a wrong one gets what is wrong and a
    hint, never the answer."""
    key = registry().get(label)
    if key is None:
        raise KeyError(f"no exercise '{label}'; the labels are {sorted(registry())}")
    said = exercises.check(label, answer)
    if said.status == exercises.NOT_ANSWERED:
        return Verdict(label, False, NOT_ANSWERED)
    try:
        problem = key.checker(exercises.read(label, answer))
    except NotInForm:
        return Verdict(label, False, said.feedback)
    if problem is None:
        return Verdict(label, True, "")
    if said.status == exercises.MISTAKE:
        return Verdict(label, False, said.feedback)
    return Verdict(label, False, f"{problem} Hint: {key.hint}")


def grade(label: str, answer: Any) -> None:
    """The otter test of exercise ``label``: raises AssertionError unless it is right."""
    result = verdict(label, answer)
    if not result.correct:
        raise AssertionError(f"{label}: {result.feedback}")
