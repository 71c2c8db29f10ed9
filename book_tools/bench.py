"""Execution time and peak memory of every chapter, one fresh kernel each.

Writes a Markdown table to _build/bench.md and prints it. Peak memory is the largest
resident set of the runner and its kernel (the kernel dominates)."""

import os
import subprocess
import sys
import time
from pathlib import Path

from book_tools.notebooks import REPO, chapters

BUDGET_S = 15.0


def run(nb: Path) -> tuple[float, float, bool]:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "book_tools.run_chapter", "--quiet", str(nb)],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, status == 0


def main() -> int:
    rows = ["| chapter | wall time (s) | peak memory (MiB) | status |", "|---|---:|---:|---|"]
    ok = True
    for nb in chapters():
        seconds, mib, passed = run(nb)
        within = passed and seconds < BUDGET_S
        ok &= within
        status = "ok" if within else ("FAILED" if not passed else f"over {BUDGET_S:.0f} s")
        rows.append(f"| {nb.name} | {seconds:.1f} | {mib:.0f} | {status} |")
        print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    (REPO / "_build").mkdir(exist_ok=True)
    (REPO / "_build" / "bench.md").write_text(table)
    print("\n" + table)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
