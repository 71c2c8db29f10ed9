"""The answer key (``grading/``): what the autograder's hidden tests call.

For every exercise: a right answer gets full marks, and so does the same answer rounded to
float32 where float32 is what a student naturally computes; the known wrong answer gets
zero with its diagnosis and the hint; an unanswered one (None, or otter's ``...``) zero
with "not answered yet". No feedback and no hint shows the answer.
"""

from __future__ import annotations

import math
import numbers
import re

import numpy as np
import pytest

from grading import NOT_ANSWERED, grade, verdict
from grading.registry import DIFFICULTIES, registry

KEYS = registry()
LABELS = sorted(KEYS)


def in_float32(answer):
    """The answer with every float in it rounded to float32 (ints and symbols as they are)."""
    if isinstance(answer, np.ndarray) and answer.dtype.kind == "f":
        return answer.astype(np.float32)
    if isinstance(answer, float | np.floating):
        return np.float32(answer)
    if isinstance(answer, tuple | list):
        return type(answer)(in_float32(a) for a in answer)
    if isinstance(answer, dict):
        return {k: in_float32(v) for k, v in answer.items()}
    return answer


def revealing_forms(answer) -> list[str]:
    """How the right answer would look if feedback printed it."""
    forms = {repr(answer)}
    if isinstance(answer, np.ndarray) and answer.size == 1:
        answer = answer.item()
    if isinstance(answer, numbers.Real) and not isinstance(answer, bool):
        forms.add(str(answer))
        if math.isfinite(answer) and float(answer) != int(answer):
            forms |= {f"{answer:.3g}", f"{answer:.4f}"}
    return [f for f in forms if f.strip()]


def reveals(text: str, answer) -> list[str]:
    return [form for form in revealing_forms(answer)
            if re.search(rf"(?<![\w.]){re.escape(form)}(?![\w])", text)]


def test_the_book_has_keys():
    assert len(KEYS) >= 30, sorted(KEYS)


@pytest.mark.parametrize("label", LABELS)
def test_the_right_answer_gets_full_marks(label):
    result = verdict(label, KEYS[label].reference())
    assert result.correct, f"{label}: the right answer is refused: {result.feedback}"
    grade(label, KEYS[label].reference())  # the otter test passes: no exception


@pytest.mark.parametrize("label", [label for label in LABELS if KEYS[label].float32])
def test_the_right_answer_in_float32_gets_full_marks(label):
    answer = in_float32(KEYS[label].reference())
    result = verdict(label, answer)
    assert result.correct, f"{label}: the float32 answer is refused: {result.feedback}"


@pytest.mark.parametrize("label", LABELS)
def test_the_known_wrong_answer_gets_zero_with_its_diagnosis_and_the_hint(label):
    key = KEYS[label]
    result = verdict(label, key.wrong())
    assert not result.correct, f"{label}: the wrong answer is accepted"
    problem, _, hint = result.feedback.partition(" Hint: ")
    assert hint == key.hint, f"{label}: the feedback does not end with the hint"
    assert problem.strip() and problem != NOT_ANSWERED
    assert "could not be read" not in problem, f"{label}: no diagnosis: {problem}"
    shown = reveals(result.feedback, key.reference())
    assert not shown, f"{label}: the feedback gives the answer away ({shown})"
    with pytest.raises(AssertionError, match=re.escape(f"{label}: {problem}")):
        grade(label, key.wrong())


@pytest.mark.parametrize("label", LABELS)
def test_an_unanswered_exercise_gets_zero_and_not_answered_yet(label):
    for empty in (None, ...):
        assert verdict(label, empty).feedback == NOT_ANSWERED
        with pytest.raises(AssertionError, match="not answered yet"):
            grade(label, empty)


@pytest.mark.parametrize("label", LABELS)
def test_the_registration_is_well_formed_and_the_hint_keeps_the_answer(label):
    key = KEYS[label]
    assert key.difficulty in DIFFICULTIES
    assert isinstance(key.minutes, int) and 1 <= key.minutes <= 120, key.minutes
    assert key.hint.strip() and not reveals(key.hint, key.reference())


def test_an_unreadable_answer_gets_zero_without_a_crash():
    result = verdict("ex-h1-medium", "three numbers")
    assert not result.correct and "could not be read" in result.feedback
    with pytest.raises(KeyError, match="no exercise 'ex-nope'"):
        verdict("ex-nope", 1)
