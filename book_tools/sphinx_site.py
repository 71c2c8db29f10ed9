r"""Sphinx extension: small fixes of the rendered pages that the site checks asked for.

MathJax is loaded on every page, not only on pages with math in their body: chapter
titles with math (``# Why not just $XX^\top$``) appear in the navigation of every page,
and without MathJax they show as raw ``\(XX^\top\)`` there.

Inline scripts registered after the HTML builder started (sphinx-thebe's configuration,
sphinx-togglebutton's selector) reach every page twice under Sphinx 7.4, once through the
registry (file name '') and once directly (file name None). The second copy of
``const THEBE_JS_URL = ...`` is a JavaScript error on every page ("Identifier has already
been declared"). Each page keeps the first copy of every script here.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def _key(js) -> tuple:
    """What the browser gets: the file (None and '' alike mean inline) and the attributes."""
    if not hasattr(js, "filename"):  # a plain string: a file name
        return (str(js), ())
    attributes = getattr(js, "attributes", {}) or {}
    return (str(js.filename or ""), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def dedupe_scripts(app: Sphinx, pagename: str, templatename: str, context: dict,
                   doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for js in scripts:
        if (key := _key(js)) not in seen:
            seen.add(key)
            unique.append(js)
    context["script_files"] = unique


def setup(app: Sphinx) -> dict:
    app.set_html_assets_policy("always")  # MathJax (and friends) on every page
    app.connect("html-page-context", dedupe_scripts, priority=900)  # after the theme's
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
