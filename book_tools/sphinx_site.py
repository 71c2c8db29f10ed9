"""Sphinx extension: fixes of the rendered pages that the site checks asked for.

MathJax on every page (chapter titles with math show in every page's navigation). Each
page keeps one copy of each script: Sphinx 7.4 gives inline scripts registered late
(sphinx-thebe's ``const THEBE_JS_URL``) twice, a JavaScript error on every page. The phone
drawing inside each figure's PNG (``attention_book.plotting``) is taken out into
``<name>.phone.png`` and served through ``<picture>`` to windows narrower than 600 px.
"""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

from sphinx.application import Sphinx

from attention_book.plotting import PHONE_KEY

PHONE_MEDIA = "screen and (max-width: 600px)"  # print takes the page drawing


def _key(js) -> tuple:
    """What the browser gets: the file (None and '' alike mean inline) and the attributes."""
    if not hasattr(js, "filename"):  # a plain string: a file name
        return (str(js), ())
    attributes = getattr(js, "attributes", {}) or {}
    return (str(js.filename or ""), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def dedupe_scripts(app: Sphinx, pagename: str, templatename: str, context: dict,
                   doctree) -> None:
    unique: dict[tuple, object] = {}
    for js in context.get("script_files") or []:
        unique.setdefault(_key(js), js)  # the first copy
    if unique:
        context["script_files"] = list(unique.values())


def split_phone_png(png: bytes) -> tuple[bytes, bytes | None]:
    """The page drawing without the phone drawing's chunk, and the phone drawing."""
    out, phone, at = [png[:8]], None, 8
    while at < len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        chunk = png[at:at + 12 + length]
        key, _, value = png[at + 8:at + 8 + length].partition(b"\0")
        if kind == b"tEXt" and key.decode("latin-1") == PHONE_KEY:
            phone = base64.b64decode(value)
        else:
            out.append(chunk)
        at += 12 + length
    return b"".join(out), phone


def phone_figures(app: Sphinx, exception: Exception | None) -> None:
    """Take each phone drawing out of its figure and serve it to phones."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    phones = set()
    for png in (out / "_images").glob("*.png"):
        page, phone = split_phone_png(png.read_bytes())
        if phone is not None:
            png.write_bytes(page)
            png.with_suffix(".phone.png").write_bytes(phone)
        if png.with_suffix(".phone.png").is_file():
            phones.add(png.name)
    if not phones:
        return
    img = re.compile(r'<img ([^>]*?)src="([^"]*?_images/)([^"/]+\.png)"([^>]*)>')

    def picture(m: re.Match) -> str:
        if m.group(3) not in phones:
            return m.group(0)
        phone = m.group(2) + m.group(3).removesuffix(".png") + ".phone.png"
        return (f'<picture><source media="{PHONE_MEDIA}" srcset="{phone}">'
                f"{m.group(0)}</picture>")

    for page in out.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        if "_images/" in html and "<picture><source" not in html:
            page.write_text(img.sub(picture, html), encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.set_html_assets_policy("always")  # MathJax (and friends) on every page
    app.connect("html-page-context", dedupe_scripts, priority=900)  # after the theme's
    app.connect("build-finished", phone_figures)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
