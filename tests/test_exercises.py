"""The exercises in the book's sources, and the student's check of an answer's form.

Every exercise has a key in ``grading/`` (``tests/test_answer_key.py`` grades it), a form
in ``attention_book.exercises``, a title that carries its difficulty and time, and a folded
solution that ends by checking its own answer. The student's check knows the form of the
answers only: it says the same of the key's answer and of a known wrong one.
"""

from __future__ import annotations

import re

import pytest

from attention_book import exercises
from book_tools.notebooks import BOOK, chapters
from book_tools.solutions import EXERCISE_TITLE, find_exercises, find_solutions
from grading.registry import registry

KEYS = registry()
LABELS = sorted(KEYS)
SOURCES = chapters()
CHECK_CALL = re.compile(r"""exercises\.check\(\s*["']([\w.:-]+)["']\s*,""")


def book_exercises():
    """(source, ExerciseInfo) of every exercise in the book's MyST sources."""
    return [(src, ex) for src in sorted(BOOK.glob("*.md"))
            for ex in find_exercises(src.read_text())]


def test_every_exercise_in_the_book_has_a_key_a_form_and_a_title_with_difficulty_and_time():
    found = book_exercises()
    assert found, "no {exercise} directive in book/*.md"
    problems = []
    for src, ex in found:
        where = f"{src.name}:{ex.line}"
        if not ex.label:
            problems.append(f"{where}: exercise without :label:")
            continue
        if ex.label not in KEYS:
            problems.append(f"{where}: {ex.label} has no key in grading/keys")
        if ex.label not in exercises.labels():
            problems.append(f"{where}: {ex.label} has no form in attention_book.exercises")
        title = EXERCISE_TITLE.match(ex.title)
        if title is None:
            problems.append(f"{where}: {ex.label}'s title {ex.title!r} does not end in "
                            "'(warm-up|standard|challenging, N min)'")
        elif ex.label in KEYS:
            key = KEYS[ex.label]
            if (title["difficulty"], int(title["minutes"])) != (key.difficulty, key.minutes):
                problems.append(f"{where}: {ex.label} is titled ({title['difficulty']}, "
                                f"{title['minutes']} min) but its key says ({key.difficulty}, "
                                f"{key.minutes} min)")
    assert not problems, "\n".join(problems)


def test_labels_are_unique_and_every_key_and_form_has_its_exercise():
    labels = [ex.label for _, ex in book_exercises()]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    assert not twice, f"exercise labels used twice: {twice}"
    assert sorted(set(KEYS) - set(labels)) == [], "keys for no exercise in the book"
    assert sorted(set(exercises.labels()) - set(labels)) == [], "forms for no exercise"


def test_every_exercise_has_a_folded_solution_that_ends_by_checking_itself():
    problems = []
    for src in SOURCES:
        text = src.read_text()
        labels = [ex.label for ex in find_exercises(text)]
        solutions = find_solutions(text)
        problems += [f"{src.name}: {label} has no solution"
                     for label in labels if label not in [s.label for s in solutions]]
        for sol in solutions:
            if sol.label not in labels:
                problems.append(f"{src.name}:{sol.start + 1}: solution to {sol.label}, "
                                "which is not an exercise of this chapter")
            head = sol.text.split("\n", 3)
            if not any(re.match(r"^:class:.*\bdropdown\b", line) for line in head[1:3]):
                problems.append(f"{src.name}:{sol.start + 1}: solution to {sol.label} is not "
                                "folded on the site (:class: dropdown)")
            calls = CHECK_CALL.findall(sol.text)
            if not calls or calls[-1] != sol.label:
                problems.append(f"{src.name}:{sol.start + 1}: the solution to {sol.label} "
                                f"does not end with exercises.check(\"{sol.label}\", ...)")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------- the student's form check


@pytest.mark.parametrize("label", LABELS)
def test_the_form_check_accepts_the_right_answer_and_cannot_tell_a_wrong_one(label):
    key = KEYS[label]
    right, wrong = exercises.check(label, key.reference()), exercises.check(label, key.wrong())
    assert right.well_formed, f"{label}: the right answer is refused: {right.feedback}"
    assert right.feedback == exercises.RECEIVED
    if wrong.well_formed:  # a wrong answer of the right form gets exactly the same words
        assert wrong == exercises.Result(label, "answer received", exercises.RECEIVED)


@pytest.mark.parametrize("label", LABELS)
def test_an_empty_answer_is_not_answered_yet(label):
    for empty in (None, ...):
        result = exercises.check(label, empty)
        assert not result.well_formed and result.feedback == exercises.NOT_ANSWERED
        assert repr(result).startswith(f"{label}: not answered yet.")


@pytest.mark.parametrize("answer", ["a string", {"a": 1}, object()],
                         ids=["string", "dict", "object"])
def test_an_answer_of_another_form_is_named_as_such_without_a_crash(answer):
    for label in LABELS:
        result = exercises.check(label, answer)
        assert not result.well_formed, f"{label} accepts {answer!r}"
        assert repr(result).startswith(f"{label}: not in the form asked for. ")


def test_the_check_says_where_the_marks_come_from():
    shown = repr(exercises.check("ex-h3-share", 0.5))
    assert shown.startswith("ex-h3-share: answer received.")
    assert "teacher's grader" in shown
    with pytest.raises(KeyError, match="no exercise 'ex-nope'"):
        exercises.check("ex-nope", 1)
