"""The student edition: every chapter as a notebook with the solutions removed.

A solution in a chapter's MyST source is everything from a ```` ```{solution-start} <label> ````
directive to its ```` ```{solution-end} ```` (or the body of a one-piece ```` ```{solution} ````
directive). The student edition replaces each with one code cell that shows how to check an
answer, ``exercises.check("<label>", your_answer)``, and writes a README beside the notebooks.
The book's site keeps the solutions, folded (``:class: dropdown``).

Usage: python -m book_tools.student OUT_DIR [--execute]

``--execute`` then runs every student notebook in order with nbclient, as a student would
(the ledger records go to a temporary folder, not to the book's ``_build/ledger``), and fails
when a chapter does not run without its solutions or a checking cell does not answer the
empty answer with "not yet". The notebooks on disk stay without outputs.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import jupytext
import nbformat

from book_tools.notebooks import REPO, chapters
from book_tools.solutions import (  # noqa: F401  (re-exported for the tests)
    EXERCISE_TITLE,
    OPENING,
    ExerciseInfo,
    Solution,
    find_exercises,
    find_solutions,
)


def check_cell(label: str) -> str:
    """The code cell, in MyST, that takes a removed solution's place."""
    return (
        "```{code-cell}\n"
        f"# Exercise {label}: work it out in new cells above this one, put your\n"
        "# answer in your_answer (in the form the exercise asks for) and run this\n"
        "# cell. A wrong answer gets what is wrong and a hint, never the answer.\n"
        "from attention_book import exercises\n"
        "\n"
        "your_answer = None\n"
        f'exercises.check("{label}", your_answer)\n'
        "```\n")


def strip_solutions(text: str) -> str:
    """The MyST document with each solution replaced by its checking cell."""
    lines = text.splitlines(keepends=True)
    out, last = [], 0
    for sol in find_solutions(text):
        out += lines[last:sol.start]
        out.append(check_cell(sol.label))
        last = sol.end
    out += lines[last:]
    return "".join(out)


def student_notebook(source: Path) -> nbformat.NotebookNode:
    """A chapter as the student edition's notebook."""
    nb = jupytext.reads(strip_solutions(source.read_text()), fmt="md:myst")
    nb.metadata.setdefault("attention_book", {})["edition"] = "student"
    return nb


README = """\
# The four matrices of attention: student edition

Every chapter of the book as a Jupyter notebook, with the exercises' solutions removed.
Where a solution was, a code cell shows how to check your answer:

```python
from attention_book import exercises

your_answer = None   # replace None by your answer, in the form the exercise asks for
exercises.check("ex-l1-layer5", your_answer)
```

`exercises.check` says **correct**, or **not yet** with what is wrong and a hint. It
never shows the answer. Work in as many new cells as you like above the checking cell.

## Opening the notebooks

From a clone of the book's repository, after `make book` (or `make student`) has set up
`.venv`:

```bash
.venv/bin/jupyter lab {folder}
```

The chapters' text uses MyST Markdown (exercises, proofs, equations);
JupyterLab renders it through `jupyterlab-myst`, which the book's set-up installs. Each
notebook's first cell installs the book's code and GPT-2 small when it runs in Colab or
Binder, and does nothing locally. Run the cells of a chapter from the top: later cells
use what earlier ones computed.

## Exercises

Each exercise's title gives its difficulty (warm-up, standard or challenging) and
the time it should take.

{table}

## For teachers

This edition is generated from the same sources as the book (`make student`), so it
is always in step with the site. The site shows every solution, folded under its
exercise: hand students this folder when they should not see them. Text: CC BY 4.0;
code: MIT (see `LICENSE.md` in the repository).
"""


def exercise_table(sources: list[Path]) -> str:
    rows = ["| chapter | exercise | label |", "|---|---|---|"]
    for src in sources:
        for ex in find_exercises(src.read_text()):
            rows.append(f"| `{src.stem}.ipynb` | {ex.title or '(untitled)'} | `{ex.label}` |")
    return "\n".join(rows) if len(rows) > 2 else "(No exercise yet.)"


def generate(out_dir: Path, sources: list[Path] | None = None) -> list[Path]:
    """Write the student edition into out_dir (one notebook per chapter and a README)."""
    sources = sources or chapters()
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for src in sources:
        path = out_dir / (src.stem + ".ipynb")
        nbformat.write(student_notebook(src), path)
        written.append(path)
    try:
        folder = out_dir.resolve().relative_to(REPO)
    except ValueError:
        folder = out_dir
    (out_dir / "README.md").write_text(
        README.format(folder=folder, table=exercise_table(sources)))
    return written


def unanswered_checks(nb: nbformat.NotebookNode) -> list[str]:
    """Labels of the executed notebook's checking cells that did not show a verdict."""
    silent = []
    for cell in nb.cells:
        match = re.search(r'exercises\.check\("([^"]+)", your_answer\)', cell.source)
        if cell.cell_type != "code" or match is None:
            continue
        shown = " ".join(str(out.get("data", {}).get("text/markdown", "")) +
                         str(out.get("data", {}).get("text/plain", ""))
                         for out in cell.get("outputs", []))
        if "not yet" not in shown:
            silent.append(match.group(1))
    return silent


def execute(notebooks: list[Path], timeout: int = 600) -> list[str]:
    """Run each notebook in order, as the book's build does (from book/); return the
    failures. The chapters' ledger records go to a temporary folder."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    failures = []
    with tempfile.TemporaryDirectory(prefix="student-ledger-") as ledger:
        previous = os.environ.get("ATTENTION_BOOK_LEDGER_DIR")
        os.environ["ATTENTION_BOOK_LEDGER_DIR"] = ledger
        try:
            for path in notebooks:
                nb = nbformat.read(path, as_version=4)
                client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                        resources={"metadata": {"path": str(REPO / "book")}})
                start = time.perf_counter()
                try:
                    client.execute()
                except CellExecutionError as e:
                    failures.append(f"{path.name}: {str(e)[-1500:]}")
                    print(f"{path.name}: FAILED", file=sys.stderr)
                    continue
                silent = unanswered_checks(nb)
                failures += [f"{path.name}: the checking cell of {label} did not say "
                             "'not yet' to the empty answer" for label in silent]
                print(f"{path.name}: {'ok' if not silent else 'FAILED'} in "
                      f"{time.perf_counter() - start:.1f} s")
        finally:
            if previous is None:
                os.environ.pop("ATTENTION_BOOK_LEDGER_DIR", None)
            else:
                os.environ["ATTENTION_BOOK_LEDGER_DIR"] = previous
    return failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--execute", action="store_true",
                    help="then run every student notebook (slow: the whole book)")
    args = ap.parse_args(argv)
    written = generate(args.out_dir)
    print(f"{len(written)} notebooks and README.md in {args.out_dir}")
    if args.execute:
        failures = execute(written)
        for f in failures:
            print(f, file=sys.stderr)
        if failures:
            print(f"{len(failures)} of {len(written)} student notebooks failed",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
