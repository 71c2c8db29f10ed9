"""Execution time and peak memory of every chapter, one fresh kernel each, and the
checkpoint's load time.

Writes a Markdown table to _build/bench.md and prints it. Peak memory is the largest
resident set of the runner and its kernel (the kernel dominates).

The load rows time ``load_checkpoint()`` in a fresh process (the import before it, which
every chapter pays anyway, is shown apart): *cold* with an empty verdict cache (every
tensor hashed against the official fingerprints), *warm* with the verdict cached by the
cold run. The file itself is in the operating system's page cache in both. The full-size
rehearsal stand-in is timed too when ``_build/standin`` holds one (``make rehearsal``
builds it); hashing its 500 MB happens once per file, so its cold row has no budget.

Usage: python -m book_tools.bench [--load-only]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from book_tools.notebooks import REPO, chapters

BUDGET_S = 15.0
LOAD_BUDGET_S = 1.0
LOAD = ("import time; t0 = time.perf_counter(); "
        "from attention_book.checkpoint import load_checkpoint; t1 = time.perf_counter(); "
        "c = load_checkpoint(); t2 = time.perf_counter(); "
        "print(t2 - t1, t1 - t0, len(c.tensors), c.provenance)")


def run(nb: Path) -> tuple[float, float, bool]:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "book_tools.run_chapter", "--quiet", str(nb)],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, status == 0


def load_once(env: dict[str, str]) -> tuple[float, float, float, str]:
    """(seconds of load_checkpoint(), of its import, peak MiB, what was loaded), in a fresh
    process."""
    proc = subprocess.Popen([sys.executable, "-c", LOAD], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    out, err = proc.stdout.read(), proc.stderr.read()
    if status != 0:
        raise RuntimeError(f"load_checkpoint() failed: {err.strip()[-500:]}")
    seconds, imported, n, provenance = out.split()
    return float(seconds), float(imported), usage.ru_maxrss / 1024, f"{n} tensors, {provenance}"


def load_rows() -> tuple[list[str], bool]:
    """Cold and warm load of the located checkpoint (and of the stand-in, when built)."""
    from attention_book import checkpoint as ck

    targets = [("checkpoint", {})]
    standin = REPO / "_build" / "standin"
    if (standin / ck.WEIGHTS_FILE).is_file():
        targets.append(("rehearsal stand-in", {ck.ENV_VAR: str(standin), ck.REHEARSAL_VAR: "1"}))
    rows, ok = [], True
    for label, extra in targets:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, **extra, **{ck.CACHE_VAR: cache})
            env.setdefault("OPENBLAS_NUM_THREADS", "1")
            for state in ("cold", "warm"):
                seconds, imported, mib, what = load_once(env)
                # Hashing the full-size stand-in's 500 MB happens once per file: no budget.
                within = seconds < LOAD_BUDGET_S or (label != "checkpoint" and state == "cold")
                ok &= within
                rows.append(f"| load {label} ({what}), verdict cache {state}; the import of "
                            f"numpy and the loader before it: {imported:.2f} s | {seconds:.2f} | "
                            f"{mib:.0f} | {'ok' if within else f'over {LOAD_BUDGET_S:.0f} s'} |")
                print(rows[-1], flush=True)
    return rows, ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load-only", action="store_true", help="only the checkpoint's load time")
    args = ap.parse_args(argv)
    rows = ["| what | wall time (s) | peak memory (MiB) | status |", "|---|---:|---:|---|"]
    new_rows, ok = load_rows()
    rows += new_rows
    for nb in [] if args.load_only else chapters():
        seconds, mib, passed = run(nb)
        within = passed and seconds < BUDGET_S
        ok &= within
        status = "ok" if within else ("FAILED" if not passed else f"over {BUDGET_S:.0f} s")
        rows.append(f"| {nb.name} | {seconds:.1f} | {mib:.0f} | {status} |")
        print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    (REPO / "_build").mkdir(exist_ok=True)
    (REPO / "_build" / ("bench-load.md" if args.load_only else "bench.md")).write_text(table)
    print("\n" + table)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
