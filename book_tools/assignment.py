"""``make assignment``: one otter-grader assignment per chapter with exercises.

For each chapter, ``book_tools.otter_master`` writes an otter master notebook from the
chapter's MyST source, beside a copy of the chapter's answer key (from the top-level
``grading/`` folder, which the book's package does not contain: the shared grading code
and ``keys/ch<NN>.py``, the chapter's key module only), and ``otter assign`` turns it into

    OUT/<chapter>/student/<chapter>.ipynb      the student's notebook: no solution, no key
    OUT/<chapter>/autograder/<chapter>-autograder_<time>.zip
                                               the autograder: hidden tests and the key

``otter assign`` also runs the chapter with its solutions through the key (``run_tests``):
an assignment whose own solutions the key refuses is not written. ``OUT/README.md`` tells
teachers and students what is where.

Usage: python -m book_tools.assignment OUT_DIR [--chapter NAME ...] [--no-run-tests]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat

from book_tools.forked_calls import Call, run_forked, tail
from book_tools.notebooks import REPO, chapters
from book_tools.otter_master import GRADING_FOLDER, master_notebook
from book_tools.plain_notebook import book_context
from book_tools.solutions import find_exercises

MASTERS = "masters"  # OUT/masters/<chapter>/: the master notebooks, the key beside each
SHARED_KEY_CODE = ("__init__.py", "registry.py", "tolerance.py", "keys/__init__.py")


def graded_chapters(names: list[str] | None = None) -> list[Path]:
    """The chapters with exercises, all of them or those named (by stem, e.g. 11_checklist,
    or by number prefix, e.g. 11)."""
    found = [src for src in chapters() if find_exercises(src.read_text())]
    if not names:
        return found
    chosen = []
    for name in names:
        match = [src for src in found if src.stem == name or src.stem.split("_")[0] == name]
        if len(match) != 1:
            raise SystemExit(f"no chapter with exercises is called {name!r}; the chapters are "
                             f"{', '.join(src.stem for src in found)}")
        chosen += match
    return chosen


def key_files(source: Path) -> list[str]:
    """What the chapter's autograder needs of ``grading/``: the shared code and the
    chapter's key module, ``keys/ch<number>.py`` (``keys/ch08b.py`` for 08b_cache_budget)."""
    own = f"keys/ch{source.stem.split('_')[0]}.py"
    if not (REPO / GRADING_FOLDER / own).is_file():
        raise SystemExit(f"{source.name} has exercises but no answer key: write "
                         f"{GRADING_FOLDER}/{own}")
    return [*SHARED_KEY_CODE, own]


def write_master(source: Path, masters: Path) -> Path:
    """The chapter's master notebook and a copy of its answer key, in masters/<chapter>/."""
    folder = masters / source.stem
    if folder.exists():
        shutil.rmtree(folder)
    for name in key_files(source):
        (folder / GRADING_FOLDER / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / GRADING_FOLDER / name, folder / GRADING_FOLDER / name)
    path = folder / f"{source.stem}.ipynb"
    nbformat.write(master_notebook(source, book_context(source, REPO)), path)
    return path


def otter_assign(masters: list[Path], out: Path, run_tests: bool, jobs: int = 2
                 ) -> list[str]:
    """Run ``otter assign`` on each master into ``out/<chapter>``, ``jobs`` at a time, each
    in a process of its own with a ledger of its own; what each failed one said."""
    from otter.assign import main as assign

    with tempfile.TemporaryDirectory(prefix="assignment-") as tmp:
        calls = []
        for i, master in enumerate(masters):
            result = out / master.stem
            if result.exists():
                shutil.rmtree(result)
            calls.append(Call(assign, (str(master), str(result)),
                              {"no_run_tests": not run_tests},
                              {"ATTENTION_BOOK_LEDGER_DIR": str(Path(tmp) / f"ledger-{i}")},
                              Path(tmp) / f"{i}.log"))
        statuses = run_forked(calls, jobs)
        return [f"{master.stem}: otter assign failed:\n{tail(call.log, 3000)}"
                for master, call, status in zip(masters, calls, statuses, strict=True)
                if status != 0]


README = """\
# Assignments: one per chapter with exercises (otter-grader)

Made by `make assignment` from the book's sources; every exercise is worth one point.

    <chapter>/student/<chapter>.ipynb    hand this to the students
    <chapter>/autograder/*.zip           keep this: the hidden tests and the answer key
    masters/<chapter>/                   otter's master notebook (with the solutions) and
                                         the key: what the two above were made from

## For students

Open your chapter's notebook in the book's environment (a clone of the repository, after
`make book` or `make lab` has set up `.venv`): `.venv/bin/jupyter lab <chapter>.ipynb`.
Each exercise ends in an answer cell:

```python
answer_h1_medium = None   # replace None by your answer, in the form the exercise asks for
exercises.check("ex-h1-medium", answer_h1_medium)
```

`exercises.check` answers at once: "not in the form asked for" (a tuple of three integers,
an array of shape [12, 12], ...), "a known mistake" with what your answer shows and a hint
(the mistakes the book knows students make in that exercise), or "answer received". It
does not know the answers: "answer received" is said to right answers and to mistakes it
does not know, and your marks come from your teacher's grader, whose feedback names the
same mistakes with the same hints. `exercises.hint("ex-h1-medium")` gives an exercise's
hint. Work in as many new cells as you like above the answer cell, run the notebook from
the top, save it and hand it in.

## For teachers

Collect the submitted notebooks as `SUBMISSIONS/<student>/<chapter>.ipynb` (one folder
per student, each notebook named as handed out, e.g. `alice/11_checklist.ipynb`) and run

```bash
make grade SUBMISSIONS=SUBMISSIONS
```

Each notebook is run and graded offline by `otter run` against its chapter's autograder
zip (no Docker). The scores, one row per student and one column per exercise ("missing"
for a chapter the student handed in no notebook for), the total and the error cells (each
cell that raised when the notebook ran, with its exception), go to
`_build/grades/scores.csv` (for a gradebook); each exercise's feedback and each error
cell's message to `_build/grades/feedback.csv`. The book's site shows every solution,
folded under its exercise: do not point students at it while an assignment is open.

## Exercises

{table}
"""


def exercise_table(sources: list[Path]) -> str:
    rows = ["| chapter | exercise | label |", "|---|---|---|"]
    for src in sources:
        for ex in find_exercises(src.read_text()):
            rows.append(f"| `{src.stem}` | {ex.title} | `{ex.label}` |")
    return "\n".join(rows)


def generate(out: Path, sources: list[Path], run_tests: bool = True, jobs: int = 2
             ) -> list[str]:
    """Write the assignments of ``sources`` into ``out``; return the failures."""
    masters = [write_master(src, out / MASTERS) for src in sources]
    failures = otter_assign(masters, out, run_tests, jobs)
    (out / "README.md").write_text(README.format(table=exercise_table(sources)))
    return failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--chapter", action="append", help="only this chapter (repeatable)")
    ap.add_argument("--no-run-tests", action="store_true",
                    help="skip running the chapter's own solutions through the key")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    sources = graded_chapters(args.chapter)
    failures = generate(args.out_dir, sources, not args.no_run_tests, args.jobs)
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{len(sources) - len(failures)} of {len(sources)} assignments in {args.out_dir}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
