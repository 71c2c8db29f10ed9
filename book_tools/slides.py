"""A reveal.js slide deck per chapter, from the chapter as ``make chapters`` executed it.

What a deck holds, slide by slide:

- the title slide: the chapter's title and its table of claims; then, below it, the
  "In this chapter" box (objectives, prerequisites, time);
- one slide per section (``##``; ``###`` opens a slide below it), with the section's
  heading, the statements of its claims (propositions, theorems, definitions, ...) and its
  display mathematics;
- below each section's slide, one slide per figure (with its caption) and per table of
  measured numbers and per set of verdict lines (one line per check; the folded full
  tables stay on the site) the section's cells show;
- each exercise as its title, on the slide of the exercises' section.

Left out: prose paragraphs and lists, proofs, every code cell's input, printed text,
derivation steps, solutions, cells hidden on the site (``remove-*``, ``hide-cell``,
``hide-output``) and sections left with nothing but a heading (a claim's section always
keeps its slide). The notebooks come from ``_build/executed`` (recorded by ``make
chapters``); nothing is executed here. MyST goes through ``book_tools.myst_to_markdown``;
a construct left over is an error. The decks' scripts (reveal.js, MathJax) are copied
from ``node_modules`` beside them, so the folder works offline.

Usage: python -m book_tools.slides OUT_DIR [--executed DIR] [chapter stem ...]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbconvert.exporters import SlidesExporter

from book_tools.myst_index import KINDS, directive, parser
from book_tools.myst_to_markdown import Context, convert, convert_directive, remaining_myst
from book_tools.plain_notebook import book_context

REPO = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "slides_template"
NODE_MODULES = REPO / "node_modules"
REVEAL = NODE_MODULES / "reveal.js" / "dist"
MATHJAX = NODE_MODULES / "mathjax" / "es5"
THEME = "white"  # its fonts ship with reveal.js; most other themes import Google Fonts
HIDDEN_TAGS = frozenset({"remove-cell", "remove-output", "hide-cell", "hide-output"})
INTRO_BOX = "In this chapter"
TABLE_RULE = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$", re.MULTILINE)


@dataclass
class Slide:
    kind: str                    # "slide" (a new column) or "subslide" (below the last)
    cells: list = field(default_factory=list)
    has_content: bool = False    # more than its heading
    closed: bool = False         # a figure's or a table's slide: nothing more goes on it


def _markdown_cell(text: str, kind: str = "-") -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(text.strip("\n"))
    cell.metadata["slideshow"] = {"slide_type": kind}
    return cell


def _blocks(text: str) -> list[tuple[object, str]]:
    """(opening token, its source text) for every top-level block of a Markdown text."""
    lines = text.splitlines(keepends=True)
    tokens = [t for t in parser().parse(text) if t.level == 0 and t.map is not None]
    return [(t, "".join(lines[t.map[0]:t.map[1]])) for t in tokens]


class DeckBuilder:
    """Turns one executed chapter notebook into the cells of its deck."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.slides: list[Slide] = []
        self.in_solution = False
        self.intro_box: nbformat.NotebookNode | None = None  # shown below the title slide
        self.claim_next = False  # the next heading opens a claim's section

    def _md(self, text: str) -> str:
        out = convert(text, self.ctx).strip("\n")
        if left := remaining_myst(out):
            raise ValueError(f"{self.ctx.page}: MyST left raw in a slide: {left}")
        return out

    def _open(self, kind: str, heading: str) -> None:
        self._place_intro_box()
        self.slides.append(Slide(kind, [_markdown_cell(self._md(heading))],
                                 has_content=self.claim_next))
        self.claim_next = False

    def _place_intro_box(self) -> None:
        if self.intro_box is not None:
            self.slides.append(Slide("subslide", [self.intro_box], has_content=True))
            self.intro_box = None

    def _add(self, cell: nbformat.NotebookNode, kind: str = "-") -> None:
        """Add a cell to the current slide; a figure or a table ("subslide") gets a slide
        of its own, and what follows it opens another slide below."""
        last = self.slides[-1] if self.slides else None
        if last is None or kind == "subslide" or last.closed:
            self.slides.append(Slide("slide" if last is None else "subslide", [cell],
                                     has_content=True, closed=kind == "subslide"))
            return
        last.cells.append(cell)
        last.has_content = True

    def _caption(self, text: str) -> None:
        self.slides[-1].cells.append(_markdown_cell(f'<p class="slide-caption">{text}</p>'))

    def markdown(self, text: str) -> None:
        for token, source in _blocks(text):
            d = directive(token)
            name = d.name if d is not None else None
            if name == "solution-start":
                self.in_solution = True
            elif name == "solution-end":
                self.in_solution = False
            elif self.in_solution or name == "solution":
                continue
            elif token.type == "myst_target":
                self.claim_next = token.content.startswith("claim-")
            elif token.type == "heading_open":
                level = int(token.tag[1])
                self._open("subslide" if level >= 3 else "slide", source)
            elif name in KINDS:
                self._add(_markdown_cell(self._md(convert_directive(d, self.ctx))))
            elif name == "admonition" and d.argument == INTRO_BOX:
                self.intro_box = _markdown_cell(self._md(f"### {INTRO_BOX}\n\n{d.body}"))
            elif name in ("exercise", "exercise-start"):
                self._add(_markdown_cell(f"**Exercise.** {self._md(d.argument)}"))
            elif token.type in ("math_block", "math_block_label", "amsmath", "table_open"):
                self._add(_markdown_cell(self._md(source)))

    def code(self, cell: nbformat.NotebookNode) -> None:
        if self.in_solution or HIDDEN_TAGS & set(cell.metadata.get("tags", [])):
            return
        mystnb = cell.metadata.get("mystnb", {})
        caption = mystnb.get("figure", {}).get("caption")
        alt = mystnb.get("image", {}).get("alt") or caption or "A figure of the chapter."
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data:
                kept = nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output(
                    "display_data", data={"image/png": data["image/png"]},
                    metadata={"image/png": {"alt": alt}})])
                self._add(kept, "subslide")
                if caption:
                    self._caption(caption)
            elif TABLE_RULE.search(data.get("text/markdown", "")):
                self._add(_markdown_cell(self._md(data["text/markdown"])), "subslide")
            elif 'class="verdicts"' in data.get("text/html", ""):  # the lines, not the fold
                lines = data["text/html"].split('<details class="verdict-details">')[0]
                self._add(_markdown_cell(lines + "</div>"), "subslide")

    def notebook(self, executed: nbformat.NotebookNode) -> nbformat.NotebookNode:
        for cell in executed.cells:
            if cell.cell_type == "markdown":
                self.markdown(cell.source)
            elif cell.cell_type == "code":
                self.code(cell)
        self._place_intro_box()
        kept = [s for i, s in enumerate(self.slides) if i == 0 or s.has_content]
        cells = []
        for slide in kept:
            slide.cells[0].metadata["slideshow"] = {"slide_type": slide.kind}
            cells += slide.cells
        deck = nbformat.v4.new_notebook(cells=cells, metadata={
            "title": self.ctx.titles.get(self.ctx.page, self.ctx.page)})
        return deck


