"""Sphinx extension: each chapter's "run it" line under its title (open in Colab, in Binder,
or download the notebook), and the notebooks it opens, written into the site's
``notebooks/`` folder (``book_tools.notebooks``, with the set-up cell), which the publishing
workflow pushes to the ``notebooks`` branch. Colab cannot open the MyST sources, so the
theme's launch buttons are not used."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx

from book_tools.address import repository
from book_tools.cloud_cell import launch_urls
from book_tools.notebooks import REPO, chapters, generate

NOTEBOOK_DIR = "notebooks"


def _chapter_docs() -> dict[str, str]:
    return {f"book/{p.stem}": p.stem + ".ipynb" for p in chapters()}


def add_launch_line(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    notebook = _chapter_docs().get(docname)
    if notebook is None:
        return
    url, _ = repository(REPO / "_config.yml")
    download = app.builder.get_relative_uri(docname, "index").replace("index.html", "")
    links = [f'<a class="launch-link" href="{href}">{name}</a>'
             for name, href in launch_urls(url, notebook).items()]
    links.append(f'<a class="launch-link" href="{download}{NOTEBOOK_DIR}/{notebook}" '
                 f'download>the notebook (.ipynb)</a>')
    html = ('<p class="launch-line">Run this chapter: open it in ' + ", in ".join(links[:2])
            + f", or download {links[2]}.</p>")
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is not None:
        title = next(iter(section.findall(nodes.title)))
        section.insert(section.index(title) + 1, nodes.raw("", html, format="html"))


def write_notebooks(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and app.builder.format == "html":
        generate(Path(app.outdir) / NOTEBOOK_DIR, cloud=True)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-resolved", add_launch_line)
    app.connect("build-finished", write_notebooks)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
