"""The stages of ``make test``, run as it runs them and timed (for ``book_tools.bench``).

The stages are read from the Makefile's ``test`` rule: each prerequisite is a stage run
alone, in order; a ``[nice -n N] $(MAKE) [options] A B`` line of its recipe is one stage
whose targets run side by side, at that niceness (each is timed, and so is the stage). A
target whose own rule is such a chain (``book-checks``: its prerequisites, then its
``$(MAKE)`` lines) is timed stage by stage in the same way, inside its place beside the
others. A stage that fails stops the timing of its chain there: what follows depends on
it.

Each stage of ``make test`` itself is also measured in core-seconds: how long the
machine's cores were busy meanwhile (``/proc/stat``; every process, so the browsers that
no ``make`` waits for are counted, and so is anything else running: read it on an idle
machine). That is the work apart from how the stages share the cores, and the least wall
time it needs however it is arranged.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from book_tools import host_speed
from book_tools.notebooks import REPO

SUB_MAKE = re.compile(r"^(?:nice -n (\d+)\s+)?\$\(MAKE\)\s+(.+)$")


@dataclass(frozen=True)
class Group:
    """Targets run side by side, at a niceness."""

    targets: list[str]
    nice: int = 0


@dataclass(frozen=True)
class Timed:
    target: str
    seconds: float
    ok: bool
    log: Path | None  # None for a chain: its stages have the logs
    parts: tuple[Stage, ...] = ()  # a chain's own stages, in order


@dataclass(frozen=True)
class Stage:
    targets: tuple[Timed, ...]  # side by side
    seconds: float
    busy_s: float | None  # the machine's busy core-seconds meanwhile (None: not measured)

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.targets)


def _rule(text: str, target: str) -> tuple[list[str], list[str]] | None:
    """A target's prerequisites and recipe lines, or None when it has no rule."""
    match = re.search(rf"^{re.escape(target)}:([^\n]*)\n((?:\t[^\n]*\n)*)", text, re.M)
    if match is None:
        return None
    prerequisites = match.group(1).split("|")[0].split()
    return prerequisites, [line.strip() for line in match.group(2).splitlines()]


def stages_of(target: str, makefile: Path = REPO / "Makefile") -> list[Group] | None:
    """A chain's stages (groups of targets, a group's targets side by side), or None when
    the target's recipe is not a chain of ``$(MAKE)`` lines."""
    text = makefile.read_text()
    rule = _rule(text, target)
    if rule is None:
        raise ValueError(f"{makefile} has no '{target}:' rule to time")
    prerequisites, recipe = rule
    subs = [SUB_MAKE.match(line) for line in recipe]
    if not recipe or not all(subs):
        return None
    return [Group([p]) for p in prerequisites] + [
        Group([t for t in m.group(2).split() if not t.startswith("-")], int(m.group(1) or 0))
        for m in subs]


def stages_of_test(makefile: Path = REPO / "Makefile") -> list[Group]:
    stages = stages_of("test", makefile)
    if stages is None:
        raise ValueError(f"{makefile}'s 'test:' recipe is not a chain of $(MAKE) lines")
    return stages


def _run(target: str, nice: int, logs: Path, make_flags: list[str]) -> Timed:
    if (chain := stages_of(target)) is not None:
        start = time.perf_counter()
        parts = _run_chain(chain, logs, make_flags, nice)
        return Timed(target, time.perf_counter() - start, all(s.ok for s in parts), None,
                     tuple(parts))
    log = logs / f"{target}.log"
    start = time.perf_counter()
    with log.open("w") as out:
        status = subprocess.call([*(["nice", "-n", str(nice)] if nice else []), "make",
                                  *make_flags, target], cwd=REPO, stdout=out,
                                 stderr=subprocess.STDOUT)
    return Timed(target, time.perf_counter() - start, status == 0, log)


def _run_chain(chain: list[Group], logs: Path, make_flags: list[str], nice: int = 0,
               busy: bool = False) -> list[Stage]:
    """The chain's stages in order; ``busy``: with the machine's busy core-seconds of
    each (only where nothing else of the chain runs beside it: the top level)."""
    done = []
    for group in chain:
        before = host_speed.core_times() if busy else None
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(group.targets)) as pool:
            run = functools.partial(_run, nice=nice + group.nice, logs=logs,
                                    make_flags=make_flags)
            timed = tuple(pool.map(run, group.targets))
        seconds, after = time.perf_counter() - start, host_speed.core_times() if busy else None
        measured = before is not None and after is not None
        done.append(Stage(timed, seconds, after.busy - before.busy if measured else None))
        print(" + ".join(f"{t.target} {t.seconds:.0f} s{'' if t.ok else ' FAILED'}"
                         for t in timed), flush=True)
        if not done[-1].ok:
            break
    return done


def time_stages(logs: Path, make_flags: list[str]) -> list[Stage]:
    """Run every stage of ``make test`` as it runs them; each stage and target timed."""
    logs.mkdir(parents=True, exist_ok=True)
    return _run_chain(stages_of_test(), logs, make_flags, busy=True)


def _status(t: Timed) -> str:
    if t.ok:
        return "ok"
    return f"FAILED (log: {t.log})" if t.log else "FAILED"


def _rows(stages: list[Stage] | tuple[Stage, ...], depth: int) -> list[str]:
    indent = "&nbsp;&nbsp;" * depth
    rows = []
    for stage in stages:
        inner = depth
        if len(stage.targets) > 1:
            names = " and ".join(t.target for t in stage.targets)
            rows.append(f"| {indent}{names}, side by side | {stage.seconds:.0f} |"
                        f"{_busy(stage)}| {'ok' if stage.ok else 'FAILED'} |")
            inner = depth + 1
        for t in stage.targets:
            if len(stage.targets) > 1 or t.parts:
                rows.append(f"| {'&nbsp;&nbsp;' * inner}{t.target}"
                            f"{', in turn:' if t.parts else ''} | {t.seconds:.0f} | | "
                            f"{_status(t)} |")
            else:
                rows.append(f"| {indent}{t.target} | {t.seconds:.0f} |{_busy(stage)}| "
                            f"{_status(t)} |")
            rows += _rows(t.parts, inner + 1)
    return rows


def _busy(stage: Stage) -> str:
    """The stage's busy core-seconds as a table cell, padded ("| |" when not measured)."""
    return " " if stage.busy_s is None else f" {stage.busy_s:.0f} "


def stage_rows(done: list[Stage], cores: int | None = None) -> list[str]:
    """The stages as Markdown table rows (a chain's stages indented under it), their
    total, and the least wall time their busy core-seconds need on ``cores`` cores
    (default: this machine's)."""
    rows = ["| stage of `make test` | wall time (s) | machine busy (core-s) | status |",
            "|---|---:|---:|---|"]
    rows += _rows(done, 0)
    measured = all(s.busy_s is not None for s in done)
    busy = sum(s.busy_s for s in done) if measured else None
    rows.append(f"| **total** | **{sum(s.seconds for s in done):.0f}** |"
                f"{' ' if busy is None else f' **{busy:.0f}** '}| |")
    if busy is not None:
        cores = cores or os.cpu_count() or 1
        rows += ["", f"That work needs at least {busy / cores:.0f} s of wall time on {cores} "
                     "cores, however the stages are arranged."]
    return rows
