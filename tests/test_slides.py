"""The slide decks (book_tools.slides): what a deck keeps of a chapter, and that it loads
nothing from the network. The chapters are read from their sources here (no outputs); the
site checks render a deck made from the executed chapters in Chromium."""

from __future__ import annotations

import re

import nbformat
import pytest
from bs4 import BeautifulSoup

from book_tools.myst_to_markdown import remaining_myst
from book_tools.notebooks import chapters, read
from book_tools.slides import deck_notebook, exporter

CHAPTERS = [c for c in chapters() if c.stem[0].isdigit()]


def slide_type(cell) -> str:
    return cell.metadata["slideshow"]["slide_type"]


@pytest.fixture(scope="module")
def decks():
    return {src.stem: deck_notebook(read(src), src) for src in CHAPTERS}


@pytest.mark.parametrize("source", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_a_deck_opens_on_the_title_lists_the_exercises_and_leaves_no_myst_or_code(source,
                                                                                  decks):
    deck = decks[source.stem]
    title = re.search(r"^# (.+)$", source.read_text(), re.MULTILINE).group(1)
    assert deck.cells[0].source.startswith(f"# {title}")
    assert slide_type(deck.cells[0]) == "slide"
    for cell in deck.cells:
        assert not remaining_myst(cell.source), (cell.source[:200], remaining_myst(cell.source))
        if cell.cell_type == "code":  # outputs only: no code, and so no solution's code
            assert cell.source == "", cell.source[:200]
    exercises = re.findall(r"^```\{exercise\} (.+)$", source.read_text(), re.MULTILINE)
    shown = [c.source for c in deck.cells if c.source.startswith("**Exercise.**")]
    assert len(shown) == len(exercises), (exercises, shown)


@pytest.mark.parametrize("source", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_every_claim_section_is_a_slide_with_its_statement(source, decks):
    text = source.read_text()
    claims = re.findall(r"^\(claim-[\w-]+\)=\n## (.+)$", text, re.MULTILINE)
    slides = [c.source for c in decks[source.stem].cells if slide_type(c) == "slide"]
    for heading in claims:
        assert any(s.startswith(f"## {heading}") for s in slides), heading


def test_outputs_kept_are_figures_and_tables_and_hidden_cells_are_dropped(tmp_path):
    source = CHAPTERS[0]
    nb = read(source)
    png = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQ"
           "AAAABJRU5ErkJggg==")
    figure = nbformat.v4.new_code_cell("finish()", outputs=[
        nbformat.v4.new_output("stream", name="stdout", text="printed\n"),
        nbformat.v4.new_output("display_data", data={"image/png": png})])
    figure.metadata["mystnb"] = {"figure": {"caption": "A one-pixel figure."}}
    table = nbformat.v4.new_code_cell("ch.verify()", outputs=[nbformat.v4.new_output(
        "execute_result", data={"text/markdown": "| a | b |\n|---|---|\n| 1 | 2 |"},
        execution_count=1)])
    hidden = nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output(
        "display_data", data={"image/png": png})])
    hidden.metadata["tags"] = ["remove-output"]
    nb.cells[1:1] = [figure, table, hidden]
    deck = deck_notebook(nb, source)
    images = [c for c in deck.cells if c.cell_type == "code"]
    assert len(images) == 1 and slide_type(images[0]) == "subslide"
    assert [o.output_type for o in images[0].outputs] == ["display_data"]
    after = deck.cells[deck.cells.index(images[0]) + 1]
    assert "A one-pixel figure." in after.source
    assert any(c.source.startswith("| a | b |") and slide_type(c) == "subslide"
               for c in deck.cells)
    assert not any("printed" in c.source for c in deck.cells)


def test_a_deck_loads_no_script_or_style_from_the_network(decks):
    html, _ = exporter().from_notebook_node(decks[CHAPTERS[0].stem])
    page = BeautifulSoup(html, "html.parser")
    urls = [t.get("src") for t in page.find_all("script") if t.get("src")]
    urls += [t.get("href") for t in page.find_all("link") if t.get("href")]
    assert urls, "the deck references no script or style sheet at all"
    remote = [u for u in urls if re.match(r"^(https?:)?//", u)]
    assert not remote, remote
    assert "reveal.js/dist/reveal.js" in urls and "mathjax/tex-chtml-full.js" in urls
    assert not re.search(r"""(src|href)\s*=\s*["']?https?://[^"']*\.(js|css|mjs)\b""", html)
