"""Write (or check) every chapter's first cell, the one that runs the chapter in Colab or Binder.

The cell is generated from the repository address in _config.yml (``repository: url:``),
the one place where it is written. After changing that address, run this script once.

Usage: python scripts/cloud_cell.py [--check] [book/NN_name.ipynb ...]
"""

import argparse
import sys
from pathlib import Path

import nbformat

from attention_book.cloud import cloud_cell_problem, first_cell, repository, sync_cloud_cell

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = ap.parse_args()
    url, branch = repository(REPO / "_config.yml")
    notebooks = args.notebooks or sorted((REPO / "book").glob("*.ipynb"))
    bad = 0
    for nb in notebooks:
        if args.check:
            problem = cloud_cell_problem(nbformat.read(nb, as_version=4), first_cell(url, branch))
            if problem:
                bad += 1
                print(f"{nb}: {problem}")
        elif sync_cloud_cell(nb, url, branch):
            print(f"{nb}: cloud set-up cell written")
    if bad:
        print(f"run: python {Path(__file__).relative_to(REPO)}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
