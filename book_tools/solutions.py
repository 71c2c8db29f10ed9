"""Where a chapter's MyST source holds its exercises and their solutions, read with
markdown-it (``book_tools.myst_index``). A solution runs from a ``{solution-start} <label>``
directive to its ``{solution-end}``, or is one ``{solution}`` directive."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from book_tools.myst_index import Directive, directive, parser

EXERCISE_TITLE = re.compile(
    r"^(?P<title>.*\S)\s+\((?P<difficulty>warm-up|standard|challenging),\s*"
    r"(?P<minutes>\d+)\s*min\)$")


@dataclass(frozen=True)
class Solution:
    label: str       # the exercise the solution answers
    start: int       # first line (0-based) of the solution's text, its opening directive
    end: int         # one past its last line
    text: str        # what is removed


@dataclass(frozen=True)
class ExerciseInfo:
    label: str
    title: str       # as written after {exercise}, e.g. "Layer 5 by hand (warm-up, 10 min)"
    line: int        # from 1


def directives(text: str) -> Iterator[tuple[Directive, int, int]]:
    """Each top-level directive, with its first line (0-based) and one past its last."""
    for token in parser().parse(text):
        if token.level == 0 and (d := directive(token)) is not None:
            yield d, *token.map


def find_solutions(text: str) -> list[Solution]:
    """Every solution of a MyST document, gated or in one piece, in order."""
    lines, found, opened = text.splitlines(keepends=True), [], None
    for d, start, end in directives(text):
        if d.name == "solution-start" and opened is not None:
            raise ValueError(f"line {start + 1}: solution-start inside the solution opened "
                             f"on line {opened[1] + 1}")
        if d.name == "solution-end" and opened is None:
            raise ValueError(f"line {start + 1}: solution-end without a solution-start")
        if d.name == "solution-start":
            opened = (d.argument, start)
        elif d.name == "solution-end" or (d.name == "solution" and opened is None):
            label, first = opened or (d.argument, start)
            found.append(Solution(label, first, end, "".join(lines[first:end])))
            opened = None
    if opened is not None:
        raise ValueError(f"line {opened[1] + 1}: solution-start without a solution-end")
    return found


def find_exercises(text: str) -> list[ExerciseInfo]:
    """Every ``{exercise}`` (or ``{exercise-start}``) of a MyST document: label and title."""
    return [ExerciseInfo(d.options.get("label", ""), d.argument, start + 1)
            for d, start, _ in directives(text) if d.name in ("exercise", "exercise-start")]
