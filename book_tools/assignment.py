"""``make assignment``: one otter-grader assignment per chapter with exercises. Each chapter's
master notebook (``book_tools.otter_master``), beside its part of the answer key
(``grading/``: the shared code and ``keys/ch<NN>.py``), becomes through ``otter assign``
``OUT/<chapter>/student/`` (no solution, no key) and ``OUT/<chapter>/autograder/`` (the
hidden tests and the key), once the chapter's own solutions pass the key. ``OUT/README.md``
(``assignment_readme.md``) tells teachers and students what is where.

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

SHARED_KEY_CODE = ("__init__.py", "registry.py", "tolerance.py", "keys/__init__.py")
README = Path(__file__).with_name("assignment_readme.md")


def graded_chapters(names: list[str] | None = None) -> list[Path]:
    """The chapters with exercises, all of them or those named (by stem, e.g. 11_checklist,
    or by number prefix, e.g. 11)."""
    found = [src for src in chapters() if find_exercises(src.read_text())]
    chosen = [[src for src in found if name in (src.stem, src.stem.split("_")[0])]
              for name in names or []]
    if bad := [repr(n) for n, match in zip(names or [], chosen, strict=True) if len(match) != 1]:
        raise SystemExit(f"no chapter with exercises is called {', '.join(bad)}; the chapters are "
                         f"{', '.join(src.stem for src in found)}")
    return [match[0] for match in chosen] or found


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
    shutil.rmtree(folder, ignore_errors=True)
    for name in key_files(source):
        (folder / GRADING_FOLDER / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / GRADING_FOLDER / name, folder / GRADING_FOLDER / name)
    path = folder / f"{source.stem}.ipynb"
    nbformat.write(master_notebook(source, book_context(source, REPO)), path)
    return path


def otter_assign(masters: list[Path], out: Path, run_tests: bool) -> list[str]:
    """``otter assign`` on each master into ``out/<chapter>``, two at a time, each in a
    process of its own with a ledger of its own; what each failed one said."""
    from otter.assign import main as assign

    with tempfile.TemporaryDirectory(prefix="assignment-") as tmp:
        calls = []
        for i, master in enumerate(masters):
            shutil.rmtree(out / master.stem, ignore_errors=True)
            calls.append(Call(assign, (str(master), str(out / master.stem)),
                              {"no_run_tests": not run_tests},
                              {"ATTENTION_BOOK_LEDGER_DIR": f"{tmp}/ledger-{i}"},
                              Path(tmp) / f"{i}.log"))
        return [f"{master.stem}: otter assign failed:\n{tail(call.log, 3000)}"
                for master, call, status in zip(masters, calls, run_forked(calls, 2),
                                                strict=True) if status != 0]


def generate(out: Path, sources: list[Path], run_tests: bool = True) -> list[str]:
    """Write the assignments of ``sources`` into ``out``; return the failures."""
    failures = otter_assign([write_master(src, out / "masters") for src in sources], out,
                            run_tests)
    table = "\n".join(["| chapter | exercise | label |", "|---|---|---|"] + [
        f"| `{src.stem}` | {ex.title} | `{ex.label}` |"
        for src in sources for ex in find_exercises(src.read_text())])
    (out / "README.md").write_text(README.read_text().replace("{table}", table))
    return failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--chapter", action="append", help="only this chapter (repeatable)")
    ap.add_argument("--no-run-tests", action="store_true",
                    help="skip running the chapter's own solutions through the key")
    args = ap.parse_args(argv)
    sources = graded_chapters(args.chapter)
    failures = generate(args.out_dir, sources, not args.no_run_tests)
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{len(sources) - len(failures)} of {len(sources)} assignments in {args.out_dir}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
