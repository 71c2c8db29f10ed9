"""The stages of ``make test``, each run on its own and timed (for ``book_tools.bench``).

The stages are read from the Makefile's ``test`` rule: each prerequisite is a stage run
alone, in order; a ``$(MAKE) -jN A B`` line of its recipe is one stage whose targets run
side by side (each is timed, and so is the pair). A stage that fails stops the timing
there: what follows depends on it.
"""

from __future__ import annotations

import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from book_tools.notebooks import REPO

RULE = re.compile(r"^test:([^\n]*)\n((?:\t[^\n]*\n)*)", re.M)
SUB_MAKE = re.compile(r"\$\(MAKE\)\s+(?:-j\s*\d+\s+)?(.+)$")


@dataclass(frozen=True)
class Timed:
    target: str
    seconds: float
    ok: bool
    log: Path


def stages_of_test(makefile: Path = REPO / "Makefile") -> list[list[str]]:
    """The stages of ``make test``: groups of targets, a group's targets side by side."""
    match = RULE.search(makefile.read_text())
    if match is None:
        raise ValueError(f"{makefile} has no 'test:' rule to time")
    stages = [[t] for t in match.group(1).split()]
    for line in match.group(2).splitlines():
        if (sub := SUB_MAKE.search(line.strip())) is not None:
            stages.append(sub.group(1).split())
    return stages


def _run(target: str, logs: Path, make_flags: list[str]) -> Timed:
    log = logs / f"{target}.log"
    start = time.perf_counter()
    with log.open("w") as out:
        status = subprocess.call(["make", *make_flags, target], cwd=REPO, stdout=out,
                                 stderr=subprocess.STDOUT)
    return Timed(target, time.perf_counter() - start, status == 0, log)


def time_stages(logs: Path, make_flags: list[str]) -> list[tuple[list[Timed], float]]:
    """Run every stage of ``make test``; (its targets timed, the stage's wall time)."""
    logs.mkdir(parents=True, exist_ok=True)
    done = []
    for stage in stages_of_test():
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(stage)) as pool:
            timed = list(pool.map(lambda t: _run(t, logs, make_flags), stage))
        done.append((timed, time.perf_counter() - start))
        print(" + ".join(f"{t.target} {t.seconds:.0f} s{'' if t.ok else ' FAILED'}"
                         for t in timed), flush=True)
        if not all(t.ok for t in timed):
            break
    return done


def stage_rows(done: list[tuple[list[Timed], float]]) -> list[str]:
    """The stages as Markdown table rows, and their total."""
    rows = ["| stage of `make test` | wall time (s) | status |", "|---|---:|---|"]
    for timed, wall in done:
        if len(timed) > 1:
            rows.append(f"| {' and '.join(t.target for t in timed)}, side by side | "
                        f"{wall:.0f} | {'ok' if all(t.ok for t in timed) else 'FAILED'} |")
        for t in timed:
            indent = "&nbsp;&nbsp;" if len(timed) > 1 else ""
            rows.append(f"| {indent}{t.target} | {t.seconds:.0f} | "
                        f"{'ok' if t.ok else f'FAILED (log: {t.log})'} |")
    rows.append(f"| **total** | **{sum(wall for _, wall in done):.0f}** | |")
    return rows
