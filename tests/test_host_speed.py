"""The bench's host table: the machine's core times read from /proc/stat, the shares stolen
and used by other processes between two readings, and the table that reports them."""

import os

import pytest

from book_tools.host_speed import Calibration, ChapterTime, CoreTimes, core_times, host_rows, shares

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
    rows = host_rows((Calibration(40.0, 0.150, 0.05), Calibration(20.0, 0.300, 0.70)),
                     CoreTimes(100, 100, 10), CoreTimes(110, 108, 12),
                     ChapterTime(wall_s=5.0, cpu_s=4.0, system_s=0.5))
    text = "\n".join(rows)
    assert "| 40.0 | 20.0 |" in text and "| 0.150 | 0.300 |" in text
    assert "| 0.05 | 0.70 |" in text
    assert "10% / 30%" in text and "over 5.0 s of wall time | 4.0 / 0.5 |" in text
    elsewhere = "\n".join(host_rows((Calibration(1, 1, 1),) * 2, None, None,
                                    ChapterTime(5.0, 4.0, 0.5)))
    assert "no /proc/stat" in elsewhere and "| 4.0 / 0.5 |" in elsewhere


def test_the_fresh_memory_probe_times_a_new_process_touching_its_memory():
    from book_tools.host_speed import fresh_memory_s

    seconds = fresh_memory_s()
    assert 0 < seconds < 60  # a time was read from the probe's output, not a default
