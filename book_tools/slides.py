"""A reveal.js slide deck per chapter: nbconvert's slides of the chapter as published for
Colab (``book_tools.plain_notebook``), with the outputs of the last build (its execution
cache, ``book_tools.execute.CACHE``; nothing is executed here). Each heading and each figure starts
a slide; code and the cells hidden on the site are left out; a long slide scrolls.
reveal.js and MathJax are copied from ``node_modules`` beside the decks (offline).

Usage: python -m book_tools.slides OUT_DIR
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import nbformat
from nbconvert.exporters import SlidesExporter

from book_tools.execute import CACHE
from book_tools.notebooks import BOOK, REPO
from book_tools.plain_notebook import book_context, plain_notebook

TEMPLATES = Path(__file__).resolve().parent / "slides_template"
REVEAL = REPO / "node_modules" / "reveal.js" / "dist"
MATHJAX = REPO / "node_modules" / "mathjax" / "es5"
BADGES = REPO / "_static" / "ledger.css"
THEME = "white"  # its fonts ship with reveal.js; most other themes import Google Fonts
HIDDEN = frozenset({"remove-cell", "remove-output", "hide-cell", "hide-output"})
HEADING = re.compile(r"^(#{1,3}) ", re.MULTILINE)


def _markdown_slides(text: str) -> list[nbformat.NotebookNode]:
    """A Markdown cell cut at its headings (outside code fences), each piece a cell."""
    pieces, fenced, lines = [[]], False, text.splitlines()
    for line in lines:
        fenced ^= line.startswith("```")
        if HEADING.match(line) and not fenced and pieces[-1]:
            pieces.append([])
        pieces[-1].append(line)
    cells = []
    for piece in filter(None, pieces):
        cell = nbformat.v4.new_markdown_cell("\n".join(piece))
        level = len(m.group(1)) if (m := HEADING.match(piece[0])) else 0
        cell.metadata["slideshow"] = {"slide_type": {0: "-", 3: "subslide"}.get(level, "slide")}
        cells.append(cell)
    return cells


def deck_notebook(executed: nbformat.NotebookNode, source: Path) -> nbformat.NotebookNode:
    """The deck of the chapter ``source`` (book/NN_x.md), from its executed notebook."""
    ran: dict[str, list] = {}
    for cell in (c for c in executed.cells if c.cell_type == "code"):
        ran.setdefault(cell.source, []).append(cell)
    cells = []
    for cell in plain_notebook(source, book_context(source, REPO)).cells:
        if cell.cell_type == "markdown":
            cells += _markdown_slides(cell.source)
            continue
        done = ran[cell.source].pop(0) if ran.get(cell.source) else None
        if done is None or HIDDEN & set(done.metadata.get("tags", [])):
            continue
        mystnb = done.metadata.get("mystnb", {})
        alt = mystnb.get("image", {}).get("alt") or mystnb.get("figure", {}).get("caption")
        kept = nbformat.v4.new_code_cell("", outputs=done.outputs)
        figures = [o for o in kept.outputs if "image/png" in o.get("data", {})]
        for out in figures:
            out.setdefault("metadata", {})["image/png"] = {"alt": alt or "A figure."}
        kept.metadata["slideshow"] = {"slide_type": "subslide" if figures else "-"}
        cells.append(kept)
    return nbformat.v4.new_notebook(cells=cells)


def exporter() -> SlidesExporter:
    """nbconvert's reveal.js exporter with the book's template: scripts beside the deck."""
    return SlidesExporter(template_name="book_slides", extra_template_basedirs=[str(TEMPLATES)],
                          reveal_url_prefix="reveal.js", reveal_theme=THEME, reveal_scroll=True,
                          mathjax_url="mathjax/tex-chtml-full.js", exclude_input=True,
                          exclude_input_prompt=True, exclude_output_prompt=True,
                          exclude_anchor_links=True)


def copy_scripts(out_dir: Path) -> None:
    """reveal.js (with its theme's fonts) and MathJax (CommonHTML) beside the decks."""
    copies = {REVEAL / "reveal.js": "reveal.js/dist", REVEAL / "reveal.css": "reveal.js/dist",
              REVEAL / "theme" / f"{THEME}.css": "reveal.js/dist/theme",
              REVEAL / "theme" / "fonts" / "source-sans-pro": "reveal.js/dist/theme/fonts",
              MATHJAX / "tex-chtml-full.js": "mathjax",
              MATHJAX / "output" / "chtml" / "fonts" / "woff-v2": "mathjax/output/chtml/fonts"}
    for source, target in copies.items():
        if not source.exists():
            raise FileNotFoundError(f"{source} is missing: install the pinned JavaScript with "
                                    "npm ci (make slides does)")
        (out_dir / target).mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, out_dir / target / source.name, dirs_exist_ok=True)
        else:
            shutil.copy2(source, out_dir / target)


def executed_chapter(cache, source: Path) -> nbformat.NotebookNode | None:
    """The build's execution of ``source`` from its jupyter-cache, or None."""
    from jupyter_cache.base import CachingError
    from myst_nb.core.read import myst_nb_reader_plugin

    try:
        _, nb = cache.merge_match_into_notebook(myst_nb_reader_plugin(str(source)))
    except (KeyError, CachingError):
        return None
    return nb


def write_decks(out_dir: Path, cache_dir: Path, stems: list[str] | None = None) -> list[Path]:
    """One ``<stem>.slides.html`` per chapter (default: every chapter), from the build's
    executions in ``cache_dir``."""
    from jupyter_cache import get_cache

    cache = get_cache(cache_dir)
    stems = stems or sorted(p.stem for p in BOOK.glob("[0-9]*.md"))
    ran = {s: executed_chapter(cache, BOOK / f"{s}.md") for s in stems}
    if missing := [s for s, nb in ran.items() if nb is None]:
        raise FileNotFoundError(f"no execution of {missing} in {cache_dir} as the chapters "
                                "are now: make book executes them there")
    copy_scripts(out_dir)
    badges = BADGES.read_text(encoding="utf-8")  # the verdicts' status labels, as on the site
    written = []
    for stem in stems:
        deck = deck_notebook(ran[stem], BOOK / f"{stem}.md")
        html, _ = exporter().from_notebook_node(deck, resources={"metadata": {"name": stem},
                                                                 "badges_css": badges})
        written.append(out_dir / f"{stem}.slides.html")
        written[-1].write_text(html, encoding="utf-8")
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.rsplit("\n\n", 1)[-1].strip())
    try:
        print(f"{len(write_decks(Path(sys.argv[1]), CACHE))} decks in {sys.argv[1]}")
    except (FileNotFoundError, ValueError) as e:
        sys.exit(f"make slides: {e}")
