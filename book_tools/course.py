"""What a course plan reads off the chapters: each chapter's stated times and exercises.

A chapter's "In this chapter" block states its time in one line,
``**Time.** About N minutes to read and run; M more for the exercises.`` (the wording
around the two numbers varies), and each exercise's title ends in
``(difficulty, K min)``. The instructor's guide and its test use these numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from book_tools.notebooks import chapters
from book_tools.solutions import EXERCISE_TITLE, find_exercises

TIME_LINE = re.compile(r"^\*\*Time\.\*\*(?P<text>.*)$", re.MULTILINE)


@dataclass(frozen=True)
class ExerciseTime:
    label: str
    title: str
    difficulty: str
    minutes: int


@dataclass(frozen=True)
class ChapterTime:
    source: Path
    reading: int                 # N: minutes to read and run
    stated_exercises: int        # M: minutes the header gives the exercises
    exercises: tuple[ExerciseTime, ...]

    @property
    def exercise_sum(self) -> int:
        return sum(ex.minutes for ex in self.exercises)


def stated_times(text: str, where: str) -> tuple[int, int]:
    """(reading, exercises) minutes of a chapter's ``**Time.**`` line."""
    lines = TIME_LINE.findall(text)
    if len(lines) != 1:
        raise ValueError(f"{where}: expected one '**Time.**' line in the chapter's opening "
                         f"block, found {len(lines)}")
    numbers = [int(n) for n in re.findall(r"\d+", lines[0])]
    if len(numbers) != 2:
        raise ValueError(f"{where}: the '**Time.**' line should give two numbers (minutes to "
                         f"read and run, minutes for the exercises), got {lines[0].strip()!r}")
    return numbers[0], numbers[1]


def exercise_times(text: str, where: str) -> tuple[ExerciseTime, ...]:
    out = []
    for ex in find_exercises(text):
        m = EXERCISE_TITLE.match(ex.title)
        if m is None:
            raise ValueError(f"{where}:{ex.line}: the title {ex.title!r} does not end in "
                             "'(difficulty, K min)'")
        out.append(ExerciseTime(ex.label, m.group("title"), m.group("difficulty"),
                                int(m.group("minutes"))))
    return tuple(out)


def chapter_time(source: Path) -> ChapterTime:
    text = source.read_text()
    reading, stated = stated_times(text, source.name)
    return ChapterTime(source, reading, stated, exercise_times(text, source.name))


def course() -> list[ChapterTime]:
    """Every numbered chapter of the book (not the appendix), in order, with its times."""
    return [chapter_time(src) for src in chapters() if src.name[0].isdigit()]
