"""Keep what nbval executed, so that the build renders the execution the test checked.

A pytest plugin for nbval. With ``--record-executed DIR``, every chapter notebook whose
code cells all passed is written to ``DIR/<name>.ipynb`` with the outputs nbval received,
with what ``book_tools.execute`` needs to trust it (``recorded_execution``): the source
chapter, the weights it ran on, when it ran, how long it took, and the chapter's ledger
file as the run left it. A notebook with a failing or skipped cell is not written (the
build then executes that chapter itself); nbval reports the failing cell as always.

The outputs are rebuilt from the kernel's messages as nbclient (the build's executor)
builds them, one output per message and in their order: nbval's own copy merges every
stream of a cell into one, which would move text printed after a figure above it. A cell
that clears or updates a display is not recorded (the build executes its chapter).

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
from nbformat.v4 import output_from_msg
from nbval.plugin import IPyNbCell, IPyNbFile

from book_tools.notebooks import BOOK, REPO

METADATA_KEY = "recorded_execution"
# What selects the weights a chapter runs on (attention_book.checkpoint).
WEIGHTS_VARS = ("GPT2_CHECKPOINT", "ATTENTION_BOOK_REHEARSAL", "ATTENTION_BOOK_ALLOW_MODIFIED",
                "HF_HOME", "HF_HUB_CACHE")
OUTPUT_MESSAGES = frozenset({"stream", "display_data", "execute_result", "error"})
UNRECORDABLE = frozenset({"clear_output", "update_display_data"})


@dataclass
class _Run:
    """One notebook's run under nbval: its cells that passed, and the time spent."""

    passed: set[int] = field(default_factory=set)
    seconds: float = 0.0
    started: float = field(default_factory=time.time)
    unrecordable: bool = False


@dataclass
class _Cell:
    """What the kernel sent while nbval ran one cell."""

    msg_id: str | None = None
    messages: list[dict] = field(default_factory=list)


RUN = pytest.StashKey[_Run]()
CELL = pytest.StashKey[_Cell]()


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
def pytest_runtest_call(item: pytest.Item):
    """Listen in on the cell's execution: nbval's request's id and every message it reads
    (through the instance's own attributes, removed again afterwards)."""
    if not isinstance(item, IPyNbCell) or item.config.getoption("record_executed") is None:
        yield
        return
    notebook, heard = item.parent, item.stash.setdefault(CELL, _Cell())
    execute, receive = notebook.kernel.execute_cell_input, notebook.get_kernel_message

    def execute_cell_input(*args, **kwargs):
        heard.msg_id = execute(*args, **kwargs)
        return heard.msg_id

    def get_kernel_message(*args, **kwargs):
        heard.messages.append(receive(*args, **kwargs))
        return heard.messages[-1]

    notebook.kernel.execute_cell_input = execute_cell_input
    notebook.get_kernel_message = get_kernel_message
    try:
        yield
    finally:
        del notebook.kernel.execute_cell_input, notebook.get_kernel_message


def _outputs(heard: _Cell) -> tuple[list, bool]:
    """(the cell's outputs as nbclient records them, whether it cleared or updated a
    display)."""
    mine = [m for m in heard.messages if m["parent_header"].get("msg_id") == heard.msg_id]
    outputs = [output_from_msg(m) for m in mine if m["msg_type"] in OUTPUT_MESSAGES]
    return outputs, any(m["msg_type"] in UNRECORDABLE for m in mine)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if not isinstance(item, IPyNbCell) or item.config.getoption("record_executed") is None:
        return
    run = item.parent.stash.setdefault(RUN, _Run())
    run.seconds += report.duration
    if report.when == "call":
        item.cell.outputs, cleared = _outputs(item.stash.get(CELL, _Cell()))
        # (nbval runs cells without history, so the kernel does not count them; a fresh
        # kernel under nbclient counts 1, 2, ...)
        item.cell.execution_count = item.cell_num + 1
        run.unrecordable |= cleared
        if report.passed:
            run.passed.add(item.cell_num)


@pytest.hookimpl(tryfirst=True)  # before nbval's teardown stops the kernel
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
    if len(run.passed) != code or run.unrecordable or not source.is_file():
        return
    try:
        info = notebook.kernel.kc.kernel_info(reply=True, timeout=30)["content"]
    except Exception:  # noqa: BLE001 - no language_info: the build executes the chapter
        return
    notebook.nb.metadata["language_info"] = info["language_info"]
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
