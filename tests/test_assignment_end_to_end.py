"""As a teacher would: make assignment for chapter 11, three submissions, make grade.

The three submissions are the chapter's own solutions (the autograder's notebook, so the
key must accept what the chapter computes), the student's notebook with the key's known
wrong answers typed in, and the student's notebook handed back blank. ``otter run`` grades
each (offline, no Docker) and the score table must read 1, 1 / 0, 0 / 0, 0, with the
key's diagnosis for the wrong answers and "not answered yet" for the blank ones.
"""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import nbformat
import pytest

from book_tools import assignment, grade
from book_tools.otter_master import answer_name
from grading import NOT_ANSWERED, verdict
from grading.registry import registry

pytestmark = pytest.mark.slow  # otter end to end

CHAPTER = "11_checklist"
LABELS = ["ex-xi-mqa", "ex-xi-grouped-gpt2"]


def submit(notebook: Path, to: Path, answers: dict[str, object] | None = None) -> None:
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        for label, value in (answers or {}).items():
            cell.source = cell.source.replace(f"{answer_name(label)} = None",
                                              f"{answer_name(label)} = {value!r}")
    to.parent.mkdir(parents=True)
    nbformat.write(nb, to)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("teacher")
    out = root / "assignment"
    assert assignment.main([str(out), "--chapter", CHAPTER, "--no-run-tests"]) == 0
    keys = registry()
    subs = root / "submissions"
    submit(out / CHAPTER / "autograder" / f"{CHAPTER}.ipynb", subs / "carol" / f"{CHAPTER}.ipynb")
    submit(out / CHAPTER / "student" / f"{CHAPTER}.ipynb", subs / "walt" / f"{CHAPTER}.ipynb",
           {label: keys[label].wrong() for label in LABELS})
    submit(out / CHAPTER / "student" / f"{CHAPTER}.ipynb", subs / "bea" / f"{CHAPTER}.ipynb")
    grades = root / "grades"
    assert grade.main([str(subs), "--assignments", str(out), "--out", str(grades)]) == 0
    return out, grades


def test_the_student_gets_no_key_and_the_autograder_carries_it(graded):
    out, _ = graded
    student = out / CHAPTER / "student"
    assert [p.name for p in student.iterdir()] == [f"{CHAPTER}.ipynb"]
    text = (student / f"{CHAPTER}.ipynb").read_text()
    assert "grading" not in text and "distinct_blocks(grouped.W_K)" not in text
    (zipped,) = (out / CHAPTER / "autograder").glob("*-autograder_*.zip")
    names = zipfile.ZipFile(zipped).namelist()
    assert "files/grading/__init__.py" in names and "tests/ex-xi-mqa.py" in names


def test_the_score_table_has_the_expected_marks_and_feedback(graded):
    _, grades = graded
    with (grades / "scores.csv").open() as f:
        scores = list(csv.DictReader(f))
    assert scores == [
        {"student": "bea", "ex-xi-mqa": "0", "ex-xi-grouped-gpt2": "0", "total": "0"},
        {"student": "carol", "ex-xi-mqa": "1", "ex-xi-grouped-gpt2": "1", "total": "2"},
        {"student": "walt", "ex-xi-mqa": "0", "ex-xi-grouped-gpt2": "0", "total": "0"}]
    with (grades / "feedback.csv").open() as f:
        feedback = {(r["student"], r["exercise"]): r["feedback"] for r in csv.DictReader(f)}
    keys = registry()
    for label in LABELS:
        assert feedback["carol", label] == ""
        assert feedback["bea", label] == NOT_ANSWERED
        assert feedback["walt", label] == verdict(label, keys[label].wrong()).feedback
