"""The exercises' checking cells: ``exercises.check("ex-l1-layer5", answer)``.

This check looks at the FORM of an answer only (its type, shape, number of parts, the range
its quantity can take), so that a student learns at once that an answer is unreadable or
still missing. It does not know the answers: the marks come from the teacher's grader
(``make grade``), whose answer key is not part of this package. On the book's site each
folded solution ends with this check of its own answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attention_book.exercises.catalogue import FORMS

NOT_ANSWERED = "Replace None with your answer and run the cell again."
RECEIVED = ("It has the form the exercise asks for. Whether it is right is for your "
            "teacher's grader to say: this check knows the form of the answers, not the "
            "answers.")
STATUSES = ("answer received", "not answered yet", "not in the form asked for")


@dataclass(frozen=True)
class Result:
    label: str
    status: str      # one of STATUSES
    feedback: str

    @property
    def well_formed(self) -> bool:
        return self.status == STATUSES[0]

    def __bool__(self) -> bool:
        return self.well_formed

    def _repr_markdown_(self) -> str:
        return f"**{self.label}: {self.status}.** {self.feedback}"

    def __repr__(self) -> str:
        return self._repr_markdown_().replace("**", "")


def labels() -> list[str]:
    """Every exercise of the book."""
    return sorted(FORMS)


def check(label: str, answer: Any) -> Result:
    """Say whether ``answer`` has the form exercise ``label`` asks for (never whether it is
    right: that is the teacher's grader's job)."""
    form = FORMS.get(label)
    if form is None:
        raise KeyError(f"no exercise '{label}'; the labels are {labels()}")
    if answer is None or answer is Ellipsis:
        return Result(label, STATUSES[1], NOT_ANSWERED)
    try:
        problem = form(answer)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError) as e:
        problem = f"the answer could not be read ({type(e).__name__}: {e})."
    if problem is not None:
        return Result(label, STATUSES[2], problem[0].upper() + problem[1:])
    return Result(label, STATUSES[0], RECEIVED)
