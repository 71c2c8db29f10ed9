"""Fill the build's execution cache: each chapter executed once, two at a time.

The build (``execute_notebooks: cache``) then renders each chapter from MyST-NB's cache
(``_build/.jupyter_cache``, the notebooks read as MyST-NB reads them) instead of executing
the chapters one after the other. A chapter that nbval has just executed (``make chapters``
records those runs in ``_build/executed``, ``book_tools.nbval_record``, and its ledger file
in the ledger) is not executed again while the recording is true of it: the same source and
code cells, the same weights, newer than every module of ``attention_book``. The others are
executed here; one that fails is not cached, and the build runs it again and shows the error.

Usage: python -m book_tools.execute
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors import load_executor
from myst_nb.core.read import myst_nb_reader_plugin

from book_tools.nbval_record import METADATA_KEY, source_digest, weights_key
from book_tools.notebooks import REPO, chapters

CACHE = REPO / "_build" / ".jupyter_cache"
RECORDED = REPO / "_build" / "executed"


def stale_reason(source: Path, recorded: nbformat.NotebookNode,
                 nb: nbformat.NotebookNode) -> str | None:
    """Why a recorded execution is not true of the chapter as the build reads it (``nb``)
    now, or None when it is."""
    meta = recorded.metadata.get(METADATA_KEY, {})
    if meta.get("source_sha256") != source_digest(source):
        return "the chapter changed since"
    if meta.get("weights") != weights_key():
        return "recorded on other weights"
    if meta.get("finished", 0) < max(p.stat().st_mtime
                                     for p in (REPO / "attention_book").rglob("*.py")):
        return "attention_book changed since"
    if [c.source for c in nb.cells if c.cell_type == "code"] != \
            [c.source for c in recorded.cells if c.cell_type == "code"]:
        return "its code cells differ from the chapter's as the build reads them"
    return None


def reuse(cache, source: Path, recording: Path) -> str | None:
    """Cache a chapter from its nbval recording; None when done, else why not."""
    if not recording.is_file():
        return "no recording"
    recorded, nb = nbformat.read(recording, as_version=4), myst_nb_reader_plugin(str(source))
    if (reason := stale_reason(source, recorded, nb)) is not None:
        return reason
    nb.metadata["language_info"] = recorded.metadata["language_info"]  # what the code is
    ran = iter(c for c in recorded.cells if c.cell_type == "code")
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        done = next(ran)
        cell.outputs, cell.execution_count = done.outputs, done.execution_count
    cache.cache_notebook_bundle(CacheBundleIn(nb, str(source), data={
        "execution_seconds": recorded.metadata[METADATA_KEY]["seconds"]}),
        check_validity=False, overwrite=True)
    return None


def execute() -> list[str]:
    """Cache every chapter (from nbval's recording where it holds, else executed here);
    return the ones that failed."""
    cache, to_run = get_cache(CACHE), []
    for source in chapters():
        if (why := reuse(cache, source, RECORDED / f"{source.stem}.ipynb")) is None:
            print(f"from nbval's run: {source.name}")
            continue
        print(f"executing {source.name}" + (f": its nbval recording is stale ({why})"
                                             if why != "no recording" else ""))
        cache.add_nb_to_project(str(source), read_data={"name": "myst_nb_md", "type": "plugin"})
        to_run.append(cache.get_project_record(str(source)).pk)
    if not to_run:
        return []
    result = load_executor("local-parallel", cache).run_and_cache(filter_pks=to_run, timeout=300)
    return [*result.excepted, *result.errored]


if __name__ == "__main__":
    for uri in execute():
        print(f"failed: {Path(uri).name} (the build runs it again and shows the error)")
    sys.exit(0)
