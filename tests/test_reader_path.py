"""The measure of bookkeeping on the reader's path, on fabricated pages."""

from book_tools.reader_path import bookkeeping_lines, code_cells

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


def test_folded_cells_are_off_the_path():
    cells = code_cells(PAGE)
    assert [c.visible for c in cells] == [True, False, True]


def test_a_bookkeeping_statement_counts_with_all_its_lines():
    assert bookkeeping_lines(code_cells(PAGE)[2].code) == (2, 4)
    assert bookkeeping_lines("y = 1  # ch.record( in a comment\n") == (0, 1)


def test_magics_are_judged_line_by_line():
    assert bookkeeping_lines("%time f()\nch.require('L1', ok, 'm')\n") == (1, 2)
