"""Sphinx extension for the head atlas (book/atlas.md): the ``head-atlas`` directive places
the atlas computed from the weights (``attention_book.head_atlas``) as Bokeh widgets and,
for print, a static overview (``book_tools.atlas_page``), read again at every build (Sphinx
sees none of what it is computed from). ``heads.json`` is written beside the page and BokehJS
copied into ``_static/atlas`` (no CDN); every other page's mentions of heads ("head 5.5",
"heads 0.1, 0.10 and 3.0") link to ``atlas.html#head-L.H``."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

ATLAS_DOC = "book/atlas"
BOKEH_FILES = ("bokeh.min.js", "bokeh-widgets.min.js")
# "head 5.5", "heads 0.1, 0.10 and 3.0", "heads 2.2 and 4.11": the word, then names.
MENTION = re.compile(r"\b[Hh]eads?\s+\d{1,2}\.\d{1,2}(?:(?:\s*,\s*|\s+and\s+|\s+or\s+)"
                     r"\d{1,2}\.\d{1,2})*")
NAME = re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})(?![\d.])")


def mention_spans(text: str, n_layer: int = 12, n_head: int = 12
                  ) -> list[tuple[int, int, str]]:
    """(start, end, "L.H") of every head name inside a head mention of ``text``."""
    spans = []
    for m in MENTION.finditer(text):
        for n in NAME.finditer(m.group()):
            layer, head = int(n.group(1)), int(n.group(2))
            if layer < n_layer and head < n_head:
                spans.append((m.start() + n.start(), m.start() + n.end(), f"{layer}.{head}"))
    return spans


def link_text(text: str, uri: str) -> list[nodes.Node]:
    """``text`` as Text and reference nodes, each head name linked to uri#head-L.H."""
    out, last = [], 0
    for start, end, name in mention_spans(text):
        out.append(nodes.Text(text[last:start]))
        ref = nodes.reference(name, name, refuri=f"{uri}#head-{name}",
                              classes=["atlas-head-link"])
        out.append(ref)
        last = end
    out.append(nodes.Text(text[last:]))
    return [n for n in out if not (isinstance(n, nodes.Text) and not str(n))]


SKIP = (nodes.literal_block, nodes.literal, nodes.reference, nodes.math, nodes.math_block,
        nodes.raw, nodes.title, nodes.FixedTextElement)


def link_mentions(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if docname == ATLAS_DOC or app.builder.format != "html":
        return
    uri = app.builder.get_relative_uri(docname, ATLAS_DOC)
    skipped = {id(t) for n in doctree.findall(lambda n: isinstance(n, SKIP))
               for t in n.findall(nodes.Text)}
    for text in list(doctree.findall(nodes.Text)):
        if id(text) not in skipped and mention_spans(str(text)):
            text.parent.replace(text, link_text(str(text), uri))


class HeadAtlas(SphinxDirective):
    """The interactive atlas, and its print overview."""

    def run(self) -> list[nodes.Node]:
        from attention_book.head_atlas import compute_atlas
        from book_tools.atlas_page import interactive_html, overview_png

        atlas = compute_atlas()
        self.env.atlas_json = json.dumps(atlas, ensure_ascii=False)
        script, div = interactive_html(atlas)
        png = base64.b64encode(overview_png(atlas)).decode()
        about = atlas["about"]
        # one target per head, so that every chapter's link to "#head-L.H" resolves
        targets = "".join(f'<span id="head-{name}"></span>' for name in atlas["heads"])
        html = (f'<div class="atlas-targets">{targets}</div>'
                f'<div class="atlas-interactive">{div}{script}</div>'
                f'<figure class="atlas-print"><img alt="Small multiples of all 144 heads: '
                f'negative mass share, antisymmetric share, share breaking the self-score '
                f'bound and median K-V principal angle, GPT-2 beside the control" '
                f'src="data:image/png;base64,{png}"/><figcaption>All 144 heads, GPT-2 small '
                f'(left) and the random-init control (right). Computed by the build in '
                f'{about["seconds"]} s.</figcaption></figure>'
                f'<p class="atlas-timing">The build computed this atlas in '
                f'{about["seconds"]} s. Example rows: {about["example_rows"]}.</p>')
        return [nodes.raw("", html, format="html")]


def always_reread(app: Sphinx, env, added, changed, removed) -> list[str]:
    return [ATLAS_DOC] if ATLAS_DOC in env.found_docs else []


def add_bokeh(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if pagename == ATLAS_DOC:
        app.add_css_file("atlas.css")
        for name in BOKEH_FILES:
            app.add_js_file(f"atlas/{name}")


def write_files(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import bokeh
    static = Path(app.outdir) / "_static" / "atlas"
    static.mkdir(parents=True, exist_ok=True)
    js = Path(bokeh.__file__).parent / "server" / "static" / "js"
    for name in BOKEH_FILES:
        shutil.copy2(js / name, static / name)
    data = getattr(app.env, "atlas_json", None)
    if data is not None:
        target = Path(app.outdir) / Path(ATLAS_DOC).parent / "heads.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(data)


def setup(app: Sphinx) -> dict:
    app.add_directive("head-atlas", HeadAtlas)
    app.connect("env-get-outdated", always_reread)
    app.connect("doctree-resolved", link_mentions)
    app.connect("html-page-context", add_bokeh)
    app.connect("build-finished", write_files)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
