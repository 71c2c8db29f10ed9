"""The exercises in the book's sources, and the student's check of an answer's form.

Every exercise has a key in ``grading/`` (``tests/test_answer_key.py`` grades it), a form,
a hint and its mistakes in ``attention_book.exercises``, a title that carries its difficulty
and time, and a folded solution that ends by checking its own answer. The student's check
knows mistakes, not answers: the right answer is "received", and each catalogued mistake,
as the key computes it (in float32 too), comes back at once with its hint.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import sympy as sp
from homework import in_float32

from attention_book import exercises
from attention_book.exercises.catalogue import CATALOGUE, SHARE
from attention_book.exercises.fingerprints import DIGESTS
from attention_book.exercises.forms import (
    Array,
    Expression,
    HeadName,
    Many,
    NotInForm,
    OneOf,
    Tuple,
    Whole,
)
from book_tools.notebooks import BOOK, chapters
from book_tools.solutions import EXERCISE_TITLE, find_exercises, find_solutions
from grading.fingerprints import known_digests
from grading.registry import registry

KEYS = registry()
LABELS = sorted(KEYS)
MISTAKES = [(label, m) for label in LABELS for m in CATALOGUE[label].mistakes]
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


# ------------------------------------------------------- the student's check


@pytest.mark.parametrize("label", LABELS)
def test_the_right_answer_is_received_and_shows_no_mistake(label):
    key = KEYS[label]
    for answer in [key.reference()] + ([in_float32(key.reference())] if key.float32 else []):
        result = exercises.check(label, answer)
        assert result == exercises.Result(label, exercises.RECEIVED, exercises.NO_KNOWN_MISTAKE)


@pytest.mark.parametrize("label, mistake", MISTAKES, ids=lambda x: getattr(x, "name", x))
def test_each_catalogued_mistake_comes_back_at_once_with_its_hint(label, mistake):
    example = KEYS[label].mistakes[mistake.name]()
    for answer in [example] + ([in_float32(example)] if KEYS[label].float32 else []):
        result = exercises.check(label, answer)
        assert (result.status, result.feedback) == (exercises.MISTAKE, mistake.feedback), \
            f"{label}: {mistake.name} is not recognised: {result!r}"
        assert repr(result) == f"{label}: a known mistake. {mistake.looks_like} Hint: " \
                               f"{mistake.hint}"


def test_the_fingerprints_are_those_of_the_keys_mistakes():
    assert known_digests() == DIGESTS, "stale: run python -m grading.fingerprints"


@pytest.mark.parametrize("label", LABELS)
def test_an_empty_answer_is_not_answered_yet(label):
    for empty in (None, ...):
        result = exercises.check(label, empty)
        assert not result.well_formed and result.feedback == exercises.REPLACE_NONE
        assert repr(result).startswith(f"{label}: not answered yet.")


@pytest.mark.parametrize("answer", ["a string", {"a": 1}, object()],
                         ids=["string", "dict", "object"])
def test_an_answer_of_another_form_is_named_as_such_with_the_hint(answer):
    for label in LABELS:
        result = exercises.check(label, answer)
        assert result.status == exercises.NOT_IN_FORM, f"{label} accepts {answer!r}"
        assert result.feedback.endswith(f" Hint: {exercises.hint(label)}")


def test_the_check_says_where_the_marks_come_from():
    shown = repr(exercises.check("ex-h3-share", 0.5))
    assert shown.startswith("ex-h3-share: answer received.")
    assert "teacher's grader" in shown
    with pytest.raises(KeyError, match="no exercise 'ex-nope'"):
        exercises.check("ex-nope", 1)


# ------------------------------------------------------------------- the forms


def test_a_form_reads_an_answer_one_way_and_its_range_only_when_asked():
    form = Tuple((Whole(), SHARE), ("count", "share"))
    assert form.read((np.int64(3), np.float32(0.5))) == (3, 0.5)
    assert form.read([3.0, 1.5], ranges=False) == (3, 1.5)
    with pytest.raises(NotInForm, match=r"share: a share is at most 1; 1.5 is not"):
        form.read((3, 1.5))
    with pytest.raises(NotInForm, match="count: expected a whole number, got 2.5"):
        form.read((2.5, 0.5))
    with pytest.raises(NotInForm, match="expected a whole number, got bool"):
        Whole().read(True)


def test_symbols_are_read_by_name_and_heads_as_layer_dot_head():
    d_k = sp.Symbol("d_k", integer=True, positive=True)
    assert Expression(("d_k",)).read(d_k**2) == sp.Symbol("d_k") ** 2
    with pytest.raises(NotInForm, match="only d_k, not n"):
        Expression(("d_k",)).read(sp.Symbol("n"))
    heads = Many(HeadName(), unordered=True).read([(5, 5), "6.9", "5.5"])
    assert heads == frozenset({"5.5", "6.9"})
    rows = OneOf((Array((3,)), Array((None, 3))), "rows of 3")
    assert rows.read([1, 2, 3]).shape == (3,) and rows.read([[1, 2, 3]]).shape == (1, 3)
    with pytest.raises(NotInForm, match="expected rows of 3"):
        rows.read([1, 2])
