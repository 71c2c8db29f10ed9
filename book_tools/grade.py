"""``make grade SUBMISSIONS=DIR``: each ``DIR/<student>/<chapter>.ipynb`` run and graded
offline by ``otter run`` against its chapter's autograder (no Docker), two at a time, into
``OUT/scores.csv`` (also printed: each exercise's 1, 0 or "missing", the total, the cells
that raised), ``OUT/feedback.csv`` (what the key said, each error's message) and
``OUT/executed/`` (each notebook as it ran). A folder laid out otherwise, or a file that is
not an assignment's notebook, stops the grading first with what to do.

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
from book_tools.notebooks import BOOK, REPO
from book_tools.solutions import find_exercises

LAYOUT = "DIR/<student>/<chapter>.ipynb, e.g. DIR/alice/11_checklist.ipynb"
MISSING = "missing"
EXECUTED = "executed.ipynb"


class SubmissionError(SystemExit):
    """What is wrong with the submissions folder, and what to do (stops the grading)."""

    def __init__(self, problems: list[str]):
        super().__init__("cannot grade:\n  " + "\n  ".join(problems))


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


def autograders(assignments: Path) -> dict[str, Path]:
    """Each chapter's autograder zip (the newest, if ``make assignment`` ran twice)."""
    return {folder.parent.name: zips[-1] for folder in sorted(assignments.glob("*/autograder"))
            if (zips := sorted(folder.glob("*-autograder_*.zip")))}


def _problem(notebook: Path, chapters: dict[str, Path]) -> str | None:
    """What makes the file unfit to grade as its chapter's notebook, if anything."""
    if notebook.suffix != ".ipynb":
        return f"{notebook}: not a .ipynb file; the layout is {LAYOUT}"
    if notebook.stem not in chapters:
        return (f"{notebook}: no assignment is called {notebook.stem!r}; name it after one of "
                f"{', '.join(sorted(chapters))}")
    try:
        nb = nbformat.read(notebook, as_version=4)
        nbformat.validate(nb)
    except Exception as e:  # nbformat raises JSON, validation and reader errors alike
        return f"{notebook}: not a Jupyter notebook ({type(e).__name__}); hand in the .ipynb file"
    handed_out = nb.metadata.get("otter", {}).get("assignment_name", notebook.stem)
    if handed_out != notebook.stem:
        return (f"{notebook}: this is the notebook of {handed_out!r}, handed in as "
                f"{notebook.stem!r}; name it {handed_out}.ipynb")
    return None


def find_submissions(folder: Path, chapters: dict[str, Path]) -> list[Submission]:
    """Every submission in ``folder``; a SubmissionError lists whatever does not fit."""
    if not folder.is_dir():
        raise SubmissionError([f"{folder}: no such folder; collect the notebooks as {LAYOUT}"])
    if not chapters:
        raise SubmissionError(["no autograder found: run `make assignment` first"])
    visible = [p for p in sorted(folder.iterdir()) if not p.name.startswith(".")]
    problems = [f"{p}: outside a student's folder; the layout is {LAYOUT}"
                for p in visible if not p.is_dir()]
    notebooks = [nb for p in visible if p.is_dir() for nb in sorted(p.iterdir())
                 if not nb.name.startswith(".") and not nb.is_dir()]
    problems += [why for nb in notebooks if (why := _problem(nb, chapters))]
    if problems or not notebooks:
        raise SubmissionError(problems or [f"{folder}: no submitted notebook; the layout is "
                                           f"{LAYOUT}"])
    return [Submission(nb.parent.name, nb.stem, nb) for nb in notebooks]


def feedback_of(output: str) -> str:
    """The key's message in an otter test's output ("" when it passed)."""
    if found := re.search(r"AssertionError: (?:[\w-]+: )?(.*)", output, re.DOTALL):
        return " ".join(found.group(1).split())
    if "passed" in output and "failed" not in output:
        return ""
    return " ".join(output.split())[-500:]


def marks_of(sub: Submission, out: Path, status: int) -> list[Mark]:
    """One mark per exercise of the chapter, from the results ``otter run`` wrote."""
    results = out / "results.json"
    if status != 0 or not results.is_file():
        raise RuntimeError(f"{sub.notebook}: otter run failed:\n{tail(out / 'otter.log', 2000)}")
    return [Mark(sub.student, sub.chapter, t["name"], float(t["score"]),
                 feedback_of(t.get("output", "")))
            for t in json.loads(results.read_text())["tests"]
            if "score" in t and "max_score" in t]


def error_cells(sub: Submission, executed: nbformat.NotebookNode) -> list[ErrorCell]:
    """The submitted cells that raised when otter ran the notebook (otter's own cells, which
    it adds, are not the student's)."""
    numbers = {c.source: i for i, c in enumerate(nbformat.read(sub.notebook, 4).cells, 1)
               if c.cell_type == "code"}
    return [ErrorCell(sub.student, sub.chapter, numbers[cell.source], out.ename, out.evalue,
                      cell.source.strip().split("\n")[0])
            for cell in executed.cells if cell.source in numbers
            for out in cell.get("outputs", []) if out.output_type == "error"]


