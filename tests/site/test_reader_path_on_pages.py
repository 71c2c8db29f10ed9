"""On every chapter page the reader's path is mathematics and evidence: bookkeeping is at
most 10% of the visible code lines, and the first code cell at most 15 lines."""


import pytest

from book_tools.notebooks import chapters
from book_tools.reader_path import measure
from book_tools.site_check import site_folder

SITE = site_folder()
pytestmark = [pytest.mark.built_site, pytest.mark.usefixtures("built_book")]

MAX_SHARE, MAX_FIRST_CELL = 0.10, 15


@pytest.mark.parametrize("source", chapters(), ids=lambda p: p.stem)
def test_bookkeeping_is_off_the_readers_path(source):
    path = measure(SITE / "book" / f"{source.stem}.html")
    assert path.visible, f"{source.stem}: no visible code"
    assert path.share <= MAX_SHARE, (f"{source.stem}: {path.bookkeeping} of {path.visible} "
                                     f"visible code lines are bookkeeping ({path.share:.0%})")
    assert path.first_cell <= MAX_FIRST_CELL, (f"{source.stem}: first code cell has "
                                               f"{path.first_cell} lines")
