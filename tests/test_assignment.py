"""make assignment's master notebooks and make grade's handling of a submissions folder.

The master notebook is checked on a synthetic chapter and on every chapter of the book:
what otter strips for the student (the solution blocks, the code between solution markers,
the hidden tests) holds every line of the chapter's solutions, and what it keeps holds
none of them and none of the right answers the key computes. Each chapter's master ships
the shared grading code and its own key module only. The score table says "missing" and
names error cells. ``tests/test_assignment_end_to_end.py`` runs otter itself on one chapter.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from homework import occurrences, right_answer_forms, student_view

from book_tools.assignment import graded_chapters, key_files, write_master
from book_tools.grade import (
    ErrorCell,
    Mark,
    Submission,
    SubmissionError,
    error_cells,
    feedback_of,
    find_submissions,
    missing_marks,
    score_rows,
)
from book_tools.notebooks import REPO
from book_tools.otter_master import answer_name, cut, master_notebook
from book_tools.plain_notebook import book_context
from book_tools.solutions import find_exercises

SYNTHETIC = """\
# A chapter

```{code-cell}
x = 1
```

```{exercise} Double it (warm-up, 5 min)
:label: ex-double
Double $x$.
```

```{solution-start} ex-double
:class: dropdown
```
The secret prose of the answer.

```{code-cell}
secret_half = x
```

```{code-cell}
secret_answer = 2 * secret_half
exercises.check("ex-double", secret_answer)
```

```{solution-end}
```

Text after the answer stays.
"""


def solution_lines(text: str) -> list[str]:
    """The substantive lines inside the chapter's solutions that appear nowhere else."""
    inside, outside, active = [], [], False
    for line in text.splitlines():
        if re.match(r"^(`{3,}|:{3,})\{solution-start\}", line):
            active = True
        (inside if active else outside).append(line.strip())
        if re.match(r"^(`{3,}|:{3,})\{solution-end\}", line):
            active = False
    rest = set(outside)
    return [line for line in inside if len(line) >= 12 and line not in rest
            and not line.startswith(("```", ":::", ":class:", ":label:", "exercises.check"))]


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> nbformat.NotebookNode:
    src = tmp_path_factory.mktemp("book") / "99_synthetic.md"
    src.write_text(SYNTHETIC)
    return master_notebook(src, book_context(src, REPO))


def test_the_synthetic_master_has_one_question_with_its_solution_and_hidden_test(synthetic):
    raw = [c.source.split("\n")[0] for c in synthetic.cells if c.cell_type == "raw"]
    assert raw == ["# ASSIGNMENT CONFIG", "# BEGIN QUESTION", "# BEGIN SOLUTION",
                   "# END SOLUTION", "# BEGIN TESTS", "# END TESTS", "# END QUESTION"]
    answer = next(c for c in synthetic.cells if "answer_double = None" in c.source)
    assert answer.source.index("secret_half = x") < answer.source.index(
        "answer_double = secret_answer") < answer.source.index("# END SOLUTION")
    assert answer.source.rstrip().endswith('exercises.check("ex-double", answer_double)')
    test = next(c for c in synthetic.cells if c.source.startswith("# HIDDEN"))
    assert 'grade("ex-double", answer_double)' in test.source


def test_the_synthetic_student_view_keeps_the_text_and_drops_the_solution(synthetic):
    shown = student_view(synthetic)
    for secret in ("secret", "{solution", "grading", "grade("):
        assert secret not in shown, secret
    for kept in ("x = 1", "Double $x$.", "Text after the answer stays.",
                 "answer_double = None", 'exercises.check("ex-double", answer_double)'):
        assert kept in shown, kept


def test_a_broken_chapter_is_refused_with_what_to_fix(tmp_path):
    src = tmp_path / "98_broken.md"
    src.write_text(SYNTHETIC.replace('exercises.check("ex-double", secret_answer)',
                                     "print(secret_answer)"))
    with pytest.raises(ValueError, match=r'ex-double does not end with exercises.check'):
        master_notebook(src, book_context(src, REPO))
    with pytest.raises(ValueError, match="is not followed by its solution"):
        cut(SYNTHETIC.split("```{solution-start}")[0], "97_no_solution.md")


@pytest.mark.parametrize("source", graded_chapters(), ids=lambda p: p.stem)
def test_no_solution_line_and_no_right_answer_reaches_the_student(source):
    nb = master_notebook(source, book_context(source, REPO))
    shown = student_view(nb)
    leaked = [line for line in solution_lines(source.read_text()) if line in shown]
    assert not leaked, f"{source.name}: solution text for the student: {leaked[:5]}"
    labels = [ex.label for ex in find_exercises(source.read_text())]
    answers = {label: hits for label in labels
               if (hits := occurrences(shown, right_answer_forms(label)))}
    assert not answers, f"{source.name}: right answers in the student's notebook: {answers}"
    questions = re.findall(r"^# BEGIN QUESTION\nname: (\S+)",
                           "\n".join(c.source for c in nb.cells if c.cell_type == "raw"),
                           re.MULTILINE)
    assert questions == labels
    for label in labels:
        assert f'{answer_name(label)} = None\n' in shown
    nbformat.validate(nb)


