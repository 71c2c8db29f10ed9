"""Where a chapter's MyST source holds its exercises and their solutions.

A solution is everything from a ```` ```{solution-start} <label> ```` directive to its
```` ```{solution-end} ```` (or a one-piece ```` ```{solution} ```` directive). The student
edition and the notebooks published for Colab and Binder remove them; the site keeps them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The opening line of a directive: its fence (``` or :::, three or more) and its name.
OPENING = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w-]+)\}[ \t]*(?P<argument>.*?)\s*$")
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
    line: int


def _closing(lines: list[str], start: int, fence: str) -> int:
    """Index of the line that closes the directive opened at ``start`` with ``fence``: the
    first later line made only of the fence's character, at least as many of them."""
    char, width = fence[0], len(fence)
    close = re.compile(rf"^{re.escape(char)}{{{width},}}\s*$")
    for i in range(start + 1, len(lines)):
        if close.match(lines[i]):
            return i
    raise ValueError(f"line {start + 1}: the directive opened with {fence} is never closed")


def _options(lines: list[str], start: int, stop: int) -> dict[str, str]:
    """The ``:key: value`` options at the top of a directive's body."""
    out = {}
    for line in lines[start + 1:stop]:
        m = re.match(r"^:([\w-]+):\s*(.*?)\s*$", line)
        if not m:
            break
        out[m.group(1)] = m.group(2)
    return out


def find_solutions(text: str) -> list[Solution]:
    """Every solution of a MyST document, gated or in one piece, in order."""
    lines = text.splitlines(keepends=True)
    found, i = [], 0
    while i < len(lines):
        m = OPENING.match(lines[i])
        if not m:
            i += 1
            continue
        name, fence = m.group("name"), m.group("fence")
        if name == "solution":
            end = _closing(lines, i, fence) + 1
        elif name == "solution-start":
            j = _closing(lines, i, fence) + 1
            while j < len(lines) and not ((e := OPENING.match(lines[j]))
                                          and e.group("name") == "solution-end"):
                if (e := OPENING.match(lines[j])) and e.group("name") == "solution-start":
                    raise ValueError(f"line {j + 1}: solution-start inside the solution "
                                     f"opened on line {i + 1}")
                j += 1
            if j == len(lines):
                raise ValueError(f"line {i + 1}: solution-start without a solution-end")
            end = _closing(lines, j, OPENING.match(lines[j]).group("fence")) + 1
        elif name == "solution-end":
            raise ValueError(f"line {i + 1}: solution-end without a solution-start")
        else:
            i += 1
            continue
        found.append(Solution(m.group("argument"), i, end, "".join(lines[i:end])))
        i = end
    return found


def find_exercises(text: str) -> list[ExerciseInfo]:
    """Every ``{exercise}`` (or ``{exercise-start}``) of a MyST document: label and title."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        m = OPENING.match(line)
        if m and m.group("name") in ("exercise", "exercise-start"):
            opts = _options(lines, i, len(lines))
            out.append(ExerciseInfo(opts.get("label", ""), m.group("argument"), i + 1))
    return out
