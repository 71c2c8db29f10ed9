"""``make grade SUBMISSIONS=DIR``: grade submitted notebooks offline, into a score table.

The submissions are laid out ``DIR/<student>/<chapter>.ipynb``, each notebook named as it
was handed out. Each is run and graded by ``otter run`` against its chapter's autograder
zip, in this Python environment (no Docker), two at a time, into ``OUT/``:

- ``scores.csv`` (also printed): one row per student; per exercise of the chapters anyone
  submitted 1, 0 or "missing" (no notebook for that chapter); the total; the error cells
  (each submitted cell that raised when the notebook ran: chapter, number, exception);
- ``feedback.csv``: what the key said per exercise, or "missing"; each error's message;
- ``executed/<student>/<chapter>.ipynb``: each notebook as it ran, outputs included.

A missing or empty DIR, a file outside a student's folder, a notebook that is not one,
names no assignment or is another assignment's notebook stop the grading first, with what
to do.

Usage: python -m book_tools.grade DIR [--assignments _build/assignment] [--out _build/grades]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

from book_tools.forked_calls import Call, run_forked, tail
from book_tools.notebooks import REPO
from book_tools.solutions import find_exercises

LAYOUT = "DIR/<student>/<chapter>.ipynb, e.g. DIR/alice/11_checklist.ipynb"


class SubmissionError(SystemExit):
    """What is wrong with the submissions folder, and what to do (stops the grading)."""

    def __init__(self, problems: list[str]):
        super().__init__("cannot grade:\n  " + "\n  ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Submission:
    student: str
    chapter: str
    notebook: Path


@dataclass(frozen=True)
class Mark:
    student: str
    chapter: str
    label: str
    score: float | str   # the points, or MISSING
    feedback: str


@dataclass(frozen=True)
class ErrorCell:
    student: str
    chapter: str
    cell: int            # its number in the submitted notebook, from 1
    exception: str
    message: str
    begins: str          # the cell's first line

    def __str__(self) -> str:
        return f"{self.chapter} cell {self.cell}: {self.exception}"


MISSING = "missing"
EXECUTED = "executed.ipynb"


def autograders(assignments: Path) -> dict[str, Path]:
    """Each chapter's autograder zip (the newest, if ``make assignment`` ran twice)."""
    found = {}
    for folder in sorted(assignments.glob("*/autograder")):
        zips = sorted(folder.glob("*-autograder_*.zip"))
        if zips:
            found[folder.parent.name] = zips[-1]
    return found


def _readable(path: Path) -> str | None:
    """What makes the file unfit to grade as its chapter's notebook, if anything."""
    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
    except Exception as e:  # nbformat raises JSON, validation and reader errors alike
        return f"{path}: not a Jupyter notebook ({type(e).__name__}); hand in the .ipynb file"
    handed_out = nb.metadata.get("otter", {}).get("assignment_name", path.stem)
    if handed_out != path.stem:
        return (f"{path}: this is the notebook of {handed_out!r}, handed in as "
                f"{path.stem!r}; name it {handed_out}.ipynb")
    return None


def find_submissions(folder: Path, chapters: dict[str, Path]) -> list[Submission]:
    """Every submission in ``folder``; a SubmissionError lists whatever does not fit."""
    if not folder.is_dir():
        raise SubmissionError([f"{folder}: no such folder; collect the notebooks as {LAYOUT}"])
    if not chapters:
        raise SubmissionError(["no autograder found: run `make assignment` first"])
    problems, found = [], []
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        if not path.is_dir():
            problems.append(f"{path}: outside a student's folder; the layout is {LAYOUT}")
            continue
        for notebook in sorted(path.iterdir()):
            if notebook.name.startswith(".") or notebook.is_dir():
                continue
            if notebook.suffix != ".ipynb":
                problems.append(f"{notebook}: not a .ipynb file; the layout is {LAYOUT}")
            elif notebook.stem not in chapters:
                problems.append(f"{notebook}: no assignment is called {notebook.stem!r}; "
                                f"name it after one of {', '.join(sorted(chapters))}")
            elif (problem := _readable(notebook)) is not None:
                problems.append(problem)
            else:
                found.append(Submission(path.name, notebook.stem, notebook))
    if problems:
        raise SubmissionError(problems)
    if not found:
        raise SubmissionError([f"{folder}: no submitted notebook; the layout is {LAYOUT}"])
    return found


def feedback_of(output: str) -> str:
    """The key's message in an otter test's output ("" when it passed)."""
    found = re.search(r"AssertionError: (?:[\w-]+: )?(.*)", output, re.DOTALL)
    if found:
        return " ".join(found.group(1).split())
    if "passed" in output and "failed" not in output:
        return ""
    return " ".join(output.split())[-500:]


def marks_of(sub: Submission, out: Path, status: int) -> list[Mark]:
    """One mark per exercise of the chapter, from the results ``otter run`` wrote."""
    results = out / "results.json"
    if status != 0 or not results.is_file():
        raise RuntimeError(f"{sub.notebook}: otter run failed:\n"
                           f"{tail(out / 'otter.log', 2000)}")
    tests = json.loads(results.read_text())["tests"]
    return [Mark(sub.student, sub.chapter, t["name"], float(t["score"]),
                 feedback_of(t.get("output", "")))
            for t in tests if "score" in t and "max_score" in t]


def error_cells(sub: Submission, executed: nbformat.NotebookNode) -> list[ErrorCell]:
    """The submitted cells that raised when otter ran the notebook (otter's own cells, which
    it adds, are not the student's)."""
    numbers = {c.source: i for i, c in enumerate(nbformat.read(sub.notebook, 4).cells, 1)
               if c.cell_type == "code"}
    found = []
    for cell in executed.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "error" and cell.source in numbers:
                found.append(ErrorCell(sub.student, sub.chapter, numbers[cell.source],
                                       out.ename, out.evalue,
                                       cell.source.strip().split("\n")[0]))
    return found


