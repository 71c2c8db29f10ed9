"""How fast this machine was while the bench ran, so that runs of different days compare.

A shared 2-core host's speed changes from day to day (the same commit's chapter median went
from 4.8 to 8.2 s between two days), so a chapter's time alone does not say whether the
chapter or the host got slower. The bench reports, beside its tables:

* a calibration before and after the chapters: the best of three runs of a fixed float64
  matrix product (BLAS, as the chapters' linear algebra), of a fixed pure-Python loop
  (the interpreter, as SymPy and plotting) and of a copy of 256 MiB (memory bandwidth:
  a chapter's arrays do not fit in the processor's caches, the product's do), so a slower
  host shows as a lower rate; and the median over three new processes of the time to
  touch fresh memory for the first time (a chapter's kernel touches 350-1200 MiB);
* over the chapters, the machine's core time from ``/proc/stat``: the share stolen by the
  hypervisor (``steal``) and the share used by processes other than the chapters (all busy
  time less the chapters' own, from their resource usage). Both are near 0 on an idle host;
* the chapters' own CPU time, and the part of it spent in the operating system;
* what the chapters read from disk (their resource usage: blocks read, and the page
  faults that waited for the disk). Libraries and weights come from the page cache when
  they were read recently; a host that reclaims the cache reads them again. This one does:
  on 2026-12-03 its kernel ran a DAMON ``pageout`` scheme for pages idle about a minute,
  one chapter bench read 1.1 GB from disk, and ``import torch`` took 2.5 s with its files
  out of the cache (228 MiB read) against 1.8-1.9 s with them in it.

It shows what it can measure, not every cause: on 2026-12-03 the chapter median moved
between 4.9 and 6.3 s within two hours with the calibration within 5 % and nothing else
running. Later that day the pure-Python loop took 0.24-0.28 s instead of 0.15-0.20 s,
and the chapters 78-84 s of CPU time instead of 72-76 s (median 5.7-6.2 s), with no core
time stolen and under 0.3 GB read from disk: a slower host, seen by the interpreter row.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PROC_STAT = Path("/proc/stat")
MATMUL_N = 768      # the widest linear algebra of the chapters (d_model)
MATMUL_REPEATS = 8  # products per timed run
PYTHON_LOOP = 5_000_000
RUNS = 3            # timed runs of each workload; the best is reported
BLOCK = 512         # the unit of ru_inblock on Linux, whatever the disk's block size
COPY_MIB = 256      # copied from one touched array to another: memory, not cache
FRESH_MIB = 256     # memory a new process touches for the first time (a chapter: 350-1200)
# In a new process, as a chapter's kernel is: the time to touch FRESH_MIB for the first
# time. On a virtual machine whose host reclaims free memory (a balloon), pages unused for
# a while cost a fault on the host too: from 0.02 to 0.7 s for these 256 MiB here.
FRESH_TOUCH = (f"import time, numpy as np; a = np.empty({FRESH_MIB} << 20, np.uint8); "
               "t = time.perf_counter(); a[:] = 1; print(time.perf_counter() - t)")


@dataclass(frozen=True)
class CoreTimes:
    """Cumulative core-seconds of the whole machine since boot (``/proc/stat``, all CPUs)."""

    busy: float   # user, nice, system, irq, softirq
    idle: float   # idle and iowait
    steal: float  # taken by the hypervisor for other guests


@dataclass(frozen=True)
class Calibration:
    gflops: float    # float64 matrix product, GFLOP/s
    python_s: float  # the fixed pure-Python loop, seconds
    copy_gbs: float  # COPY_MIB copied, GB/s read and written
    fresh_s: float   # FRESH_MIB touched for the first time in a new process (median)


@dataclass(frozen=True)
class DiskReads:
    """What processes read from disk rather than from the page cache."""

    mib: float         # blocks read (files, and memory maps of files, not cached)
    major_faults: int  # page faults that waited for the disk

    @classmethod
    def total(cls, reads: Iterable[DiskReads]) -> DiskReads:
        reads = list(reads)
        return cls(sum(r.mib for r in reads), sum(r.major_faults for r in reads))


@dataclass(frozen=True)
class ChapterTime:
    """What the chapters took, summed: wall time and their own CPU time (runners and
    kernels, from their resource usage), the part of it in the operating system, and
    what they read from disk."""

    wall_s: float
    cpu_s: float
    system_s: float
    disk: DiskReads


def disk_reads(usage: resource.struct_rusage) -> DiskReads:
    """The disk reads in a resource usage (``os.wait4``'s: a process and the children it
    waited for)."""
    return DiskReads(usage.ru_inblock * BLOCK / 2**20, usage.ru_majflt)


def core_times(stat: Path = PROC_STAT) -> CoreTimes | None:
    """The machine's core times now, or None where there is no ``/proc/stat`` (not Linux)."""
    try:
        first = stat.read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    if first[0] != "cpu" or len(first) < 9:
        return None
    user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in first[1:9])
    tick = os.sysconf("SC_CLK_TCK")  # /proc/stat counts in clock ticks
    return CoreTimes((user + nice + system + irq + softirq) / tick, (idle + iowait) / tick,
                     steal / tick)


