"""The instructor's guide's reading paths: their times are the sums of the chapters' parts.

The sums are redone here from the raw YAML and the chapters' **Time.** lines and exercise
titles (book_tools.course), not through the dataclasses' properties.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from book_tools.course import PATHS_FILE, course, hours, reading_paths

CHAPTERS = {c.source.stem: c for c in course()}
RAW = yaml.safe_load(PATHS_FILE.read_text())["paths"]
PATHS = {p.id: p for p in reading_paths()}


def expected_minutes(raw_path: dict) -> tuple[int, int]:
    reading = exercises = 0
    for session in raw_path["sessions"]:
        for entry in session["chapters"]:
            chapter = CHAPTERS[entry["chapter"]]
            reading += chapter.reading
            minutes = {ex.label: ex.minutes for ex in chapter.exercises}
            labels = minutes if entry["exercises"] == "all" else entry["exercises"]
            exercises += sum(minutes[label] for label in labels)
    return reading, exercises


@pytest.mark.parametrize("raw", RAW, ids=[r["id"] for r in RAW])
def test_a_paths_times_are_the_sums_of_its_chapters_and_exercises(raw):
    reading, exercises = expected_minutes(raw)
    path = PATHS[raw["id"]]
    assert (path.reading, path.exercise_minutes, path.total) == (
        reading, exercises, reading + exercises)


def test_the_three_week_path_is_the_whole_book_with_every_exercise():
    path = PATHS["three-weeks"]
    stems = [a.chapter.source.stem for a in path.assignments]
    assert sorted(stems) == sorted(CHAPTERS)
    assert path.exercise_minutes == sum(c.exercise_sum for c in CHAPTERS.values())


def test_the_paths_grow_from_one_lecture_to_three_weeks():
    order = [PATHS[i].total for i in ("one-lecture", "one-week", "three-weeks")]
    assert order == sorted(order) and len(set(order)) == 3, order


def test_durations_are_written_in_minutes_and_hours():
    assert [hours(m) for m in (45, 60, 125)] == ["45 min", "60 min (1 h)",
                                                "125 min (2 h 5 min)"]


@pytest.mark.parametrize("entry, message", [
    ({"chapter": "99_missing", "exercises": []}, "no chapter '99_missing'"),
    ({"chapter": "01_one_row_three_lenses", "exercises": ["ex-nope"]}, "no exercise"),
    ({"chapter": "01_one_row_three_lenses", "exercises": ["ex-l3-columns"] * 2},
     "assigned twice"),
    ({"chapter": "01_one_row_three_lenses", "exercises": "ex-l3-columns"},
     "a list of labels or 'all'"),
])
def test_a_bad_path_is_refused_with_what_to_fix(tmp_path: Path, entry, message):
    source = tmp_path / "paths.yml"
    source.write_text(yaml.safe_dump({"paths": [
        {"id": "p", "title": "P", "sessions": [{"name": "s", "chapters": [entry]}]}]}))
    with pytest.raises(ValueError, match=message):
        reading_paths(source)
