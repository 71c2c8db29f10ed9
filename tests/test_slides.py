"""The slide decks (book_tools.slides): what a deck keeps of a chapter, and that it loads
nothing from the network. The chapters are read from their sources here, with planted
outputs; the site checks render a deck made from the executed chapters in Chromium."""

from __future__ import annotations

import re

import nbformat
import pytest
from bs4 import BeautifulSoup

from book_tools.myst_to_markdown import remaining_myst
from book_tools.notebooks import chapters, read
from book_tools.slides import deck_notebook, exporter

CHAPTERS = [c for c in chapters() if c.stem[0].isdigit()]
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJ"
       "RU5ErkJggg==")


def slide_type(cell) -> str:
    return cell.metadata["slideshow"]["slide_type"]


def executed(source) -> nbformat.NotebookNode:
    """The chapter with a figure as the output of every code cell that draws one."""
    nb = read(source)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": PNG})
                            if "finish(" in cell.source else
                            nbformat.v4.new_output("stream", name="stdout", text="printed\n")]
    return nb


@pytest.fixture(scope="module")
def decks():
    return {src.stem: deck_notebook(executed(src), src) for src in CHAPTERS}


@pytest.mark.parametrize("source", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_a_deck_opens_on_the_title_and_shows_outputs_but_no_myst_code_or_solution(source,
                                                                                  decks):
    deck, text = decks[source.stem], source.read_text()
    title = re.search(r"^# (.+)$", text, re.MULTILINE).group(1)
    assert deck.cells[0].source.startswith(f"# {title}") and slide_type(deck.cells[0]) == "slide"
    for cell in deck.cells:
        assert not remaining_myst(cell.source), (cell.source[:200], remaining_myst(cell.source))
        assert cell.cell_type == "markdown" or cell.source == ""  # outputs only
    figures = [c for c in deck.cells if c.cell_type == "code" and c.outputs[0].get("data")]
    assert all(slide_type(c) == "subslide" for c in figures)
    assert figures or "finish(" not in text


@pytest.mark.parametrize("source", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_every_claim_section_starts_a_slide(source, decks):
    claims = re.findall(r"^\(claim-[\w-]+\)=\n## (.+)$", source.read_text(), re.MULTILINE)
    slides = [c.source for c in decks[source.stem].cells if slide_type(c) == "slide"]
    for heading in claims:
        assert any(s.startswith(f"## {heading}") for s in slides), heading


def test_cells_hidden_on_the_site_are_left_out():
    source = CHAPTERS[0]
    nb = executed(source)
    hidden = next(c for c in nb.cells if c.cell_type == "code")
    hidden.metadata["tags"] = ["remove-output"]
    hidden.outputs = [nbformat.v4.new_output("stream", name="stdout", text="HIDDEN\n")]
    deck = deck_notebook(nb, source)
    assert not any("HIDDEN" in str(c.outputs) for c in deck.cells if c.cell_type == "code")


def test_a_deck_loads_no_script_or_style_from_the_network(decks):
    html, _ = exporter().from_notebook_node(decks[CHAPTERS[0].stem])
    page = BeautifulSoup(html, "html.parser")
    urls = [t.get("src") for t in page.find_all("script") if t.get("src")]
    urls += [t.get("href") for t in page.find_all("link") if t.get("href")]
    assert not [u for u in urls if re.match(r"^(https?:)?//", u)], urls
    assert "reveal.js/dist/reveal.js" in urls and "mathjax/tex-chtml-full.js" in urls
    assert not re.search(r"""(src|href)\s*=\s*["']?https?://[^"']*\.(js|css|mjs)\b""", html)


def test_decks_come_from_the_builds_executions_and_say_when_there_are_none(tmp_path):
    from jupyter_cache import get_cache

    from book_tools.slides import executed_chapter, write_decks

    assert executed_chapter(get_cache(tmp_path / "cache"), CHAPTERS[0]) is None
    with pytest.raises(FileNotFoundError, match="make book executes them there"):
        write_decks(tmp_path / "decks", tmp_path / "cache", [CHAPTERS[0].stem])
