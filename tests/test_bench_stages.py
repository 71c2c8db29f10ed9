"""make bench times make test's stages as make test runs them: read from the Makefile,
side by side where a $(MAKE) line runs several targets, a chain's stages inside it."""

from pathlib import Path

from book_tools.bench_stages import Group, Stage, Timed, stage_rows, stages_of, stages_of_test

MAKEFILE = """\
test: lint standin
\t$(MAKE) -j2 --output-sync=target book-checks background
\t$(MAKE) publish

book-checks: chapters | notebooks
\t$(MAKE) strict-book
\t$(MAKE) -j2 pdf site

background:
\tnice -n 10 $(MAKE) -j2 unit rehearsal

unit: control
\tpython -m pytest tests
"""


def test_the_stages_are_read_from_the_rules(tmp_path):
    makefile = tmp_path / "Makefile"
    makefile.write_text(MAKEFILE)
    assert stages_of_test(makefile) == [Group(["lint"]), Group(["standin"]),
                                        Group(["book-checks", "background"]),
                                        Group(["publish"])]
    assert stages_of("book-checks", makefile) == [Group(["chapters"]), Group(["strict-book"]),
                                                  Group(["pdf", "site"])]
    assert stages_of("background", makefile) == [Group(["unit", "rehearsal"], nice=10)]
    assert stages_of("unit", makefile) is None  # a command, timed as one target


def test_the_repositorys_test_rule_runs_every_stage_and_the_book_at_full_priority():
    def flat(target, nice=0):
        stages = stages_of(target)
        if stages is None:
            return [(target, nice)]
        return [x for g in stages for t in g.targets for x in flat(t, nice + g.nice)]

    ran = dict(flat("test"))
    assert {"workflow-lint", "lint", "unit", "chapters", "strict-book", "pdf", "site",
            "rehearsal", "publish-rehearsal"} <= set(ran)
    assert ran["chapters"] == ran["strict-book"] == ran["pdf"] == ran["site"] == 0


def test_a_chain_is_reported_stage_by_stage_under_its_place():
    log = Path("x.log")
    book = Timed("book-checks", 200, False, None, (
        Stage((Timed("chapters", 50, True, log),), 50, None),
        Stage((Timed("pdf", 140, True, log), Timed("site", 150, False, log)), 150, None)))
    done = [Stage((Timed("lint", 2, True, log),), 2, 1.6),
            Stage((Timed("unit", 60, True, log), book), 200, 390.2)]
    rows = stage_rows(done, cores=2)
    text = "\n".join(rows)
    assert "| lint | 2 | 2 | ok |" in rows
    assert "| unit and book-checks, side by side | 200 | 390 | FAILED |" in rows
    assert "| &nbsp;&nbsp;book-checks, in turn: | 200 | | FAILED |" in rows
    assert "| &nbsp;&nbsp;&nbsp;&nbsp;chapters | 50 | | ok |" in rows
    assert "| &nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;site | 150 | | FAILED (log: x.log) |" in text
    assert "| **total** | **202** | **392** | |" in rows
    assert rows[-1] == ("That work needs at least 196 s of wall time on 2 cores, however the "
                        "stages are arranged.")
    unmeasured = stage_rows([Stage((Timed("lint", 2, True, log),), 2, None)])
    assert unmeasured[-1] == "| **total** | **2** | | |"


def test_each_top_stage_counts_the_machines_busy_core_seconds(monkeypatch, tmp_path):
    """Only the top level's stages, between a reading of /proc/stat before and after each
    (nested ones run beside others, so the machine's time is not theirs alone)."""
    from book_tools import bench_stages, host_speed

    readings = iter([host_speed.CoreTimes(100, 0, 0), host_speed.CoreTimes(130.5, 9, 0),
                     host_speed.CoreTimes(130.5, 9, 0), host_speed.CoreTimes(131, 20, 0)])
    monkeypatch.setattr(host_speed, "core_times", lambda: next(readings))
    monkeypatch.setattr(bench_stages, "_run",
                        lambda target, nice, logs, make_flags: Timed(target, 1, True, None))
    chain = [Group(["a", "b"]), Group(["c"])]
    top = bench_stages._run_chain(chain, tmp_path, [], busy=True)
    assert [s.busy_s for s in top] == [30.5, 0.5]
    nested = bench_stages._run_chain(chain, tmp_path, [])
    assert [s.busy_s for s in nested] == [None, None]