# --------------------------------------------------------------- make grade's folder


def notebook(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nbformat.v4.new_notebook(), path)
    return path


CHAPTERS = {"11_checklist": Path("11_checklist-autograder.zip")}


def test_a_well_laid_out_folder_is_read(tmp_path):
    notebook(tmp_path / "alice" / "11_checklist.ipynb")
    notebook(tmp_path / "bob" / "11_checklist.ipynb")
    found = find_submissions(tmp_path, CHAPTERS)
    assert [(s.student, s.chapter) for s in found] == [("alice", "11_checklist"),
                                                      ("bob", "11_checklist")]


@pytest.mark.parametrize("layout, says", [
    (None, "no such folder"),
    ([], "no submitted notebook"),
    (["alice/11_checklist.ipynb:not json"], "not a Jupyter notebook"),
    (["alice/12_unknown.ipynb"], "no assignment is called '12_unknown'"),
    (["11_checklist.ipynb"], "outside a student's folder"),
    (["alice/answers.txt:x"], "not a .ipynb file"),
    (["alice/11_checklist.ipynb:" + nbformat.writes(nbformat.v4.new_notebook(
        metadata={"otter": {"assignment_name": "09_heads"}}))],
     "the notebook of '09_heads', handed in as '11_checklist'"),
])
def test_a_folder_that_cannot_be_graded_says_what_is_wrong(tmp_path, layout, says):
    folder = tmp_path / "submissions"
    if layout is not None:
        folder.mkdir()
        for entry in layout:
            name, _, text = entry.partition(":")
            if text:
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_text(text)
            else:
                notebook(folder / name)
    with pytest.raises(SubmissionError, match=re.escape(says)):
        find_submissions(folder, CHAPTERS)


def test_no_autograder_says_to_run_make_assignment(tmp_path):
    notebook(tmp_path / "alice" / "11_checklist.ipynb")
    with pytest.raises(SubmissionError, match="run `make assignment` first"):
        find_submissions(tmp_path, {})


@pytest.mark.parametrize("source", graded_chapters(), ids=lambda p: p.stem)
def test_each_chapter_ships_its_own_key_and_the_shared_code_only(source, tmp_path):
    master = write_master(source, tmp_path)
    shipped = sorted(str(p.relative_to(master.parent / "grading"))
                     for p in (master.parent / "grading").rglob("*.py"))
    assert shipped == sorted(key_files(source)), shipped
    own = master.parent / "grading" / key_files(source)[-1]
    registered = re.findall(r'@exercise\(\s*"([\w-]+)"', own.read_text())
    assert sorted(registered) == sorted(ex.label for ex in find_exercises(source.read_text()))


def test_the_score_rows_say_missing_and_name_the_error_cells():
    marks = [Mark("bo", "11", "ex-a", 1.0, ""), Mark("al", "11", "ex-a", 0.0, "no."),
             Mark("al", "09", "ex-b", 1.0, "")]
    marks += missing_marks(marks, {"09": ["ex-b"], "11": ["ex-a"]})
    assert [(m.student, m.label, m.score) for m in marks[3:]] == [("bo", "ex-b", "missing")]
    errors = [ErrorCell("al", "11", 7, "NameError", "name 'x' is not defined", "x + 1")]
    assert score_rows(marks, ["ex-b", "ex-a"], errors) == [
        {"student": "al", "ex-b": "1", "ex-a": "0", "total": "1",
         "error cells": "11 cell 7: NameError"},
        {"student": "bo", "ex-b": "missing", "ex-a": "1", "total": "1", "error cells": ""}]


def test_an_error_cell_is_found_by_its_number_in_the_submission(tmp_path):
    v4 = nbformat.v4
    submitted = v4.new_notebook(cells=[v4.new_markdown_cell("# A"), v4.new_code_cell("x = 1"),
                                       v4.new_code_cell("y + 1\nz = 2")])
    nbformat.write(submitted, tmp_path / "11.ipynb")
    raised = v4.new_output("error", ename="NameError", evalue="name 'y' is not defined",
                           traceback=[])
    executed = v4.new_notebook(cells=[v4.new_code_cell("import otter_init"),
                                      v4.new_code_cell("x = 1"),
                                      v4.new_code_cell("y + 1\nz = 2", outputs=[raised])])
    (found,) = error_cells(Submission("al", "11", tmp_path / "11.ipynb"), executed)
    assert (found.cell, found.exception, found.begins) == (3, "NameError", "y + 1")


def test_the_feedback_reads_off_otter():
    output = ("ex-a results:\n    ex-a - 1 result:\n        Test case failed\n"
              "        AssertionError: ex-a: the count is off.\n    Hint: count again.")
    assert feedback_of(output) == "the count is off. Hint: count again."
