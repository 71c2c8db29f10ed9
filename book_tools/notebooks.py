"""Notebooks generated from the chapters' MyST Markdown sources (the only sources).

The tests run nbval on these notebooks; the site publishes them (with a set-up cell for
Colab and Binder, ``book_tools.cloud_cell``) in ``notebooks/``, which the publishing
workflow also pushes to the repository's ``notebooks`` branch for Colab and Binder to open;
the published ones are in plain notebook Markdown, without the solutions
(``book_tools.plain_notebook``); the assignments' student notebooks are made the same
way (``book_tools.otter_master``). Nothing generated is committed.

Usage: python -m book_tools.notebooks OUT_DIR [--cloud] [chapter.md ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import nbformat

# jupytext and the notebook writers (about 1 s to import) are imported where a notebook is
# read or written: most importers only want chapters(), e.g. each step of the publishing
# workflow that checks the site.

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
BINDER_REQUIREMENTS = """\
# Binder environment of the published notebooks: the book's package and its pinned
# dependencies, from the repository, with the CPU build of torch.
--extra-index-url https://download.pytorch.org/whl/cpu
attention-book @ git+{url}@{branch}
"""


def chapters() -> list[Path]:
    """Every chapter source: the MyST Markdown notebooks of book/ (those with code)."""
    return [p for p in sorted(BOOK.glob("*.md")) if "```{code-cell}" in p.read_text()]


def read(source: Path) -> nbformat.NotebookNode:
    import jupytext

    return jupytext.read(source, fmt="md:myst")


def generate(out_dir: Path, sources: list[Path] | None = None,
             cloud: bool = False) -> list[Path]:
    """Write one .ipynb per chapter into out_dir; return their paths. With ``cloud``, the
    notebooks to publish: plain Markdown (no MyST), no solutions, the Colab/Binder set-up
    cell."""
    import nbformat

    from book_tools.cloud_cell import add_cloud_cell, repository
    from book_tools.plain_notebook import book_context, plain_notebook

    out_dir.mkdir(parents=True, exist_ok=True)
    url, branch = repository(REPO / "_config.yml")
    written = []
    for src in sources or chapters():
        if cloud:
            nb = plain_notebook(src, book_context(src, REPO))
            add_cloud_cell(nb, url, branch)
        else:
            nb = read(src)
        path = out_dir / (src.stem + ".ipynb")
        nbformat.write(nb, path)
        written.append(path)
    if cloud:
        (out_dir / "requirements.txt").write_text(BINDER_REQUIREMENTS.format(url=url,
                                                                            branch=branch))
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("sources", nargs="*", type=Path)
    ap.add_argument("--cloud", action="store_true", help="add the Colab/Binder set-up cell")
    args = ap.parse_args(argv)
    for path in generate(args.out_dir, args.sources or None, cloud=args.cloud):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
