"""What a course plan reads off the chapters: each chapter's times and exercises, and the
instructor's guide's reading paths (``book/reading_paths.yml``: sessions, their chapters and
the exercises assigned with each), their times summed from the chapters, never written.
A chapter states its time in one line, ``**Time.** About N minutes to read and run; M more
for the exercises.``; each exercise's title ends in ``(difficulty, K min)``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from book_tools.notebooks import BOOK, chapters
from book_tools.solutions import EXERCISE_TITLE, find_exercises

PATHS_FILE = BOOK / "reading_paths.yml"
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


def chapter_time(source: Path) -> ChapterTime:
    text = source.read_text()
    lines = TIME_LINE.findall(text)
    numbers = [int(n) for n in re.findall(r"\d+", lines[0])] if len(lines) == 1 else []
    if len(numbers) != 2:
        raise ValueError(f"{source.name}: expected one '**Time.**' line in the opening block "
                         "with two numbers (minutes to read and run, minutes for the "
                         f"exercises), found {lines}")
    exercises = []
    for ex in find_exercises(text):
        if (m := EXERCISE_TITLE.match(ex.title)) is None:
            raise ValueError(f"{source.name}:{ex.line}: the title {ex.title!r} does not end in "
                             "'(difficulty, K min)'")
        exercises.append(ExerciseTime(ex.label, m["title"], m["difficulty"], int(m["minutes"])))
    return ChapterTime(source, numbers[0], numbers[1], tuple(exercises))


def course() -> list[ChapterTime]:
    """Every numbered chapter of the book (not the appendix), in order, with its times."""
    return [chapter_time(src) for src in chapters() if src.name[0].isdigit()]


@dataclass(frozen=True)
class Assignment:
    """One chapter of a session, with the exercises assigned with it."""

    session: str
    chapter: ChapterTime
    exercises: tuple[ExerciseTime, ...]

    @property
    def reading(self) -> int:
        return self.chapter.reading

    @property
    def exercise_minutes(self) -> int:
        return sum(ex.minutes for ex in self.exercises)


@dataclass(frozen=True)
class ReadingPath:
    id: str
    title: str
    sessions: tuple[str, ...]
    assignments: tuple[Assignment, ...]

    @property
    def reading(self) -> int:
        return sum(a.reading for a in self.assignments)

    @property
    def exercise_minutes(self) -> int:
        return sum(a.exercise_minutes for a in self.assignments)

    @property
    def total(self) -> int:
        return self.reading + self.exercise_minutes


def _assignment(entry: dict, session: str, chapters: dict, where: str) -> Assignment:
    stem, wanted = entry.get("chapter"), entry.get("exercises", [])
    if stem not in chapters:
        raise ValueError(f"{where}: no chapter {stem!r}; the chapters are {sorted(chapters)}")
    by_label = {ex.label: ex for ex in chapters[stem].exercises}
    if wanted == "all":
        wanted = list(by_label)
    if not isinstance(wanted, list):
        raise ValueError(f"{where}: exercises of {stem} should be a list of labels or 'all', "
                         f"got {wanted!r}")
    if unknown := [label for label in wanted if label not in by_label]:
        raise ValueError(f"{where}: {stem} has no exercise {unknown}; its exercises are "
                         f"{sorted(by_label)}")
    if len(set(wanted)) != len(wanted):
        raise ValueError(f"{where}: an exercise of {stem} is assigned twice: {wanted}")
    return Assignment(session, chapters[stem], tuple(by_label[label] for label in wanted))


def reading_paths(source: Path = PATHS_FILE) -> list[ReadingPath]:
    """The paths of ``source``, resolved against the book's chapters."""
    chapters = {c.source.stem: c for c in course()}
    entries = (yaml.safe_load(source.read_text()) or {}).get("paths")
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{source.name}: expected a non-empty list under 'paths'")
    paths = []
    for entry in entries:
        if not all(entry.get(k) for k in ("id", "title", "sessions")):
            raise ValueError(f"{source.name}: a path needs an id, a title and sessions")
        for s in entry["sessions"]:
            if not s.get("name") or not s.get("chapters"):
                raise ValueError(f"{source.name}, path {entry['id']}: a session needs a "
                                 "'name' and a list of 'chapters'")
        paths.append(ReadingPath(entry["id"], entry["title"], tuple(
            s["name"] for s in entry["sessions"]), tuple(
            _assignment(a, s["name"], chapters, f"{source.name}, path {entry['id']}")
            for s in entry["sessions"] for a in s["chapters"])))
    if len({p.id for p in paths}) != len(paths):
        raise ValueError(f"{source.name}: two paths share an id: {[p.id for p in paths]}")
    return paths


def hours(minutes: int) -> str:
    """Minutes as the guide writes a duration: '95 min (1 h 35 min)'."""
    h, m = divmod(minutes, 60)
    if h == 0:
        return f"{minutes} min"
    return f"{minutes} min ({h} h {m} min)" if m else f"{minutes} min ({h} h)"