def calibrate() -> Calibration:
    """The best of RUNS timings of each fixed workload (seeded: the same work every run)."""
    a = np.random.default_rng(0).standard_normal((MATMUL_N, MATMUL_N))
    product = []
    for _ in range(RUNS):
        start = time.perf_counter()
        for _ in range(MATMUL_REPEATS):
            a @ a
        product.append(time.perf_counter() - start)
    loop = []
    for _ in range(RUNS):
        start = time.perf_counter()
        total = 0
        for i in range(PYTHON_LOOP):
            total += i * i
        loop.append(time.perf_counter() - start)
    flops = 2 * MATMUL_N**3 * MATMUL_REPEATS
    return Calibration(flops / min(product) / 1e9, min(loop), copy_gbs(), fresh_memory_s())


def copy_gbs() -> float:
    """The best of RUNS copies of COPY_MIB between two arrays already in memory, in GB/s
    read and written."""
    source = np.ones((COPY_MIB << 20) // 8)
    target = np.zeros_like(source)
    seconds = []
    for _ in range(RUNS):
        start = time.perf_counter()
        np.copyto(target, source)
        seconds.append(time.perf_counter() - start)
    return 2 * source.nbytes / min(seconds) / 1e9


def fresh_memory_s() -> float:
    """The median over RUNS new processes of the time to touch FRESH_MIB for the first
    time (the median: this cost is the host's state, not a best case)."""
    return statistics.median(
        float(subprocess.run([sys.executable, "-c", FRESH_TOUCH], check=True,
                             capture_output=True, text=True).stdout)
        for _ in range(RUNS))


def shares(before: CoreTimes, after: CoreTimes, own_s: float) -> tuple[float, float]:
    """(stolen, used by other processes), as shares of the machine's core time between two
    readings; ``own_s`` is the measured processes' own CPU time in that interval."""
    busy, idle, steal = (after.busy - before.busy, after.idle - before.idle,
                         after.steal - before.steal)
    total = busy + idle + steal
    if total <= 0:
        return 0.0, 0.0
    return steal / total, max(busy - own_s, 0.0) / total


def host_rows(calibrations: tuple[Calibration, Calibration],
              before: CoreTimes | None, after: CoreTimes | None,
              chapters: ChapterTime) -> list[str]:
    """The host table of the bench: the calibration before and after the chapters, what
    the rest of the machine did while they ran, and the chapters' own CPU time."""
    first, last = calibrations
    rows = ["| this host, while the chapters ran | before | after |", "|---|---:|---:|",
            f"| float64 product {MATMUL_N} x {MATMUL_N}, GFLOP/s (higher is faster) | "
            f"{first.gflops:.1f} | {last.gflops:.1f} |",
            f"| pure-Python loop of {PYTHON_LOOP:,} steps, s (lower is faster) | "
            f"{first.python_s:.3f} | {last.python_s:.3f} |",
            f"| {COPY_MIB} MiB copied in memory, GB/s read and written (higher is faster) | "
            f"{first.copy_gbs:.1f} | {last.copy_gbs:.1f} |",
            f"| {FRESH_MIB} MiB touched for the first time in a new process, s (lower is "
            f"faster) | {first.fresh_s:.2f} | {last.fresh_s:.2f} |"]
    if before is None or after is None:
        rows.append("| core time stolen, and used by other processes | no /proc/stat here | |")
    else:
        stolen, others = shares(before, after, chapters.cpu_s)
        rows.append(f"| core time over the chapters: stolen by the hypervisor / used by other "
                    f"processes | {stolen:.0%} / {others:.0%} | |")
    rows.append(f"| the chapters' CPU time: in all / in the operating system (page faults, "
                f"I/O), s, over {chapters.wall_s:.1f} s of wall time | {chapters.cpu_s:.1f} / "
                f"{chapters.system_s:.1f} | |")
    rows.append(f"| the chapters' reads from disk (what was not in the page cache): MiB / page "
                f"faults that waited for it | {chapters.disk.mib:.0f} / "
                f"{chapters.disk.major_faults:,} | |")
    return rows
