"""Execute chapters into a jupyter-cache project, two at a time, as MyST-NB reads them.

``make book`` and ``make strict-book`` fill the build's cache (``_build/.jupyter_cache``,
``execute_notebooks: cache``): the build then renders each chapter from its cached outputs
instead of executing the chapters one after the other; one that fails here is not cached,
and the build runs it again and shows the error. The rehearsal executes the chapters into
a cache of its own, on the stand-in.

Usage: python -m book_tools.execute [CACHE_DIR [chapter.md ...]]
"""

from __future__ import annotations

import sys
from pathlib import Path

from jupyter_cache import get_cache
from jupyter_cache.executors import load_executor

from book_tools.notebooks import REPO, chapters

CACHE = REPO / "_build" / ".jupyter_cache"


def execute(cache_dir: Path = CACHE, sources: list[Path] | None = None) -> list[str]:
    """Execute every chapter (or ``sources``) not cached yet; the ones that failed."""
    cache = get_cache(cache_dir)
    for source in sources or chapters():
        cache.add_nb_to_project(str(source.resolve()),
                                read_data={"name": "myst_nb_md", "type": "plugin"})
    result = load_executor("local-parallel", cache).run_and_cache(timeout=900)
    return [*result.excepted, *result.errored]


if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]]
    for uri in execute(*(args[:1] or [CACHE]), args[1:] or None):
        print(f"failed: {Path(uri).name}")
