"""The answer key (``grading/``): what the autograder's hidden tests call.

For every exercise: a right answer gets full marks, and so does the same answer rounded to
float32 where float32 is what a student naturally computes; every catalogued mistake, as
the key computes it, gets zero with exactly the feedback the student's check gives for it;
an unanswered one (None, or otter's ``...``) zero with "not answered yet"; an answer of
another form zero with what is wrong and the hint. No feedback and no hint shows the answer.
"""

from __future__ import annotations

import re

import pytest
from homework import distinctive, in_float32, literal_forms, occurrences

from attention_book import exercises
from attention_book.exercises.catalogue import CATALOGUE
from grading import NOT_ANSWERED, grade, verdict
from grading.registry import DIFFICULTIES, registry

KEYS = registry()
LABELS = sorted(KEYS)
MISTAKES = [(label, m) for label in LABELS for m in CATALOGUE[label].mistakes]


def shown(text: str, label: str) -> list[str]:
    answer = exercises.read(label, KEYS[label].reference())
    return occurrences(text, distinctive(literal_forms(answer), 2, 5))


def test_the_book_has_keys_and_each_catalogued_mistake_an_example_in_the_key():
    assert len(KEYS) >= 30, sorted(KEYS)
    assert sorted(KEYS) == sorted(CATALOGUE)
    for label in LABELS:
        assert set(KEYS[label].mistakes) == {m.name for m in CATALOGUE[label].mistakes}, label


@pytest.mark.parametrize("label", LABELS)
def test_the_right_answer_gets_full_marks(label):
    result = verdict(label, KEYS[label].reference())
    assert result.correct, f"{label}: the right answer is refused: {result.feedback}"
    grade(label, KEYS[label].reference())  # the otter test passes: no exception


@pytest.mark.parametrize("label", [label for label in LABELS if KEYS[label].float32])
def test_the_right_answer_in_float32_gets_full_marks(label):
    result = verdict(label, in_float32(KEYS[label].reference()))
    assert result.correct, f"{label}: the float32 answer is refused: {result.feedback}"


@pytest.mark.parametrize("label, mistake", MISTAKES, ids=lambda x: getattr(x, "name", x))
def test_each_catalogued_mistake_gets_zero_with_the_checks_feedback(label, mistake):
    example = KEYS[label].mistakes[mistake.name]()
    answers = [example] + ([in_float32(example)] if KEYS[label].float32 else [])
    for answer in answers:
        result = verdict(label, answer)
        assert not result.correct, f"{label}: the mistake {mistake.name} is accepted"
        assert result.feedback == mistake.feedback == exercises.check(label, answer).feedback
        assert not shown(result.feedback, label), f"{label}: the feedback gives the answer"
    with pytest.raises(AssertionError, match=re.escape(f"{label}: {mistake.feedback}")):
        grade(label, example)


@pytest.mark.parametrize("label", LABELS)
def test_an_unanswered_exercise_gets_zero_and_not_answered_yet(label):
    for empty in (None, ...):
        assert verdict(label, empty).feedback == NOT_ANSWERED
        with pytest.raises(AssertionError, match="not answered yet"):
            grade(label, empty)


@pytest.mark.parametrize("label", LABELS)
def test_the_registration_is_well_formed_and_the_hints_keep_the_answer(label):
    key = KEYS[label]
    assert key.difficulty in DIFFICULTIES
    assert isinstance(key.minutes, int) and 1 <= key.minutes <= 120, key.minutes
    hints = [key.hint] + [m.feedback for m in CATALOGUE[label].mistakes]
    assert all(h.strip() for h in hints) and not shown(" ".join(hints), label)


def test_an_answer_of_another_form_gets_zero_with_what_is_wrong_and_the_hint():
    result = verdict("ex-h1-medium", "three numbers")
    assert not result.correct
    assert result.feedback == ("Expected a tuple (16 x 64, 1 x 1024, 16 x 128), got str. "
                               f"Hint: {KEYS['ex-h1-medium'].hint}")
    share = verdict("ex-h3-share", 1.5)  # the range is the form's, written once
    assert share.feedback.startswith("A share is at most 1; 1.5 is not. Hint: ")
    with pytest.raises(KeyError, match="no exercise 'ex-nope'"):
        verdict("ex-nope", 1)


def test_a_wrong_answer_the_check_cannot_tell_gets_the_checkers_words_and_the_hint():
    result = verdict("ex-h3-share", 0.5)
    assert exercises.check("ex-h3-share", 0.5).status == exercises.RECEIVED
    assert result.feedback == ("0.500 is not the share held by the 38 pruned heads. "
                               f"Hint: {KEYS['ex-h3-share'].hint}")
