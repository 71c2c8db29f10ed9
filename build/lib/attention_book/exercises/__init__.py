"""The exercises' checking cells: ``exercises.check("ex-l1-layer5", answer)``.

The check reads an answer through its exercise's form (``catalogue.CATALOGUE``) and looks
for the mistakes catalogued for that exercise: a mistake comes back at once, with its hint.
It does not know the right answers: an answer in the form asked for that shows none of
the catalogued mistakes is "received", right or wrong, and the marks come from the
teacher's grader (``make grade``), whose answer key is not part of this package and gives
the same feedback for the same mistakes. On the book's site each folded solution ends with
this check of its own answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attention_book.exercises.catalogue import CATALOGUE, Exercise
from attention_book.exercises.forms import NotInForm

RECEIVED, NOT_ANSWERED, NOT_IN_FORM, MISTAKE = (
    "answer received", "not answered yet", "not in the form asked for", "a known mistake")
STATUSES = (RECEIVED, NOT_ANSWERED, NOT_IN_FORM, MISTAKE)
REPLACE_NONE = "Replace None with your answer and run the cell again."
NO_KNOWN_MISTAKE = ("It has the form the exercise asks for and shows none of the mistakes "
                    "this check knows for it. Whether it is right is for your teacher's "
                    "grader to say: this check knows mistakes, not answers.")


@dataclass(frozen=True)
class Result:
    label: str
    status: str      # one of STATUSES
    feedback: str

    @property
    def well_formed(self) -> bool:
        return self.status == RECEIVED

    def __bool__(self) -> bool:
        return self.well_formed

    def _repr_markdown_(self) -> str:
        return f"**{self.label}: {self.status}.** {self.feedback}"

    def __repr__(self) -> str:
        return self._repr_markdown_().replace("**", "")


def labels() -> list[str]:
    """Every exercise of the book."""
    return sorted(CATALOGUE)


def _exercise(label: str) -> Exercise:
    if label not in CATALOGUE:
        raise KeyError(f"no exercise '{label}'; the labels are {labels()}")
    return CATALOGUE[label]


def hint(label: str) -> str:
    """The hint of exercise ``label``."""
    return _exercise(label).hint


def read(label: str, answer: Any) -> Any:
    """``answer`` as the form of exercise ``label`` reads it (``NotInForm`` if it cannot)."""
    return _exercise(label).form.read(answer)


def _not_in_form(label: str, problem: NotInForm) -> Result:
    text = str(problem)
    return Result(label, NOT_IN_FORM, f"{text[0].upper()}{text[1:]} Hint: {hint(label)}")


def check(label: str, answer: Any) -> Result:
    """Whether ``answer`` has the form exercise ``label`` asks for and which catalogued
    mistake it shows, if any (never whether it is right: that is the grader's job)."""
    exercise = _exercise(label)
    if answer is None or answer is Ellipsis:
        return Result(label, NOT_ANSWERED, REPLACE_NONE)
    try:
        as_read = exercise.form.read(answer, ranges=False)
    except NotInForm as e:
        return _not_in_form(label, e)
    for mistake in exercise.mistakes:
        if mistake.shown_by(label, as_read):
            return Result(label, MISTAKE, mistake.feedback)
    try:
        exercise.form.read(answer)
    except NotInForm as e:
        return _not_in_form(label, e)
    return Result(label, RECEIVED, NO_KNOWN_MISTAKE)
