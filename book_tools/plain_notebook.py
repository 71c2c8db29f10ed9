"""A chapter as a notebook that reads right outside the site (Colab, Binder, a download):
each solution replaced by a link to it on the site, where it stays folded; Markdown made
plain (``book_tools.myst_to_markdown``); the references it cites in a last cell."""

from __future__ import annotations

import functools
from pathlib import Path

import jupytext
import nbformat

from book_tools.cloud_cell import site_url
from book_tools.myst_index import citations, page_titles, targets
from book_tools.myst_to_markdown import Context, convert, reference_list
from book_tools.solutions import find_solutions


def without_solutions(text: str, page_url: str) -> str:
    """The MyST source with each solution replaced by a link to it on the site."""
    lines = text.splitlines(keepends=True)
    for sol in reversed(find_solutions(text)):
        lines[sol.start:sol.end] = [
            "*The solution of this exercise is on the book's site, folded under the "
            f"exercise: [open it]({page_url}#{sol.label}).*\n"]
    return "".join(lines)


def book_context(source: Path, repo: Path) -> Context:
    """What converting ``source`` needs to know about the book in ``repo``."""
    found, titles, cites = _book_index(repo, _sources_stamp(repo))
    # (the address is read each time: the publishing workflow's repository can change it)
    return Context(site=site_url(repo / "_config.yml"), page=source.stem, source=source,
                   targets=found, titles=titles, citations=cites)


def _sources_stamp(repo: Path) -> tuple:
    files = [repo / "references.bib", *sorted((repo / "book").glob("*.md"))]
    return tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)


@functools.lru_cache(maxsize=4)
def _book_index(repo: Path, stamp: tuple) -> tuple:
    """The book-wide part of a context (every page's labels and titles, the formatted
    references: seconds of parsing), parsed once while the sources are unchanged."""
    book = repo / "book"
    return targets(book), page_titles(book), citations(repo / "references.bib")


def plain_cells(cells: list, ctx: Context) -> list[nbformat.NotebookNode]:
    """The cells with their Markdown made plain (``book_tools.myst_to_markdown``), empty
    cells dropped."""
    for cell in cells:
        if cell.cell_type == "markdown":
            cell.source = convert(cell.source, ctx).strip("\n")
    return [c for c in cells if c.source.strip()]


def plain_notebook(source: Path, ctx: Context) -> nbformat.NotebookNode:
    """The chapter ``source`` as a notebook of plain Markdown and code, without solutions."""
    nb = jupytext.reads(without_solutions(source.read_text(), ctx.page_url(ctx.page)),
                        fmt="md:myst")
    nb.cells = plain_cells(nb.cells, ctx)
    if refs := reference_list(ctx):
        nb.cells.append(nbformat.v4.new_markdown_cell(refs.strip("\n")))
    return nb
