"""Where the time goes, in ``_build/bench.md``: a benchmark, never a test (it fails only when
something it runs fails). A time means something only beside the others of the same run.
Every chapter runs in a fresh kernel, one after another, as a reader's "restart and run all"
runs it (no ledger written, each figure drawn once: not the build's environment): its wall
time from the kernel's start to the end of its last cell (nbclient, loaded once, as a
reader's Jupyter is loaded before the chapter starts; the kernel's shutdown after it, which
no reader waits for, in a column of its own), the kernel's peak memory and the costliest
cells (nbclient's timing); then the book's costliest cells. With ``--stages``,
each stage of ``make test``, as it runs them (``make test-phases``; the rehearsal beside
them, ``make test-background``): each target's wall time and peak memory.

Usage: python -m book_tools.bench [--stages]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

from book_tools.notebooks import BOOK, REPO, chapters

CHAPTER_TARGET_S = 7.0
TOP_CELLS = 15
@dataclass(frozen=True)
class Run:
    """One process, waited for: its wall time, peak memory (MiB) and exit status."""

    seconds: float
    mib: float
    ok: bool


def timed(command: list[str], **popen) -> Run:
    """Run a command; time it and take the largest resident set of it and its children."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, **popen)
    _, status, usage = os.wait4(proc.pid, 0)
    return Run(time.perf_counter() - start, usage.ru_maxrss / 1024, status == 0)


def cell_seconds(nb: nbformat.NotebookNode) -> list[tuple[int, float, str]]:
    """(index among the code cells from 1, seconds, first line) of each executed cell."""
    out = []
    code = [c for c in nb.cells if c.cell_type == "code"]
    for i, cell in enumerate(code, 1):
        t = cell.metadata.get("execution", {})
        if "iopub.execute_input" in t and "shell.execute_reply" in t:
            took = (datetime.fromisoformat(t["shell.execute_reply"])
                    - datetime.fromisoformat(t["iopub.execute_input"])).total_seconds()
            first = next((x for x in cell.source.splitlines() if x.strip()), "")[:70]
            out.append((i, took, first))
    return out


@dataclass(frozen=True)
class ChapterRun(Run):
    """A chapter's ``Run`` (its wall time to the end of its last cell) and the seconds the
    kernel then took to shut down."""

    shutdown: float


def run_chapter(source: Path) -> tuple[ChapterRun, nbformat.NotebookNode]:
    """The chapter executed in a fresh kernel (run from book/, as the build runs it): the
    time from the kernel's start to the end of its last cell, the kernel's shutdown after
    it, and the kernel's peak memory."""
    nb = jupytext.read(source)
    peak: list[float] = []
    last_cell_done: list[float] = []

    def after_cell(**_) -> None:  # the kernel is gone at the end: its memory read now
        last_cell_done[:] = [time.perf_counter()]
        status = Path(f"/proc/{client.km.provisioner.pid}/status").read_text()
        peak.extend(int(line.split()[1]) / 1024 for line in status.splitlines()
                    if line.startswith("VmHWM:"))

    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(BOOK)}},
                            on_cell_executed=after_cell)
    start, ok = time.perf_counter(), True
    try:
        client.execute()
    except Exception:  # a failing cell: timed and reported, the next chapter runs
        ok = False
    end = time.perf_counter()
    done = last_cell_done[0] if ok and last_cell_done else end
    return ChapterRun(done - start, max(peak, default=0.0), ok, end - done), nb


def chapter_rows() -> tuple[list[str], bool]:
    rows = ["| chapter | wall time (s) | then kernel shutdown (s) | peak memory (MiB) "
            "| costliest cells (s) | status |", "|---|---:|---:|---:|---|---|"]
    cells, times, ok = [], [], True
    for source in chapters():
        run, nb = run_chapter(source)
        mine = cell_seconds(nb)
        cells += [(source.stem, *c) for c in mine]
        top = "; ".join(f"#{i} {s:.1f}" for i, s, _ in sorted(mine, key=lambda c: -c[1])[:3])
        status = ("FAILED" if not run.ok else "ok" if run.seconds <= CHAPTER_TARGET_S
                  else f"over the {CHAPTER_TARGET_S:.0f}-s target")
        rows.append(f"| {source.stem} | {run.seconds:.1f} | {run.shutdown:.1f} | {run.mib:.0f} "
                    f"| {top} | {status} |")
        print(rows[-1], flush=True)
        times.append(run.seconds)
        ok &= run.ok
    rows.append(f"| **median** / max | **{statistics.median(times):.1f}** / {max(times):.1f} "
                "| | | | |")
    rows += ["", f"| the {TOP_CELLS} costliest cells | cell | time (s) | what it does |",
             "|---|---:|---:|---|"]
    for chapter, i, seconds, first in sorted(cells, key=lambda c: -c[2])[:TOP_CELLS]:
        rows.append(f"| {chapter} | {i} | {seconds:.2f} | `{first.replace('|', '/')}` |")
    return rows, ok


def make_target(target: str, logs: Path) -> Run:
    with (logs / f"{target}.log").open("w") as log:
        return timed(["make", target], cwd=REPO, stdout=log, stderr=subprocess.STDOUT)


def make_list(target: str) -> list[str]:
    return subprocess.run(["make", "-s", "--no-print-directory", target], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout.split()


def stage_rows() -> tuple[list[str], bool]:
    """Each phase of make test in turn, its targets side by side, each timed; the background
    target beside the phases between the first and the last, as make test runs it."""
    phases, (background,) = make_list("test-phases"), make_list("test-background")
    rows = ["| stage of `make test` | wall time (s) | peak memory (MiB) | status |",
            "|---|---:|---:|---|"]
    logs, total, ok = REPO / "_build" / "bench-logs", 0.0, True
    logs.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(1) as beside:
        for k, phase in enumerate(phases):
            if k == 1:
                behind = beside.submit(make_target, background, logs)
            if k == len(phases) - 1:
                run = behind.result()
                rows.append(f"| {background} (beside the phases above) | {run.seconds:.0f} | "
                            f"{run.mib:.0f} | {_status(run, logs, background)} |")
                ok &= run.ok
            targets, start = phase.split(","), time.perf_counter()
            with ThreadPoolExecutor(len(targets)) as pool:
                runs = list(pool.map(lambda t: make_target(t, logs), targets))
            total += time.perf_counter() - start
            rows += [f"| {t} | {r.seconds:.0f} | {r.mib:.0f} | {_status(r, logs, t)} |"
                     for t, r in zip(targets, runs, strict=True)]
            if len(targets) > 1:
                rows.append(f"| *{' and '.join(targets)}, side by side* | "
                            f"{time.perf_counter() - start:.0f} | | |")
            print("\n".join(rows[-len(targets) - (len(targets) > 1):]), flush=True)
            ok &= all(r.ok for r in runs)
            if not ok:
                return rows, False
    return [*rows, f"| **total** | **{total:.0f}** | | |"], True


def _status(run: Run, logs: Path, target: str) -> str:
    return "ok" if run.ok else f"FAILED (see {logs / target}.log)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stages", action="store_true", help="also time every stage of make test")
    args = ap.parse_args(argv)
    rows, ok = chapter_rows()
    if args.stages:
        stages, stages_ok = stage_rows()
        rows += ["", *stages]
        ok &= stages_ok
    (REPO / "_build").mkdir(exist_ok=True)
    (REPO / "_build" / "bench.md").write_text("\n".join(rows) + "\n")
    print("\n" + "\n".join(rows))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