def grade_one(notebook: str, autograder: str, out: str) -> None:
    """``otter run`` on one notebook, keeping the notebook as it ran (results.json is
    otter's; the executed notebook is where a cell's exception shows)."""
    from otter.run import main as otter_run

    results = otter_run(notebook, autograder=autograder, output_dir=out)
    nbformat.write(results.notebook, Path(out) / EXECUTED)


def run_otter(submissions: list[Submission], zips: dict[str, Path], executed: Path,
              jobs: int = 2) -> tuple[list[Mark], list[ErrorCell]]:
    """Grade each notebook with ``otter run`` against its chapter's autograder, ``jobs`` at a
    time, each in a process of its own whose ledger records go to a folder that is then
    deleted: the marks, and the cells that raised. Each notebook as it ran is kept as
    ``executed/<student>/<chapter>.ipynb``."""
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        outs = [Path(tmp) / str(i) for i in range(len(submissions))]
        calls = []
        for sub, out in zip(submissions, outs, strict=True):
            out.mkdir()
            calls.append(Call(grade_one, (str(sub.notebook), str(zips[sub.chapter]), str(out)),
                              env={"ATTENTION_BOOK_LEDGER_DIR": str(out / "ledger")},
                              log=out / "otter.log"))
        statuses = run_forked(calls, jobs)
        marks = [m for sub, out, status in zip(submissions, outs, statuses, strict=True)
                 for m in marks_of(sub, out, status)]
        errors = []
        for sub, out in zip(submissions, outs, strict=True):
            (executed / sub.student).mkdir(parents=True, exist_ok=True)
            ran = shutil.copy(out / EXECUTED, executed / sub.student / sub.notebook.name)
            errors += error_cells(sub, nbformat.read(ran, 4))
        return marks, errors


def exercises_of(chapters: set[str]) -> dict[str, list[str]]:
    """The exercises of these chapters, in the book's order."""
    return {chapter: [ex.label for ex in find_exercises((REPO / "book" / f"{chapter}.md")
                                                        .read_text())]
            for chapter in sorted(chapters)}


def missing_marks(marks: list[Mark], chapters: dict[str, list[str]]) -> list[Mark]:
    """A "missing" mark for each exercise of a chapter a student submitted no notebook for
    (``chapters``: the exercises of each chapter someone submitted)."""
    handed_in = {(m.student, m.chapter) for m in marks}
    return [Mark(student, chapter, label, MISSING, f"{MISSING}: no notebook {chapter}.ipynb "
                 "was submitted")
            for student in sorted({m.student for m in marks})
            for chapter, labels in chapters.items() if (student, chapter) not in handed_in
            for label in labels]


def score_rows(marks: list[Mark], labels: list[str], errors: list[ErrorCell]
               ) -> list[dict[str, str]]:
    """One row per student: a score per exercise ("missing" where the chapter was not
    submitted), the total and the error cells."""
    rows = []
    for student in sorted({m.student for m in marks}):
        got = {m.label: m.score for m in marks if m.student == student}
        row = {"student": student}
        row.update({label: (f"{got[label]:g}" if isinstance(got[label], float)
                            else got[label]) for label in labels})
        row["total"] = f"{sum(v for v in got.values() if isinstance(v, float)):g}"
        row["error cells"] = "; ".join(str(e) for e in errors if e.student == student)
        rows.append(row)
    return rows


def write_csv(path: Path, rows: list[dict[str, str]], header: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)


def text_table(rows: list[dict[str, str]], header: list[str]) -> str:
    widths = [max(len(h), *(len(r[h]) for r in rows)) for h in header]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines += ["  ".join(r[h].ljust(w) for h, w in zip(header, widths, strict=True))
              for r in rows]
    return "\n".join(lines)


def grade(folder: Path, assignments: Path, out: Path, jobs: int = 2) -> list[dict[str, str]]:
    """Grade every submission in ``folder``; write scores.csv and feedback.csv in ``out``."""
    zips = autograders(assignments)
    submissions = find_submissions(folder, zips)
    shutil.rmtree(out / "executed", ignore_errors=True)
    marks, errors = run_otter(submissions, zips, out / "executed", jobs)
    chapters = exercises_of({s.chapter for s in submissions})
    marks += missing_marks(marks, chapters)
    labels = [label for labels in chapters.values() for label in labels]
    rows = score_rows(marks, labels, errors)
    write_csv(out / "scores.csv", rows, ["student", *labels, "total", "error cells"])
    feedback = [{"student": m.student, "chapter": m.chapter, "exercise": m.label,
                 "score": m.score if m.score == MISSING else f"{m.score:g}",
                 "feedback": m.feedback} for m in marks]
    feedback += [{"student": e.student, "chapter": e.chapter, "exercise": "",
                  "score": "", "feedback": f"cell {e.cell} raised {e.exception}: "
                                           f"{e.message} (the cell begins: {e.begins})"}
                 for e in errors]
    feedback.sort(key=lambda r: (r["student"], r["chapter"]))
    write_csv(out / "feedback.csv", feedback,
              ["student", "chapter", "exercise", "score", "feedback"])
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("submissions", type=Path)
    ap.add_argument("--assignments", type=Path, default=REPO / "_build" / "assignment")
    ap.add_argument("--out", type=Path, default=REPO / "_build" / "grades")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    rows = grade(args.submissions, args.assignments, args.out, args.jobs)
    header = list(rows[0])
    print(text_table(rows, header))
    print(f"\n{len(rows)} students; scores in {args.out / 'scores.csv'}, feedback in "
          f"{args.out / 'feedback.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
