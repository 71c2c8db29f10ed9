"""Keep what nbval executed, so that the build renders the execution the test checked.

A pytest plugin for nbval. With ``--record-executed DIR``, every notebook whose code cells
all passed is written to ``DIR/<name>.ipynb`` with its outputs and with what
``book_tools.execute`` needs to trust it (``METADATA_KEY``): the digest of the chapter's
source, the weights it ran on, when it finished and how long it took. A notebook with a
failing cell is not written (the build then executes that chapter itself).

The outputs are rebuilt from the kernel's messages one per message, as nbclient (the build's
executor) records them: nbval's own copy merges a cell's streams, which would move text
printed after a figure above it. A notebook with a cell that clears or updates a display is
not recorded.

Usage: pytest --nbval-lax -p book_tools.nbval_record --record-executed DIR NOTEBOOK...
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import output_from_msg
from nbval.plugin import IPyNbCell

from book_tools.notebooks import BOOK

METADATA_KEY = "recorded_execution"
# What selects the weights a chapter runs on (attention_book.checkpoint).
WEIGHTS_VARS = ("GPT2_CHECKPOINT", "ATTENTION_BOOK_REHEARSAL", "ATTENTION_BOOK_ALLOW_MODIFIED",
                "HF_HOME", "HF_HUB_CACHE")
OUTPUTS = frozenset({"stream", "display_data", "execute_result", "error"})
RUN = pytest.StashKey[dict]()  # per notebook: "passed" cells, "seconds", "unrecordable"
HEARD = pytest.StashKey[dict]()  # per cell: the request's "msg_id", the "messages" read


def weights_key() -> dict:
    """What identifies the weights the chapters would load now: the variables that select
    them, and the size and modification time of the file ``GPT2_CHECKPOINT`` names."""
    key: dict = {var: os.environ.get(var, "") for var in WEIGHTS_VARS}
    if named := os.environ.get("GPT2_CHECKPOINT", "").strip():
        path = Path(named).expanduser()
        path = path / "model.safetensors" if path.is_dir() else path
        if path.is_file():
            key["weights_file"] = [str(path.resolve()), path.stat().st_size,
                                   path.stat().st_mtime_ns]
    return key


def source_digest(source: Path) -> str:
    return hashlib.sha256(source.read_bytes()).hexdigest()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-executed", metavar="DIR", type=Path, default=None,
                     help="write each notebook whose cells all passed, with its outputs, "
                          "to DIR (book_tools.execute renders from there)")


def _recording(item: pytest.Item) -> bool:
    return isinstance(item, IPyNbCell) and item.config.getoption("record_executed") is not None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """Listen in on the cell's execution: the request's id and every message nbval reads
    (through the instances' own attributes, removed again afterwards)."""
    if not _recording(item):
        yield
        return
    notebook, heard = item.parent, item.stash.setdefault(HEARD, {"messages": []})
    execute, receive = notebook.kernel.execute_cell_input, notebook.get_kernel_message

    def execute_cell_input(*args, **kwargs):
        heard["msg_id"] = execute(*args, **kwargs)
        return heard["msg_id"]

    def get_kernel_message(*args, **kwargs):
        heard["messages"].append(receive(*args, **kwargs))
        return heard["messages"][-1]

    notebook.kernel.execute_cell_input = execute_cell_input
    notebook.get_kernel_message = get_kernel_message
    try:
        yield
    finally:
        del notebook.kernel.execute_cell_input, notebook.get_kernel_message


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = (yield).get_result()
    if not _recording(item):
        return
    run = item.parent.stash.setdefault(RUN, {"passed": set(), "seconds": 0.0,
                                             "unrecordable": False})
    run["seconds"] += report.duration
    if report.when == "call":
        heard = item.stash.get(HEARD, {"messages": []})
        mine = [m for m in heard["messages"]
                if m["parent_header"].get("msg_id") == heard.get("msg_id")]
        item.cell.outputs = [output_from_msg(m) for m in mine if m["msg_type"] in OUTPUTS]
        item.cell.execution_count = item.cell_num + 1  # as a fresh kernel under nbclient
        run["unrecordable"] |= any(m["msg_type"] in ("clear_output", "update_display_data")
                                   for m in mine)
        if report.passed:
            run["passed"].add(item.cell_num)


@pytest.hookimpl(tryfirst=True)  # before nbval's teardown stops the kernel
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if not _recording(item) or (nextitem is not None and nextitem.parent is item.parent):
        return  # not the notebook's last cell
    notebook, run = item.parent, item.parent.stash[RUN]
    if len(run["passed"]) != sum(c.cell_type == "code" for c in notebook.nb.cells) \
            or run["unrecordable"]:
        return
    try:
        info = notebook.kernel.kc.kernel_info(reply=True, timeout=30)["content"]
    except Exception:  # noqa: BLE001 - no language_info: the build executes the chapter
        return
    stem = Path(str(notebook.fspath)).stem
    source = BOOK / f"{stem}.md"
    notebook.nb.metadata["language_info"] = info["language_info"]
    notebook.nb.metadata[METADATA_KEY] = {
        "source_sha256": source_digest(source) if source.is_file() else None,
        "weights": weights_key(), "finished": time.time(), "seconds": round(run["seconds"], 2)}
    out = item.config.getoption("record_executed")
    out.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook.nb, out / f"{stem}.ipynb")
