"""The instructor's guide's reading paths, with their times added up from the chapters.

``book/reading_paths.yml`` names, for each path, its sessions, each session's chapters and
the exercises assigned with each chapter. The times are not written there: a chapter
contributes the reading time of its ``**Time.**`` line and an exercise the minutes in its
title (``book_tools.course``), so a path's time changes when a chapter's does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from book_tools.course import ChapterTime, ExerciseTime, course

REPO = Path(__file__).resolve().parent.parent
PATHS_FILE = REPO / "book" / "reading_paths.yml"
ALL = "all"


@dataclass(frozen=True)
class Assignment:
    """One chapter of a session, with the exercises assigned with it."""

    chapter: ChapterTime
    exercises: tuple[ExerciseTime, ...]

    @property
    def reading(self) -> int:
        return self.chapter.reading

    @property
    def exercise_minutes(self) -> int:
        return sum(ex.minutes for ex in self.exercises)


@dataclass(frozen=True)
class Session:
    name: str
    assignments: tuple[Assignment, ...]

    @property
    def reading(self) -> int:
        return sum(a.reading for a in self.assignments)

    @property
    def exercise_minutes(self) -> int:
        return sum(a.exercise_minutes for a in self.assignments)


@dataclass(frozen=True)
class ReadingPath:
    id: str
    title: str
    sessions: tuple[Session, ...]

    @property
    def assignments(self) -> tuple[Assignment, ...]:
        return tuple(a for s in self.sessions for a in s.assignments)

    @property
    def reading(self) -> int:
        return sum(s.reading for s in self.sessions)

    @property
    def exercise_minutes(self) -> int:
        return sum(s.exercise_minutes for s in self.sessions)

    @property
    def total(self) -> int:
        return self.reading + self.exercise_minutes


def _assignment(entry: dict, chapters: dict[str, ChapterTime], where: str) -> Assignment:
    stem = entry.get("chapter")
    if stem not in chapters:
        raise ValueError(f"{where}: no chapter {stem!r}; the chapters are {sorted(chapters)}")
    chapter = chapters[stem]
    wanted = entry.get("exercises", [])
    if wanted == ALL:
        return Assignment(chapter, chapter.exercises)
    if not isinstance(wanted, list):
        raise ValueError(f"{where}: exercises of {stem} should be a list of labels or "
                         f"'{ALL}', got {wanted!r}")
    by_label = {ex.label: ex for ex in chapter.exercises}
    unknown = [label for label in wanted if label not in by_label]
    if unknown:
        raise ValueError(f"{where}: {stem} has no exercise {unknown}; its exercises are "
                         f"{sorted(by_label)}")
    if len(set(wanted)) != len(wanted):
        raise ValueError(f"{where}: an exercise of {stem} is assigned twice: {wanted}")
    return Assignment(chapter, tuple(by_label[label] for label in wanted))


def _path(entry: dict, chapters: dict[str, ChapterTime], where: str) -> ReadingPath:
    for key in ("id", "title", "sessions"):
        if not entry.get(key):
            raise ValueError(f"{where}: a path needs '{key}' (id, title, sessions)")
    sessions = []
    for i, session in enumerate(entry["sessions"]):
        at = f"{where}, path {entry['id']}, session {i + 1}"
        if not session.get("name") or not session.get("chapters"):
            raise ValueError(f"{at}: a session needs a 'name' and a list of 'chapters'")
        sessions.append(Session(session["name"], tuple(
            _assignment(a, chapters, at) for a in session["chapters"])))
    return ReadingPath(entry["id"], entry["title"], tuple(sessions))


def reading_paths(source: Path = PATHS_FILE,
                  chapters: list[ChapterTime] | None = None) -> list[ReadingPath]:
    """The paths of ``source``, resolved against the chapters (default: the book's)."""
    by_stem = {c.source.stem: c for c in (chapters if chapters is not None else course())}
    data = yaml.safe_load(source.read_text()) or {}
    entries = data.get("paths")
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{source.name}: expected a non-empty list under 'paths'")
    paths = [_path(e, by_stem, source.name) for e in entries]
    ids = [p.id for p in paths]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{source.name}: two paths share an id: {ids}")
    return paths


def hours(minutes: int) -> str:
    """Minutes as the guide writes a duration: '95 min (1 h 35 min)'."""
    h, m = divmod(minutes, 60)
    if h == 0:
        return f"{minutes} min"
    return f"{minutes} min ({h} h {m} min)" if m else f"{minutes} min ({h} h)"
