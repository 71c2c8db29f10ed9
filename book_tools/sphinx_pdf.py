"""Sphinx extension for the PDF's single-page build (``book_tools.pdf``), listed in
``_config.yml`` so that that build shares the site's configuration and environment: lets
the single-page HTML builder write every node the HTML builder writes (a no-op for every
other builder).

Some extensions register their nodes' HTML writers for the ``html`` builder alone (MyST-NB's
``HideCodeCellNode`` for folded code cells, sphinx-jupyterbook-latex's ``HiddenCellNode``);
``singlehtml`` then stops with "unknown node type". The single page is HTML too, so each
writer the ``html`` builder has is given to ``singlehtml`` where it has none.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def share_html_writers(app: Sphinx) -> None:
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node, writers in handlers.get("html", {}).items():
        single.setdefault(node, writers)


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", share_html_writers)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
