"""The bench's host table: the machine's core times read from /proc/stat, the shares stolen
and used by other processes between two readings, and the table that reports them."""

import os
import subprocess
import sys

import pytest

from book_tools.host_speed import (
    Calibration,
    ChapterTime,
    CoreTimes,
    DiskReads,
    core_times,
    disk_reads,
    host_rows,
    shares,
)

TICK = os.sysconf("SC_CLK_TCK")


def stat_file(tmp_path, fields):
    path = tmp_path / "stat"
    path.write_text("cpu  " + " ".join(str(f) for f in fields) + " 0 0\ncpu0 1 2 3\n")
    return path


def test_core_times_sum_the_busy_fields_and_keep_idle_and_steal_apart(tmp_path):
    # user nice system idle iowait irq softirq steal
    times = core_times(stat_file(tmp_path, [10, 1, 4, 50, 2, 3, 2, 7]))
    assert times == CoreTimes(busy=20 / TICK, idle=52 / TICK, steal=7 / TICK)


@pytest.mark.parametrize("text", [None, "intr 1 2 3\n", "cpu 1 2\n"])
def test_no_or_a_foreign_proc_stat_gives_none(tmp_path, text):
    path = tmp_path / "stat"
    if text is not None:
        path.write_text(text)
    assert core_times(path) is None


def test_shares_split_the_interval_into_stolen_and_other_processes():
    before, after = CoreTimes(100, 100, 10), CoreTimes(110, 108, 12)  # 20 core-s passed
    assert shares(before, after, own_s=4) == pytest.approx((2 / 20, 6 / 20))
    assert shares(before, after, own_s=50) == pytest.approx((0.1, 0.0))  # never negative
    assert shares(before, before, own_s=0) == (0.0, 0.0)


def test_the_table_reports_both_calibrations_and_the_shares():
    rows = host_rows((Calibration(40.0, 0.150, 21.0, 0.05), Calibration(20.0, 0.300, 9.5, 0.70)),
                     CoreTimes(100, 100, 10), CoreTimes(110, 108, 12),
                     ChapterTime(wall_s=5.0, cpu_s=4.0, system_s=0.5,
                                 disk=DiskReads(0.0, 0)))
    text = "\n".join(rows)
    assert "| 40.0 | 20.0 |" in text and "| 0.150 | 0.300 |" in text
    assert "| 0.05 | 0.70 |" in text and "| 21.0 | 9.5 |" in text
    assert "10% / 30%" in text and "over 5.0 s of wall time | 4.0 / 0.5 |" in text
    elsewhere = "\n".join(host_rows((Calibration(1, 1, 1, 1),) * 2, None, None,
                                    ChapterTime(5.0, 4.0, 0.5, DiskReads(0.0, 0))))
    assert "no /proc/stat" in elsewhere and "| 4.0 / 0.5 |" in elsewhere


def test_the_fresh_memory_probe_times_a_new_process_touching_its_memory():
    from book_tools.host_speed import fresh_memory_s

    seconds = fresh_memory_s()
    assert 0 < seconds < 60  # a time was read from the probe's output, not a default


def test_the_table_reports_the_chapters_reads_from_disk():
    rows = host_rows((Calibration(1, 1, 1, 1),) * 2, None, None,
                     ChapterTime(5.0, 4.0, 0.5, DiskReads(1148.4, 1324)))
    assert "| 1148 / 1,324 |" in "\n".join(rows)
    assert DiskReads.total([DiskReads(1.5, 2), DiskReads(2.0, 3)]) == DiskReads(3.5, 5)


def test_a_child_reading_a_file_out_of_the_page_cache_shows_its_disk_reads(tmp_path):
    """A file written, flushed and dropped from the page cache is read from disk by a
    child; wait4's resource usage, as the bench reads it, counts those MiB (and a file in
    the cache, read again, counts none)."""
    path = tmp_path / "data"
    path.write_bytes(os.urandom(8 << 20))
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # clean pages: dropped now
    finally:
        os.close(fd)
    cold = disk_reads(_read_in_a_child(path))
    warm = disk_reads(_read_in_a_child(path))
    if cold.mib == 0:
        pytest.skip("this file system does not count block reads (a RAM disk)")
    assert 7.5 <= cold.mib <= 8.5 and warm.mib < 0.5, (cold, warm)


def _read_in_a_child(path):
    proc = subprocess.Popen([sys.executable, "-c", f"open({str(path)!r}, 'rb').read()"])
    _, status, usage = os.wait4(proc.pid, 0)
    assert status == 0
    return usage


def test_the_copy_probe_measures_a_memory_rate():
    from book_tools.host_speed import copy_gbs

    assert 0.1 < copy_gbs() < 10_000  # GB/s: a rate was measured, not a default
