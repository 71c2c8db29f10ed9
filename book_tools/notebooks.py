"""Notebooks generated from the chapters' MyST sources (nothing generated is committed): the
ones nbval runs, and with ``cloud`` the ones the site publishes for Colab, Binder and
download (``book_tools.plain_notebook``, with ``book_tools.cloud_cell``'s set-up cell).

Usage: python -m book_tools.notebooks OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import nbformat

# (jupytext and the notebook writers take about 1 s to import: most importers want only
# chapters(), e.g. each step of the publishing workflow that checks the site)
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
    """Write one .ipynb per chapter into out_dir; return their paths."""
    import nbformat

    from book_tools.cloud_cell import add_cloud_cell, repository
    from book_tools.plain_notebook import book_context, plain_notebook

    out_dir.mkdir(parents=True, exist_ok=True)
    url, branch = repository(REPO / "_config.yml")
    written = []
    for src in sources or chapters():
        nb = plain_notebook(src, book_context(src, REPO)) if cloud else read(src)
        if cloud:
            add_cloud_cell(nb, url, branch)
        written.append(out_dir / (src.stem + ".ipynb"))
        nbformat.write(nb, written[-1])
    if cloud:
        (out_dir / "requirements.txt").write_text(BINDER_REQUIREMENTS.format(url=url,
                                                                            branch=branch))
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.rsplit("\n\n", 1)[-1].strip())
    generate(Path(sys.argv[1]))
