"""The build's execution cache (MyST-NB's jupyter-cache), each chapter executed once into it.

As nbval's plugin (``-p book_tools.execute --executed-cache DIR``) it caches each chapter whose
cells all pass, with the outputs rebuilt from the kernel's messages as nbclient builds them
(nbval's own copy merges a cell's streams), its ledger file and a digest of what the run
depended on (``inputs_key``). ``execute`` (the builds; the rehearsal, in a cache of its own)
keeps a cached execution while that digest holds, writing its ledger file back, and executes
the others, two at a time; one that fails is not cached: the build runs it again, showing why.

Usage: python -m book_tools.execute [CACHE_DIR [chapter.md ...]]
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

import pytest
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors import load_executor
from myst_nb.core.read import myst_nb_reader_plugin
from nbformat.v4 import output_from_msg
from nbval.plugin import IPyNbCell

from attention_book.ledger import writing_dir
from book_tools.notebooks import BOOK, REPO, chapters

CACHE = REPO / "_build" / ".jupyter_cache"
# What selects the weights a chapter loads, its ledger, its threads.
SELECTING = ("ATTENTION_BOOK_", "GPT2_", "HF_", "OPENBLAS_", "OMP_")
OUTPUTS = ("stream", "display_data", "execute_result", "error")
RUN = pytest.StashKey[dict]()


def inputs_key(source: Path) -> str:
    """A digest of what executing ``source`` depends on: the chapter, every file of
    attention_book, the variables that select weights and ledger, and the files (name,
    size, time) of the checkpoint folder ``GPT2_CHECKPOINT`` names."""
    digest = hashlib.sha256(source.read_bytes())
    for path in sorted((REPO / "attention_book").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.as_posix().encode() + path.read_bytes())
    env = {k: v for k, v in sorted(os.environ.items()) if k.startswith(SELECTING)}
    named = Path(env.get("GPT2_CHECKPOINT", "/")).expanduser().resolve()
    folder = named if named.is_dir() else named.parent
    weights = [(f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in sorted(
        folder.iterdir()) if f.is_file()] if "GPT2_CHECKPOINT" in env else []
    digest.update(json.dumps([env, weights]).encode())
    return digest.hexdigest()


def _kept(cache, source: Path) -> bool:
    """Whether the cache holds an execution of ``source`` as it is now (its ledger file then
    written back); one that is not is removed."""
    try:
        record = cache.match_cache_notebook(myst_nb_reader_plugin(str(source)))
    except KeyError:
        return False
    if record.data.get("inputs_key") != inputs_key(source):
        cache.remove_cache(record.pk)
        return False
    for name, text in record.data["ledger"].items():
        writing_dir().mkdir(parents=True, exist_ok=True)
        (writing_dir() / name).write_text(text)
    return True


def execute(cache_dir: Path = CACHE, sources: list[Path] | None = None) -> list[str]:
    """Execute every chapter (or ``sources``) not kept in the cache; the ones that failed."""
    cache, run = get_cache(cache_dir), []
    for source in (s.resolve() for s in sources or chapters()):
        if _kept(cache, source):
            print(f"kept nbval's execution of {source.name}")
        else:
            run.append(cache.add_nb_to_project(str(source), read_data={
                "name": "myst_nb_md", "type": "plugin"}).pk)
    if not run:
        return []
    with _untrimmed(cache):
        result = load_executor("local-parallel", cache).run_and_cache(filter_pks=run,
                                                                     timeout=900)
    return [*result.excepted, *result.errored]


def _untrimmed(cache):
    """jupyter-cache trims old records after each one it caches, reading the records to
    keep and those to delete in two queries: a record another process adds in between is
    deleted (KeyError; the build executes that chapter again). The book's cache holds a
    few dozen records: nothing needs trimming."""
    from unittest import mock

    return mock.patch.object(type(cache), "truncate_caches", lambda self: None)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--executed-cache", type=Path, help="cache there each chapter whose "
                     "cells all pass, for the build to render (book_tools.execute)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("executed_cache") and not hasattr(config, "workerinput"):
        get_cache(config.getoption("executed_cache")).list_cache_records()  # made once


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """Run a cell, hearing what nbval sends and reads; cache the notebook after its last
    cell when every cell passed."""
    if not isinstance(item, IPyNbCell) or not item.config.getoption("executed_cache"):
        return (yield)
    notebook, heard, start = item.parent, [], time.time()
    beside = Path(notebook.path).with_suffix(".md")  # (else generated from book/)
    source = beside if beside.is_file() else BOOK / beside.name
    run = notebook.stash.setdefault(RUN, {"passed": 0, "seconds": 0.0, "started": start,
                                          "key": inputs_key(source)})
    # heard: the id of the cell's request, then every message nbval reads
    send, receive = notebook.kernel.execute_cell_input, notebook.get_kernel_message
    notebook.kernel.execute_cell_input = lambda *a, **k: heard.append(send(*a, **k)) or heard[0]
    notebook.get_kernel_message = lambda *a, **k: heard.append(receive(*a, **k)) or heard[-1]
    try:
        result = yield
    finally:
        del notebook.kernel.execute_cell_input, notebook.get_kernel_message
        mine = [m for m in heard[1:] if m["parent_header"].get("msg_id") == heard[0]]
        item.cell.outputs = [output_from_msg(m) for m in mine if m["msg_type"] in OUTPUTS]
        item.cell.execution_count = item.cell_num + 1
        for out in (o for o in item.cell.outputs if o.output_type == "execute_result"):
            out.execution_count = item.cell_num + 1
        run["seconds"] += time.time() - start
    # (a cell that clears or updates a display is not recorded: the build executes it)
    run["passed"] += not any(m["msg_type"] in ("clear_output", "update_display_data")
                             for m in mine)
    code = [c for c in notebook.nb.cells if c.cell_type == "code"]
    if run["passed"] == len(code) and item.cell is code[-1]:
        _cache(notebook, source, run, item.config.getoption("executed_cache"))
    return result


def _cache(notebook, source: Path, run: dict, cache_dir: Path) -> None:
    """Cache the chapter as MyST-NB reads it, with nbval's outputs, if its code is nbval's."""
    nb = myst_nb_reader_plugin(str(source))
    code, ran = ([c for c in cells if c.cell_type == "code"] for cells in (nb.cells,
                                                                           notebook.nb.cells))
    if [c.source for c in code] != [c.source for c in ran]:
        return
    for cell, done in zip(code, ran, strict=True):
        cell.outputs, cell.execution_count = done.outputs, done.execution_count
    info = notebook.kernel.kc.kernel_info(reply=True, timeout=30)["content"]
    nb.metadata["language_info"] = info["language_info"]
    ledger = (writing_dir() or Path(os.devnull)) / f"book__{source.stem}.json"
    data = {"execution_seconds": run["seconds"], "inputs_key": run["key"], "ledger": {
        ledger.name: ledger.read_text()} if writing_dir() and ledger.is_file()
        and ledger.stat().st_mtime >= run["started"] else {}}
    cache = get_cache(cache_dir)
    with _untrimmed(cache):
        cache.cache_notebook_bundle(CacheBundleIn(nb, str(source), data=data),
                                    check_validity=False, overwrite=True)


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]]
    for uri in execute(*(args[:1] or [CACHE]), args[1:] or None):
        print(f"failed: {Path(uri).name} (the build runs it again and shows the error)")
