"""A chapter as a notebook that reads right outside the site: plain Markdown, no solutions.

The notebooks published for Colab, Binder and download are made here: each solution of the
chapter's source is replaced by a line that links to it on the site (where it stays,
folded), every Markdown cell goes through ``book_tools.myst_to_markdown``, and a last cell
lists the references the chapter cites.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jupytext
import nbformat

from book_tools.cloud_cell import site_url
from book_tools.myst_index import citations, page_titles, targets
from book_tools.myst_to_markdown import Context, convert, reference_list
from book_tools.solutions import find_solutions


def solution_link(label: str, url: str) -> str:
    """What takes a solution's place: a pointer to it on the site."""
    return (f"*The solution of this exercise is on the book's site, folded under the "
            f"exercise: [open it]({url}#{label}).*\n")


def without_solutions(text: str, page_url: str) -> str:
    """The MyST source with each solution replaced by a link to it on the site."""
    lines = text.splitlines(keepends=True)
    out, last = [], 0
    for sol in find_solutions(text):
        out += lines[last:sol.start]
        out.append(solution_link(sol.label, page_url))
        last = sol.end
    out += lines[last:]
    return "".join(out)


def book_context(source: Path, repo: Path) -> Context:
    """What converting ``source`` needs to know about the book in ``repo``."""
    found, titles, cites = _book_index(repo, _sources_stamp(repo))
    # (the address is read each time: the publishing workflow's repository can change it)
    return Context(site=site_url(repo / "_config.yml"), page=source.stem, source=source,
                   targets=found, titles=titles, citations=cites)


def _sources_stamp(repo: Path) -> tuple:
    """Which versions of the files the book's index is read from (a change makes a new one)."""
    files = [repo / "references.bib", *sorted((repo / "book").glob("*.md"))]
    return tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)


@functools.lru_cache(maxsize=4)
def _book_index(repo: Path, stamp: tuple) -> tuple:
    """The book-wide part of a context (every page's labels and titles, the formatted
    references: seconds of parsing), parsed once while the sources are unchanged."""
    book = repo / "book"
    return targets(book), page_titles(book), citations(repo / "references.bib")


def plain_notebook(source: Path, ctx: Context) -> nbformat.NotebookNode:
    """The chapter ``source`` as a notebook of plain Markdown and code, without solutions."""
    text = without_solutions(source.read_text(), ctx.page_url(ctx.page))
    nb = jupytext.reads(text, fmt="md:myst")
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = convert(cell.source, ctx).strip("\n")
    if refs := reference_list(ctx):
        nb.cells.append(nbformat.v4.new_markdown_cell(refs.strip("\n")))
    return nb
