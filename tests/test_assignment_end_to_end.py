"""As a teacher and students would: make assignment for chapters 09 and 11, a class, make grade.

Three students hand in chapter 11: carol the chapter's own solutions (the autograder's
notebook, so the key must accept what the chapter computes), walt a right answer, a
catalogued wrong answer and a cell that raises NameError, bea the notebook blank. Only
carol and bea hand in chapter 09. ``otter run`` grades each (offline, no Docker): the
score table has carol's marks, walt's 1 and 0 with his error cell named and chapter 09
"missing", bea's zeros; walt's notebook, as it ran, shows the mistake's hint in the answer
cell itself, the feedback the same words; each autograder zip holds its own chapter's key
only, and the student's notebook no right answer.
"""

from __future__ import annotations

import csv
import zipfile
from pathlib import Path

import nbformat
import pytest
from homework import occurrences, right_answer_forms

from attention_book.exercises.catalogue import CATALOGUE
from book_tools import assignment, grade
from book_tools.otter_master import answer_name
from grading import NOT_ANSWERED

CHAPTER, OTHER = "11_checklist", "09_heads"
LABELS = ["ex-xi-mqa", "ex-xi-grouped-gpt2"]
RIGHT = "((8192, 128), 40960)"              # ex-xi-mqa, typed in
NOTHING_GROUPED = "(12, 0.5)"               # ex-xi-grouped-gpt2: a catalogued mistake
ERROR_CELL = "print(distinct_blocks_of_mine)"

pytestmark = pytest.mark.slow


def submit(notebook: Path, to: Path, answers: dict[str, str] | None = None,
           error_cell: bool = False) -> None:
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        for label, value in (answers or {}).items():
            cell.source = cell.source.replace(f"{answer_name(label)} = None",
                                              f"{answer_name(label)} = {value}")
    if error_cell:
        first = next(i for i, c in enumerate(nb.cells) if answer_name(LABELS[0]) in c.source)
        nb.cells.insert(first, nbformat.v4.new_code_cell(ERROR_CELL))
    to.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, to)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("teacher")
    out, subs = root / "assignment", root / "submissions"
    assert assignment.main([str(out), "--chapter", CHAPTER, "--chapter", OTHER,
                            "--no-run-tests"]) == 0
    for chapter in (CHAPTER, OTHER):
        student = out / chapter / "student" / f"{chapter}.ipynb"
        submit(out / chapter / "autograder" / f"{chapter}.ipynb",
               subs / "carol" / f"{chapter}.ipynb")
        submit(student, subs / "bea" / f"{chapter}.ipynb")
    submit(out / CHAPTER / "student" / f"{CHAPTER}.ipynb", subs / "walt" / f"{CHAPTER}.ipynb",
           {LABELS[0]: RIGHT, LABELS[1]: NOTHING_GROUPED}, error_cell=True)
    grades = root / "grades"
    assert grade.main([str(subs), "--assignments", str(out), "--out", str(grades)]) == 0
    return out, grades


def rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def test_each_zip_holds_its_own_key_and_the_student_no_key_and_no_answer(graded):
    out, _ = graded
    for chapter, key in ((CHAPTER, "ch11"), (OTHER, "ch09")):
        student = out / chapter / "student"
        assert [p.name for p in student.iterdir()] == [f"{chapter}.ipynb"]
        text = (student / f"{chapter}.ipynb").read_text()
        assert "grading" not in text
        (zipped,) = (out / chapter / "autograder").glob("*-autograder_*.zip")
        shipped = sorted(n for n in zipfile.ZipFile(zipped).namelist()
                         if n.startswith("files/grading/") and n.endswith(".py"))
        assert shipped == sorted(f"files/grading/{n}" for n in
                                 ("__init__.py", "registry.py", "tolerance.py",
                                  "keys/__init__.py", f"keys/{key}.py"))
    text = (out / CHAPTER / "student" / f"{CHAPTER}.ipynb").read_text()
    for label in LABELS:
        assert not occurrences(text, right_answer_forms(label)), label


def test_the_score_table_says_missing_and_names_the_error_cell(graded):
    _, grades = graded
    table = {r["student"]: r for r in rows(grades / "scores.csv")}
    assert list(table) == ["bea", "carol", "walt"]
    assert [table["carol"][label] for label in LABELS] == ["1", "1"]
    assert [table["walt"][label] for label in LABELS] == ["1", "0"]
    assert [table["bea"][label] for label in LABELS] == ["0", "0"]
    others = [label for label in table["carol"] if label.startswith("ex-h")]
    assert others and all(table["walt"][label] == "missing" for label in others)
    assert [table[s]["error cells"] for s in ("bea", "carol")] == ["", ""]
    assert table["walt"]["error cells"].startswith(f"{CHAPTER} cell ")
    assert table["walt"]["error cells"].endswith(": NameError")
    assert table["carol"]["total"] == str(2 + len(others)) and table["walt"]["total"] == "1"


def test_the_feedback_gives_the_mistakes_hint_missing_and_the_error(graded):
    _, grades = graded
    feedback = {(r["student"], r["chapter"], r["exercise"]): r for r in
                rows(grades / "feedback.csv")}
    nothing_grouped = CATALOGUE[LABELS[1]].mistakes[0]
    assert feedback["walt", CHAPTER, LABELS[1]]["feedback"] == nothing_grouped.feedback
    assert feedback["walt", CHAPTER, LABELS[0]]["feedback"] == ""
    error = feedback["walt", CHAPTER, ""]["feedback"]
    assert "raised NameError: name 'distinct_blocks_of_mine' is not defined" in error
    assert error.endswith(f"(the cell begins: {ERROR_CELL})")
    missing = [r for (s, c, _), r in feedback.items() if s == "walt" and c == OTHER]
    assert missing and all(r["score"] == "missing" for r in missing)
    for label in LABELS:
        assert feedback["bea", CHAPTER, label]["feedback"] == NOT_ANSWERED


def test_the_student_saw_the_hint_at_once_in_the_answer_cell(graded):
    _, grades = graded
    ran = nbformat.read(grades / "executed" / "walt" / f"{CHAPTER}.ipynb", as_version=4)
    shown = {label: "".join(o.get("data", {}).get("text/markdown", "")
                            for c in ran.cells if c.cell_type == "code"
                            and f'exercises.check("{label}"' in c.source
                            for o in c.get("outputs", []))
             for label in LABELS}
    hint = CATALOGUE[LABELS[1]].mistakes[0]
    assert shown[LABELS[1]] == f"**{LABELS[1]}: a known mistake.** {hint.feedback}"
    assert shown[LABELS[0]].startswith(f"**{LABELS[0]}: answer received.**")
