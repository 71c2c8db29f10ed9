"""``make grade SUBMISSIONS=DIR``: grade submitted notebooks offline, into a score table.

The submissions are laid out one folder per student, each notebook named as it was handed
out (``make assignment``'s ``<chapter>/student/<chapter>.ipynb``)::

    DIR/alice/11_checklist.ipynb
    DIR/alice/09_heads.ipynb
    DIR/bob/11_checklist.ipynb

Each notebook is run and graded by ``otter run`` against its chapter's autograder zip, in
this Python environment (no Docker), two at a time. The table has one row per student, one
column per exercise of the chapters submitted (1 or 0; empty where that student submitted
no notebook for the chapter) and the total; it is written to ``OUT/scores.csv`` and
printed. ``OUT/feedback.csv`` holds each exercise's feedback (what the key said).
Everything is checked before anything is graded: a missing or empty DIR, a file outside a
student's folder, a notebook that is not a notebook, names no assignment or is another
assignment's notebook are errors that say what to do.

Usage: python -m book_tools.grade DIR [--assignments _build/assignment] [--out _build/grades]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
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
    score: float
    feedback: str


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


def run_otter(submissions: list[Submission], zips: dict[str, Path], jobs: int = 2
              ) -> list[Mark]:
    """Grade each notebook with ``otter run`` against its chapter's autograder, ``jobs`` at a
    time, each in a process of its own with a ledger of its own."""
    from otter.run import main as otter_run

    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        outs = [Path(tmp) / str(i) for i in range(len(submissions))]
        calls = []
        for sub, out in zip(submissions, outs, strict=True):
            out.mkdir()
            calls.append(Call(otter_run, (str(sub.notebook),),
                              {"autograder": str(zips[sub.chapter]), "output_dir": str(out)},
                              {"ATTENTION_BOOK_LEDGER_DIR": str(out / "ledger")},
                              out / "otter.log"))
        statuses = run_forked(calls, jobs)
        return [m for sub, out, status in zip(submissions, outs, statuses, strict=True)
                for m in marks_of(sub, out, status)]


def columns(chapters: list[str]) -> list[str]:
    """The exercises of these chapters, in the book's order."""
    labels = []
    for chapter in sorted(chapters):
        labels += [ex.label for ex in find_exercises((REPO / "book" / f"{chapter}.md")
                                                     .read_text())]
    return labels


def score_rows(marks: list[Mark], labels: list[str]) -> list[dict[str, str]]:
    """One row per student: a score per exercise ("" where not submitted) and the total."""
    rows = []
    for student in sorted({m.student for m in marks}):
        got = {m.label: m.score for m in marks if m.student == student}
        row = {"student": student}
        row.update({label: (f"{got[label]:g}" if label in got else "") for label in labels})
        row["total"] = f"{sum(got.values()):g}"
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
    marks = run_otter(submissions, zips, jobs)
    labels = columns(sorted({s.chapter for s in submissions}))
    rows = score_rows(marks, labels)
    write_csv(out / "scores.csv", rows, ["student", *labels, "total"])
    write_csv(out / "feedback.csv",
              [{"student": m.student, "chapter": m.chapter, "exercise": m.label,
                "score": f"{m.score:g}", "feedback": m.feedback} for m in marks],
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
