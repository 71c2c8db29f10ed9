"""The page is for the reader, in numbers: how much code stays in view, how much prose the
chapters hold, no typeset "X = X", and no table that scrolls sideways at a desktop window.

Counted on the rendered chapters, as a reader meets them: visible code is the non-blank
lines of every code cell not folded (a ``hide-input`` cell's input is behind a toggle; a
solution is folded under its exercise); prose is the article's words without code, printed
outputs, mathematics, tables and folded solutions and tables.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from browsing import parse
from bs4 import BeautifulSoup

from book_tools.notebooks import chapters

MAX_CODE_LINES, MAX_CHAPTER_CODE, MAX_CELL_LINES = 2500, 300, 30
MAX_WORDS, MAX_CHAPTER_WORDS = 37_000, 4_000
NOT_PROSE = ("div.cell_input", "pre", "code", ".math", "math", "mjx-container", "table",
             "details", "div.dropdown", "div.solution", "script", "style", ".headerlink")
WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")
# A scroll box at the desktop window: an element whose content is wider than it is.
SCROLLING_TABLES_JS = """
const scope = document.querySelector('article') || document.body;
return Array.from(scope.querySelectorAll('table')).filter(t => {
  if (t.closest('details:not([open])')) return false;
  for (let e = t; e && e !== scope; e = e.parentElement)
    if (e.scrollWidth > e.clientWidth + 1) return true;
  return false;
}).map(t => (t.querySelector('caption, th, td') || t).textContent.trim().slice(0, 60));"""


def chapter_docs(site: Path) -> dict[str, BeautifulSoup]:
    return {md.stem: parse(site / "book" / f"{md.stem}.html") for md in chapters()}


def visible_cells(doc: BeautifulSoup) -> list[int]:
    """The number of non-blank lines of every code cell a reader sees unfolded."""
    out = []
    for cell in doc.select("div.cell div.cell_input"):
        if cell.find_parent("details") or cell.find_parent(class_="dropdown") or \
                cell.find_parent(class_="solution"):
            continue
        pre = cell.find("pre")
        out.append(sum(1 for x in (pre.get_text() if pre else "").split("\n") if x.strip()))
    return out


def prose_words(doc: BeautifulSoup) -> int:
    article = copy.copy(doc.find("article") or doc)
    for selector in NOT_PROSE:
        for element in article.select(selector):
            element.decompose()
    return len(WORD.findall(article.get_text(" ")))


def same_sides(tex: str) -> list[str]:
    """The lines of a typeset output that read "X = X" (one line, or one line of an aligned
    chain)."""
    body = tex.replace(r"\displaystyle", "").strip()
    body = re.sub(r"^\\\[|\\\]$", "", body).strip()
    found = []
    for row in re.split(r"\\\\(?:\[[^\]]*\])?", body):
        row = row.replace(r"\begin{aligned}", "").replace(r"\end{aligned}", "")
        parts = [p.replace("&", "").strip() for p in re.split(r"(?<![<>!\\])=(?!=)", row)]
        if len(parts) == 2 and parts[0] and parts[0] == parts[1]:
            found.append(row.strip())
    return found


def test_visible_code_stays_within_the_budget(site):
    cells = {name: visible_cells(doc) for name, doc in chapter_docs(site).items()}
    per_chapter = {name: sum(c) for name, c in cells.items()}
    long_cells = {name: max(c) for name, c in cells.items() if c and max(c) > MAX_CELL_LINES}
    assert sum(per_chapter.values()) <= MAX_CODE_LINES, per_chapter
    assert all(n <= MAX_CHAPTER_CODE for n in per_chapter.values()), per_chapter
    assert not long_cells, f"visible cells over {MAX_CELL_LINES} lines: {long_cells}"


def test_the_prose_stays_within_the_budget(site):
    words = {name: prose_words(doc) for name, doc in chapter_docs(site).items()}
    assert sum(words.values()) <= MAX_WORDS, words
    assert all(n <= MAX_CHAPTER_WORDS for n in words.values()), words


def test_no_typeset_output_reads_x_equals_x(site):
    found = {name: [r for m in doc.select("div.cell_output .math") for r in
                    same_sides(m.get_text())]
             for name, doc in chapter_docs(site).items()}
    assert not {k: v for k, v in found.items() if v}


def test_the_counts_see_what_they_count():
    """Planted pages: a visible cell, a folded one and a solution; prose around a table,
    code and mathematics; a chain with an X = X line."""
    page = BeautifulSoup("""<article><p>Three plain words.</p><table><tr><td>not
    prose</td></tr></table><div class="cell"><div class="cell_input"><pre>a = 1\n\nb = 2
    </pre></div></div><details class="hide"><div class="cell"><div class="cell_input">
    <pre>hidden = 1</pre></div></div></details><div class="solution dropdown"><div
    class="cell"><div class="cell_input"><pre>solved = 1</pre></div></div></div>
    <span class="math">\\(x = y\\)</span></article>""", "html.parser")
    assert visible_cells(page) == [2] and prose_words(page) == 3
    assert same_sides(r"\[\begin{aligned}a &= b \\ 0 &= 0\end{aligned}\]") == ["0 &= 0"]
    assert same_sides(r"\[\displaystyle 0 = 0\]") == ["0 = 0"]
    assert same_sides(r"\[x \le x\]") == [] and same_sides(r"\[a = b\]") == []


def test_no_table_scrolls_sideways_at_a_desktop_window(desktop, browser):
    assert not browser.execute_script(SCROLLING_TABLES_JS)


@pytest.mark.parametrize("width, expected", [(3000, []), (300, ["a long first cell"])])
def test_a_planted_wide_table_is_found(tmp_path, browser, shown, width, expected):
    from browsing import serve, show

    cells = "".join(f"<td>{'a long first cell' if i == 0 else 'x' * 20}</td>" for i in range(12))
    (tmp_path / "t.html").write_text(
        f'<html><body><article><div style="overflow-x:auto;width:{width}px"><table><tr>'
        f"{cells}</tr></table></div></article></body></html>")
    with serve(tmp_path) as root:
        show(browser, root + "t.html", False, shown)
        found = browser.execute_script(SCROLLING_TABLES_JS)
    assert found == expected