def deck_notebook(executed: nbformat.NotebookNode, source: Path) -> nbformat.NotebookNode:
    """The deck of the chapter ``source`` (book/NN_x.md), from its executed notebook."""
    return DeckBuilder(book_context(source, REPO)).notebook(executed)


def exporter() -> SlidesExporter:
    """nbconvert's reveal.js exporter with the book's template: scripts beside the deck."""
    return SlidesExporter(template_name="book_slides", extra_template_basedirs=[str(TEMPLATES)],
                          reveal_url_prefix="reveal.js", reveal_theme=THEME,
                          mathjax_url="mathjax/tex-chtml-full.js",
                          exclude_input=True, exclude_input_prompt=True,
                          exclude_output_prompt=True, exclude_anchor_links=True)


def copy_scripts(out_dir: Path) -> None:
    """reveal.js (its script, style sheet and the white theme with its fonts) and MathJax's
    CommonHTML build with its fonts, from node_modules, beside the decks."""
    files = [REVEAL / "reveal.js", REVEAL / "reveal.css", REVEAL / "theme" / f"{THEME}.css",
             MATHJAX / "tex-chtml-full.js"]
    if missing := [f for f in files if not f.is_file()]:
        raise FileNotFoundError(f"{missing[0]} is missing: install the pinned JavaScript "
                                "with npm ci (make slides does)")
    theme = out_dir / "reveal.js" / "dist" / "theme"
    theme.mkdir(parents=True, exist_ok=True)
    for f in files[:2]:
        shutil.copy2(f, out_dir / "reveal.js" / "dist" / f.name)
    shutil.copy2(files[2], theme / files[2].name)
    shutil.copytree(REVEAL / "theme" / "fonts" / "source-sans-pro",
                    theme / "fonts" / "source-sans-pro", dirs_exist_ok=True)
    (out_dir / "mathjax").mkdir(parents=True, exist_ok=True)
    shutil.copy2(files[3], out_dir / "mathjax" / files[3].name)
    fonts = Path("output") / "chtml" / "fonts" / "woff-v2"
    shutil.copytree(MATHJAX / fonts, out_dir / "mathjax" / fonts, dirs_exist_ok=True)


def write_decks(out_dir: Path, executed_dir: Path, stems: list[str] | None = None) -> list[Path]:
    """One ``<stem>.slides.html`` per chapter (default: every executed chapter)."""
    from book_tools.notebooks import BOOK

    stems = stems or sorted(p.stem for p in executed_dir.glob("*.ipynb")
                            if p.stem[0].isdigit())
    if not stems:
        raise FileNotFoundError(f"no executed chapters in {executed_dir}: run make chapters "
                                "first (it records them there)")
    copy_scripts(out_dir)
    written = []
    for stem in stems:
        executed = executed_dir / f"{stem}.ipynb"
        if not executed.is_file():
            raise FileNotFoundError(f"{executed} is missing: make chapters records a chapter "
                                    "there only when all its cells pass")
        deck = deck_notebook(nbformat.read(executed, as_version=4), BOOK / f"{stem}.md")
        html, _ = exporter().from_notebook_node(deck, resources={"metadata": {"name": stem}})
        path = out_dir / f"{stem}.slides.html"
        path.write_text(html, encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("stems", nargs="*", help="chapter stems, e.g. 01_one_row_three_lenses")
    ap.add_argument("--executed", type=Path, default=REPO / "_build" / "executed")
    args = ap.parse_args(argv)
    try:
        written = write_decks(args.out_dir, args.executed, args.stems or None)
    except (FileNotFoundError, ValueError) as e:
        print(f"make slides: {e}", file=sys.stderr)
        return 2
    print(f"{len(written)} decks in {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
