"""Notebooks generated from the chapters' MyST Markdown sources (the only sources).

The tests run nbval on these notebooks, Colab and Binder open them, and the student
edition is the same with the solutions removed. Nothing generated is committed.

Usage: python -m book_tools.notebooks OUT_DIR [chapter.md ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jupytext
import nbformat

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"


def chapters() -> list[Path]:
    """Every chapter source: the MyST Markdown notebooks of book/ (those with code)."""
    return [p for p in sorted(BOOK.glob("*.md")) if "```{code-cell}" in p.read_text()]


def read(source: Path) -> nbformat.NotebookNode:
    return jupytext.read(source, fmt="md:myst")


def generate(out_dir: Path, sources: list[Path] | None = None) -> list[Path]:
    """Write one .ipynb per chapter into out_dir; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for src in sources or chapters():
        path = out_dir / (src.stem + ".ipynb")
        nbformat.write(read(src), path)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("sources", nargs="*", type=Path)
    args = ap.parse_args(argv)
    for path in generate(args.out_dir, args.sources or None):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
