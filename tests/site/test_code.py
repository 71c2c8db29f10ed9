"""A chapter page's code serves the reader: at a 1300-px window no code line is cut off,
and the visible code is mathematics and evidence, bookkeeping at most 10% of its lines
and the first cell at most 15 lines.

Bookkeeping is the code that runs checks rather than teaching: a top-level statement of a
visible cell that declares or runs a check, records or asserts (``Check``, thresholds,
``ch.verify``, ``ch.record``, ``ch.require``) counts with all its lines. A folded cell
(``hide-input``: its input behind a toggle) is off the reader's path.
"""

import ast

import pytest
from browsing import parse
from bs4 import BeautifulSoup

from book_tools.notebooks import chapters

MAX_SHARE, MAX_FIRST_CELL = 0.10, 15
BOOKKEEPING_CALLS = frozenset({"Check", "above", "below", "equals", "verify", "record",
                               "require", "add_verdict", "add_derivation", "add_failure"})
CUT_JS = """return Array.from(document.querySelectorAll('.cell_input pre, div.highlight pre'))
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => e.textContent.split('\\n').reduce((a, b) => a.length >= b.length ? a : b, ''))
  .slice(0, 10);"""


def code_cells(doc: BeautifulSoup) -> list[tuple[str, bool]]:
    """(code, whether a reader sees it: not folded) of every code cell, in order."""
    return [(div.find("pre").get_text(), div.find_parent("details") is None)
            for div in doc.select("div.cell div.cell_input") if div.find("pre") is not None]


def lines(code: str) -> list[str]:
    return [x for x in code.splitlines() if x.strip() and not x.strip().startswith("#")]


def bookkeeping_lines(code: str) -> int:
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython magics: judged line by line
        return sum(any(f"{n}(" in x for n in BOOKKEEPING_CALLS) for x in lines(code))
    source = code.splitlines()
    return sum(len(lines("\n".join(source[s.lineno - 1:s.end_lineno]))) for s in tree.body
               if BOOKKEEPING_CALLS & {getattr(c.func, "attr", getattr(c.func, "id", ""))
                                       for c in ast.walk(s) if isinstance(c, ast.Call)})


def test_no_code_line_is_cut_off_at_a_1300_px_window(desktop, browser):
    assert not browser.execute_script(CUT_JS)


@pytest.mark.parametrize("source", chapters(), ids=lambda p: p.stem)
def test_bookkeeping_is_off_the_readers_path(site, source):
    doc = parse(site / "book" / f"{source.stem}.html")
    cells = code_cells(doc)
    visible = sum(len(lines(code)) for code, shown in cells if shown)
    bookkeeping = sum(bookkeeping_lines(code) for code, shown in cells if shown)
    assert visible, "no visible code"
    assert bookkeeping <= MAX_SHARE * visible, f"{bookkeeping} of {visible} lines"
    assert len(lines(cells[0][0])) <= MAX_FIRST_CELL


PAGE = """
<div class="cell docutils container"><div class="cell_input docutils container">
<pre>ch = open_chapter("book/01")
x = ch.x</pre></div></div>
<div class="cell tag_hide-input docutils container"><details class="hide above-input">
<summary>Show code cell source</summary><div class="cell_input docutils container">
<pre>ch.verify(Check("L1", "gap", gap, below(1e-5, why="w"), IDENTITY))</pre></div>
</details></div>
<div class="cell docutils container"><div class="cell_input docutils container">
<pre>def gap(case):
    return abs(case.x).max()


ch.record("L1",
          evidence=("figure",))</pre></div></div>
"""


def test_folded_cells_are_off_the_path_and_a_statement_counts_with_all_its_lines():
    cells = code_cells(BeautifulSoup(PAGE, "html.parser"))
    assert [shown for _, shown in cells] == [True, False, True]
    assert (bookkeeping_lines(cells[2][0]), len(lines(cells[2][0]))) == (2, 4)
    assert bookkeeping_lines("y = 1  # ch.record( in a comment\n") == 0
    assert bookkeeping_lines("%time f()\nch.require('L1', ok, 'm')\n") == 1  # a magic
