"""Execute every chapter, two at a time, into the build's execution cache.

The build (``execute_notebooks: cache``) then renders each chapter from its cached outputs
instead of executing the chapters one after the other. The cache is the one MyST-NB uses
(``_build/.jupyter_cache``) and the notebooks are read the way MyST-NB reads them, so the
build finds them. A chapter that fails here is not cached: the build executes it again and
reports the error with its traceback.

Usage: python -m book_tools.execute [CACHE_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

from jupyter_cache import get_cache
from jupyter_cache.executors import load_executor

from book_tools.notebooks import REPO, chapters

CACHE = REPO / "_build" / ".jupyter_cache"
MYST_READER = {"name": "myst_nb_md", "type": "plugin"}
TIMEOUT_S = 300


def execute(cache_dir: Path = CACHE) -> list[str]:
    """Execute the chapters not yet cached; return the ones that failed."""
    cache = get_cache(cache_dir)
    for source in chapters():
        cache.add_nb_to_project(str(source), read_data=MYST_READER)
    result = load_executor("local-parallel", cache).run_and_cache(timeout=TIMEOUT_S)
    for uri in result.succeeded:
        print(f"executed {Path(uri).name}")
    return [*result.excepted, *result.errored]


def main(argv: list[str] | None = None) -> int:
    failed = execute(Path(argv[0]) if argv else CACHE)
    for uri in failed:
        print(f"failed: {Path(uri).name} (the build runs it again and shows the error)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
