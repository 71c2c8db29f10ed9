"""Fill the build's execution cache: each chapter executed once, two at a time.

The build (``execute_notebooks: cache``) then renders each chapter from its cached outputs
instead of executing the chapters one after the other. The cache is the one MyST-NB uses
(``_build/.jupyter_cache``) and the notebooks are read the way MyST-NB reads them, so the
build finds them.

A chapter that nbval has just executed (``make chapters`` records those runs in
``_build/executed``, ``book_tools.nbval_record``) is not executed again: its recorded
outputs go into the cache, and its ledger file back into the ledger, when the recording
is still true of the chapter: the same code cells, the same weights, and newer than the
chapter and every module of ``attention_book``. The others are executed here. A chapter
that fails here is not cached: the build executes it again and reports the error with its
traceback.

Usage: python -m book_tools.execute [CACHE_DIR] [--recorded DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import nbformat
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors import load_executor
from myst_nb.core.read import myst_nb_reader_plugin

from book_tools.nbval_record import METADATA_KEY, ledger_file, source_digest, weights_key
from book_tools.notebooks import REPO, chapters

CACHE = REPO / "_build" / ".jupyter_cache"
RECORDED = REPO / "_build" / "executed"
MYST_READER = {"name": "myst_nb_md", "type": "plugin"}
TIMEOUT_S = 300


def read_source(source: Path) -> nbformat.NotebookNode:
    """The chapter as MyST-NB reads it for the build (what the cache is matched against)."""
    return myst_nb_reader_plugin(str(source))


def newest_code_mtime(source: Path) -> float:
    """When the chapter or the library it imports last changed."""
    return max(p.stat().st_mtime for p in [source, *(REPO / "attention_book").rglob("*.py")])


def stale_reason(source: Path, recorded: nbformat.NotebookNode,
                 nb: nbformat.NotebookNode) -> str | None:
    """Why a recorded execution is not true of the chapter now, or None when it is."""
    meta = recorded.metadata.get(METADATA_KEY)
    if not meta or meta.get("source") != source.relative_to(REPO).as_posix():
        return "not a recording of this chapter"
    if meta.get("source_sha256") != source_digest(source):
        return "the chapter changed since"
    if meta.get("weights") != weights_key():
        return "recorded on other weights"
    if meta.get("finished", 0) < newest_code_mtime(source):
        return "attention_book or the chapter changed since"
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    if code != [c.source for c in recorded.cells if c.cell_type == "code"]:
        return "its code cells differ from the chapter's as the build reads them"
    return None


def reuse(cache, source: Path, recording: Path) -> str | None:
    """Cache a chapter from its nbval recording; None when done, else why not."""
    if not recording.is_file():
        return "no recording"
    recorded = nbformat.read(recording, as_version=4)
    nb = read_source(source)
    if (reason := stale_reason(source, recorded, nb)) is not None:
        return reason
    meta = recorded.metadata[METADATA_KEY]
    if "language_info" in recorded.metadata:  # what the build highlights the code as
        nb.metadata["language_info"] = recorded.metadata["language_info"]
    ran = iter(c for c in recorded.cells if c.cell_type == "code")
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        done = next(ran)
        cell.outputs, cell.execution_count = done.outputs, done.execution_count
    cache.cache_notebook_bundle(CacheBundleIn(nb, str(source),
                                              data={"execution_seconds": meta["seconds"]}),
                                check_validity=False, overwrite=True)
    if meta.get("ledger") is not None:
        ledger = ledger_file(source)
        ledger.parent.mkdir(parents=True, exist_ok=True)
        ledger.write_text(json.dumps(meta["ledger"], indent=1))
    return None


def execute(cache_dir: Path = CACHE, recorded: Path | None = RECORDED) -> list[str]:
    """Cache every chapter (from nbval's recording where it holds, else executed here);
    return the ones that failed."""
    cache = get_cache(cache_dir)
    to_run = []
    for source in chapters():
        why = reuse(cache, source, recorded / f"{source.stem}.ipynb") if recorded else "-"
        if why is None:
            print(f"from nbval's run: {source.name}")
            continue
        if recorded and why != "no recording":
            print(f"executing {source.name} again: its nbval recording is stale ({why})")
        to_run.append(source)
        cache.add_nb_to_project(str(source), read_data=MYST_READER)
    if not to_run:
        return []
    result = load_executor("local-parallel", cache).run_and_cache(
        filter_pks=[cache.get_project_record(str(s)).pk for s in to_run], timeout=TIMEOUT_S)
    for uri in result.succeeded:
        print(f"executed {Path(uri).name}")
    return [*result.excepted, *result.errored]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cache_dir", type=Path, nargs="?", default=CACHE)
    ap.add_argument("--recorded", type=Path, default=RECORDED,
                    help="nbval's recorded executions (default: _build/executed)")
    args = ap.parse_args(argv)
    for uri in execute(args.cache_dir, args.recorded):
        print(f"failed: {Path(uri).name} (the build runs it again and shows the error)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
