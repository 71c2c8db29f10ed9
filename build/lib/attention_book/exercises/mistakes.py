"""A catalogued mistake: what it looks like, how it is recognised, and its hint.

A mistake is recognised in one of three ways, none of which holds or computes the right
answer:

- ``Rule``: a property of the answer itself (a share above 1, two eigenvalues of one sign,
  a position listed before the edit);
- ``Computed``: the mistaken answer, computed when the answer is checked, as the mistake
  computes it from what the exercise gives (the rows without their LayerNorm); used where
  the mistaken answer depends on the checkpoint's input rows, and only for mistakes the
  right answer does not follow from by a fixed step;
- ``Known``: a fingerprint (``attention_book.exercises.fingerprint``) of the mistaken answer
  the answer key computes, stored in ``attention_book.exercises.fingerprints``: for
  mistakes the right answer would follow from (twice the answer, its transpose, a count
  off by one).

``part`` names the part of the answer (a tuple index or a dict key) the mistake is in.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from attention_book.exercises.fingerprint import digest, digests


@dataclass(frozen=True, kw_only=True)
class Mistake(ABC):
    name: str
    looks_like: str   # what the answer shows, said to the student
    hint: str
    part: Any = None

    def of(self, answer: Any) -> Any:
        return answer if self.part is None else answer[self.part]

    @abstractmethod
    def shown_by(self, label: str, answer: Any) -> bool:
        """Whether ``answer`` (read by its form, ranges aside) shows this mistake."""

    @property
    def feedback(self) -> str:
        return f"{self.looks_like} Hint: {self.hint}"


@dataclass(frozen=True, kw_only=True)
class Rule(Mistake):
    test: Callable[[Any], bool]

    def shown_by(self, label: str, answer: Any) -> bool:
        return bool(self.test(self.of(answer)))


@dataclass(frozen=True, kw_only=True)
class Computed(Mistake):
    mistaken: Callable[[], Any]   # the mistaken answer (its part), as the form reads it

    def shown_by(self, label: str, answer: Any) -> bool:
        return digest(label, self.of(answer)) in digests(label, self.mistaken())


@dataclass(frozen=True, kw_only=True)
class Known(Mistake):
    def shown_by(self, label: str, answer: Any) -> bool:
        from attention_book.exercises.fingerprints import DIGESTS

        return digest(label, self.of(answer)) in DIGESTS.get((label, self.name), ())