def grade_one(notebook: str, autograder: str, out: str) -> None:
    """``otter run`` on one notebook, keeping the notebook as it ran (where a cell's
    exception shows)."""
    from otter.run import main as otter_run

    results = otter_run(notebook, autograder=autograder, output_dir=out)
    nbformat.write(results.notebook, Path(out) / EXECUTED)


def run_otter(submissions: list[Submission], zips: dict[str, Path], executed: Path
              ) -> tuple[list[Mark], list[ErrorCell]]:
    """The marks and the cells that raised, each notebook graded by ``otter run`` in a process
    of its own (two at a time, its ledger thrown away) and kept as it ran in ``executed``."""
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        outs = [Path(tmp) / str(i) for i in range(len(submissions))]
        for out in outs:
            out.mkdir()
        statuses = run_forked([Call(grade_one, (str(sub.notebook), str(zips[sub.chapter]),
                                                str(out)),
                                    env={"ATTENTION_BOOK_LEDGER_DIR": str(out / "ledger")},
                                    log=out / "otter.log")
                               for sub, out in zip(submissions, outs, strict=True)], 2)
        marks, errors = [], []
        for sub, out, status in zip(submissions, outs, statuses, strict=True):
            marks += marks_of(sub, out, status)
            (executed / sub.student).mkdir(parents=True, exist_ok=True)
            ran = shutil.copy(out / EXECUTED, executed / sub.student / sub.notebook.name)
            errors += error_cells(sub, nbformat.read(ran, 4))
        return marks, errors


def missing_marks(marks: list[Mark], chapters: dict[str, list[str]]) -> list[Mark]:
    """A "missing" mark for each exercise of a chapter a student submitted no notebook for
    (``chapters``: the exercises of each chapter someone submitted)."""
    handed_in = {(m.student, m.chapter) for m in marks}
    return [Mark(student, chapter, label, MISSING, f"{MISSING}: no notebook {chapter}.ipynb "
                 "was submitted")
            for student in sorted({m.student for m in marks})
            for chapter, labels in chapters.items() if (student, chapter) not in handed_in
            for label in labels]


def _points(score: float | str) -> str:
    return f"{score:g}" if isinstance(score, float) else score


def score_rows(marks: list[Mark], labels: list[str], errors: list[ErrorCell]
               ) -> list[dict[str, str]]:
    """One row per student: a score per exercise ("missing" where the chapter was not
    submitted), the total and the error cells."""
    rows = []
    for student in sorted({m.student for m in marks}):
        got = {m.label: m.score for m in marks if m.student == student}
        rows.append({"student": student, **{label: _points(got[label]) for label in labels},
                     "total": _points(sum(v for v in got.values() if isinstance(v, float))),
                     "error cells": "; ".join(str(e) for e in errors if e.student == student)})
    return rows


def write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def grade(folder: Path, assignments: Path, out: Path) -> list[dict[str, str]]:
    """Grade every submission in ``folder``; write scores.csv and feedback.csv in ``out``."""
    zips = autograders(assignments)
    submissions = find_submissions(folder, zips)
    shutil.rmtree(out / "executed", ignore_errors=True)
    marks, errors = run_otter(submissions, zips, out / "executed")
    chapters = {c: [ex.label for ex in find_exercises((BOOK / f"{c}.md").read_text())]
                for c in sorted({s.chapter for s in submissions})}
    marks += missing_marks(marks, chapters)
    rows = score_rows(marks, [label for labels in chapters.values() for label in labels],
                      errors)
    write_csv(out / "scores.csv", rows)
    feedback = [{"student": m.student, "chapter": m.chapter, "exercise": m.label,
                 "score": _points(m.score), "feedback": m.feedback} for m in marks]
    feedback += [{"student": e.student, "chapter": e.chapter, "exercise": "", "score": "",
                  "feedback": f"cell {e.cell} raised {e.exception}: {e.message} (the cell "
                              f"begins: {e.begins})"} for e in errors]
    write_csv(out / "feedback.csv", sorted(feedback, key=lambda r: (r["student"],
                                                                     r["chapter"])))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("submissions", type=Path)
    ap.add_argument("--assignments", type=Path, default=REPO / "_build" / "assignment")
    ap.add_argument("--out", type=Path, default=REPO / "_build" / "grades")
    args = ap.parse_args(argv)
    rows = grade(args.submissions, args.assignments, args.out)
    widths = {h: max(len(h), *(len(r[h]) for r in rows)) for h in rows[0]}
    for row in [dict(zip(widths, widths, strict=True)), *rows]:
        print("  ".join(row[h].ljust(w) for h, w in widths.items()))
    print(f"\n{len(rows)} students; scores in {args.out / 'scores.csv'}, feedback in "
          f"{args.out / 'feedback.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
