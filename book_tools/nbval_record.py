"""Keep what nbval executed, so that the build renders the execution the test checked.

A pytest plugin for nbval. With ``--record-executed DIR``, every chapter notebook whose
code cells all passed is written to ``DIR/<name>.ipynb`` with the outputs nbval received,
with what ``book_tools.execute`` needs to trust it (``recorded_execution``): the source
chapter, the weights it ran on, when it ran, how long it took, and the chapter's ledger
file as the run left it. A notebook with a failing or skipped cell is not written (the
build then executes that chapter itself); nbval reports the failing cell as always.

Usage: pytest --nbval-lax -p book_tools.nbval_record --record-executed DIR NOTEBOOK...
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
from nbval.plugin import IPyNbCell, IPyNbFile

from book_tools.notebooks import BOOK, REPO

METADATA_KEY = "recorded_execution"
# What selects the weights a chapter runs on (attention_book.checkpoint).
WEIGHTS_VARS = ("GPT2_CHECKPOINT", "ATTENTION_BOOK_REHEARSAL", "ATTENTION_BOOK_ALLOW_MODIFIED",
                "HF_HOME", "HF_HUB_CACHE")


@dataclass
class _Run:
    """One notebook's run under nbval: its cells that passed, and the time spent."""

    passed: set[int] = field(default_factory=set)
    seconds: float = 0.0
    started: float = field(default_factory=time.time)


RUN = pytest.StashKey[_Run]()


def weights_key() -> dict:
    """What identifies the weights the chapters would load now: the variables that select
    them, and the size and modification time of the file ``GPT2_CHECKPOINT`` names."""
    key: dict = {var: os.environ.get(var, "") for var in WEIGHTS_VARS}
    named = os.environ.get("GPT2_CHECKPOINT", "").strip()
    if named:
        path = Path(named).expanduser()
        path = path / "model.safetensors" if path.is_dir() else path
        if path.is_file():
            st = path.stat()
            key["weights_file"] = [str(path.resolve()), st.st_size, st.st_mtime_ns]
    return key


def ledger_file(source: Path) -> Path:
    """The ledger file a chapter writes (``attention_book.ledger.Ledger.path``)."""
    from attention_book.ledger import ledger_dir

    return ledger_dir() / (source.relative_to(REPO).with_suffix("").as_posix()
                           .replace("/", "__") + ".json")


def source_digest(source: Path) -> str:
    return hashlib.sha256(source.read_bytes()).hexdigest()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-executed", metavar="DIR", type=Path, default=None,
                     help="write each notebook whose cells all passed, with its outputs, "
                          "to DIR (book_tools.execute renders from there)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if not isinstance(item, IPyNbCell) or item.config.getoption("record_executed") is None:
        return
    run = item.parent.stash.setdefault(RUN, _Run())
    run.seconds += report.duration
    if report.when == "call":
        item.cell.outputs = list(item.test_outputs or [])
        item.cell.execution_count = item.cell_num + 1
        if report.passed:
            run.passed.add(item.cell_num)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    out = item.config.getoption("record_executed")
    if out is None or not isinstance(item, IPyNbCell):
        return
    if nextitem is not None and nextitem.parent is item.parent:
        return  # not the notebook's last cell
    _write(item.parent, out)


def _write(notebook: IPyNbFile, out: Path) -> None:
    run = notebook.stash.get(RUN, _Run())
    code = sum(1 for c in notebook.nb.cells if c.cell_type == "code")
    stem = Path(str(notebook.fspath)).stem
    source = BOOK / f"{stem}.md"
    if len(run.passed) != code or not source.is_file():
        return
    ledger = ledger_file(source)
    notebook.nb.metadata[METADATA_KEY] = {
        "source": source.relative_to(REPO).as_posix(),
        "source_sha256": source_digest(source),
        "weights": weights_key(),
        "finished": time.time(),
        "seconds": round(run.seconds, 2),
        # (a ledger file older than this run is not this run's: the chapter wrote none)
        "ledger": json.loads(ledger.read_text())
        if ledger.is_file() and ledger.stat().st_mtime >= run.started else None,
    }
    out.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook.nb, out / f"{stem}.ipynb")
