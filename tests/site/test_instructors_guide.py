"""The instructor's guide as built: every time its tables show is the sum of the chapters'
**Time.** lines and the assigned exercises' minutes.

The sums are redone here from book/reading_paths.yml and the chapters (book_tools.course);
the numbers compared are the ones in the rendered HTML.
"""

import re
from pathlib import Path

import pytest
import yaml
from browsing import parse
from bs4 import BeautifulSoup

from book_tools.course import course

REPO = Path(__file__).resolve().parents[2]
CHAPTERS = {c.source.stem: c for c in course()}
RAW = yaml.safe_load((REPO / "book" / "reading_paths.yml").read_text())["paths"]


@pytest.fixture(scope="module")
def guide(site) -> BeautifulSoup:
    return parse(site / "book" / "instructors_guide.html")


def minutes(cell) -> int:
    """The first number of a cell: '95 min (1 h 35 min)' -> 95."""
    found = re.match(r"\s*(\d+) min", cell.get_text(" ", strip=True))
    assert found, f"no time in {cell.get_text(' ', strip=True)!r}"
    return int(found.group(1))


def assigned(entry: dict) -> list:
    chapter = CHAPTERS[entry["chapter"]]
    if entry["exercises"] == "all":
        return list(chapter.exercises)
    return [ex for ex in chapter.exercises if ex.label in entry["exercises"]]


def entries(raw_path: dict) -> list[dict]:
    return [e for s in raw_path["sessions"] for e in s["chapters"]]


def test_the_summary_shows_each_paths_summed_times(guide):
    table = guide.select_one("table.reading-paths-summary")
    assert table is not None, "the guide has no summary table of the paths"
    rows = table.select("tbody tr")
    assert [r.find("td").get_text(strip=True) for r in rows] == [p["title"] for p in RAW]
    for raw, row in zip(RAW, rows, strict=True):
        cells = row.find_all("td")
        reading = sum(CHAPTERS[e["chapter"]].reading for e in entries(raw))
        exercises = sum(ex.minutes for e in entries(raw) for ex in assigned(e))
        shown = [minutes(c) for c in cells[4:7]]
        assert shown == [reading, exercises, reading + exercises], (raw["id"], shown)


@pytest.mark.parametrize("raw", RAW, ids=[r["id"] for r in RAW])
def test_each_paths_table_shows_each_chapters_times_and_their_total(guide, raw):
    table = guide.find("table", id=f"path-{raw['id']}")
    assert table is not None, f"the guide has no table of path {raw['id']}"
    rows = table.select("tbody tr")
    *chapter_rows, total = rows
    assert len(chapter_rows) == len(entries(raw))
    for entry, row in zip(entries(raw), chapter_rows, strict=True):
        cells = row.find_all("td")
        assert cells[1].find("a", href=re.compile(rf"{entry['chapter']}\.html")), entry
        assert minutes(cells[2]) == CHAPTERS[entry["chapter"]].reading, entry["chapter"]
        assert minutes(cells[4]) == sum(ex.minutes for ex in assigned(entry)), entry
        links = [a["href"] for a in cells[3].find_all("a")]
        assert len(links) == len(assigned(entry)), (entry, links)
    cells = total.find_all("td")
    assert minutes(cells[2]) == sum(minutes(r.find_all("td")[2]) for r in chapter_rows)
    assert minutes(cells[4]) == sum(minutes(r.find_all("td")[4]) for r in chapter_rows)
