"""On every chapter page the reader's path is mathematics and evidence: bookkeeping is at
most 10% of the visible code lines, and the first code cell at most 15 lines."""

import os
from pathlib import Path

import pytest

from book_tools.notebooks import chapters
from book_tools.reader_path import measure

REPO = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("ATTENTION_BOOK_SITE", REPO / "_build" / "html")).resolve()
if not (os.environ.get("ATTENTION_BOOK_REQUIRE_SITE") == "1"
        or "ATTENTION_BOOK_SITE" in os.environ):
    pytest.skip("checks of the built book run after a strict build: make site",
                allow_module_level=True)

MAX_SHARE, MAX_FIRST_CELL = 0.10, 15


@pytest.mark.parametrize("source", chapters(), ids=lambda p: p.stem)
def test_bookkeeping_is_off_the_readers_path(source):
    path = measure(SITE / "book" / f"{source.stem}.html")
    assert path.visible, f"{source.stem}: no visible code"
    assert path.share <= MAX_SHARE, (f"{source.stem}: {path.bookkeeping} of {path.visible} "
                                     f"visible code lines are bookkeeping ({path.share:.0%})")
    assert path.first_cell <= MAX_FIRST_CELL, (f"{source.stem}: first code cell has "
                                               f"{path.first_cell} lines")
