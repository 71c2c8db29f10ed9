"""How much of a chapter page's visible code is verification bookkeeping.

A reader scrolls past every code cell whose input is not folded away. Bookkeeping is the
code that runs checks rather than teaching: declaring and running checks (``Check``,
thresholds, ``ch.verify``), recording (``ch.record``), asserting (``ch.require``). Each
top-level statement of a visible cell counts with all its lines; a statement is
bookkeeping when it calls one of those. Folded cells (``hide-input``: the input behind a
toggle, the output shown) are off the reader's path and do not count.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup

BOOKKEEPING_CALLS = frozenset({"Check", "above", "below", "equals", "verify", "record",
                               "require", "add_verdict", "add_derivation", "add_failure"})


@dataclass(frozen=True)
class CodeCell:
    code: str
    visible: bool


def code_cells(html: str) -> list[CodeCell]:
    """Every code cell of a rendered MyST-NB page, in order, with whether its input shows."""
    page = BeautifulSoup(html, "html.parser")
    cells = []
    for div in page.select("div.cell div.cell_input"):
        pre = div.find("pre")
        if pre is None:
            continue
        folded = div.find_parent("details") is not None
        cells.append(CodeCell(pre.get_text(), not folded))
    return cells


def _called(node: ast.AST) -> set[str]:
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            f = call.func
            names.add(f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", ""))
    return names


def _lines(code: str) -> list[str]:
    return [line for line in code.splitlines() if line.strip() and
            not line.strip().startswith("#")]


def bookkeeping_lines(code: str) -> tuple[int, int]:
    """(bookkeeping lines, all non-blank non-comment lines) of one cell's code."""
    total = len(_lines(code))
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython magics: judge line by line
        return sum(any(f"{n}(" in line for n in BOOKKEEPING_CALLS) for line in _lines(code)), \
            total
    lines = code.splitlines()
    count = 0
    for stmt in tree.body:
        if _called(stmt) & BOOKKEEPING_CALLS:
            span = lines[stmt.lineno - 1:stmt.end_lineno]
            count += len(_lines("\n".join(span)))
    return count, total


@dataclass(frozen=True)
class PagePath:
    bookkeeping: int
    visible: int
    first_cell: int

    @property
    def share(self) -> float:
        return self.bookkeeping / self.visible if self.visible else 0.0


def measure(page: Path) -> PagePath:
    """Bookkeeping and visible code lines of a page, and the length of its first cell."""
    cells = code_cells(page.read_text())
    visible = [bookkeeping_lines(c.code) for c in cells if c.visible]
    first = len(_lines(cells[0].code)) if cells else 0
    return PagePath(sum(b for b, _ in visible), sum(t for _, t in visible), first)
