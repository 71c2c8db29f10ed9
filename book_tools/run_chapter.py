"""Execute one chapter notebook as the build does; print its text outputs or errors.

Usage: python -m book_tools.run_chapter book/NN_name.md [--save executed.ipynb]
"""

import argparse
import sys
import time
from pathlib import Path

# jupytext's JupyterLab contents managers (jupyter_server, tornado: 0.15 s) serve no reading;
# jupytext imports them only where it can (its own ImportError path).
for _unused in ("jupytext.sync_contentsmanager", "jupytext.async_contentsmanager"):
    sys.modules.setdefault(_unused, None)

import jupytext  # noqa: E402
import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellExecutionError  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("notebook", type=Path)
    ap.add_argument("--save", type=Path)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    nb = jupytext.read(args.notebook, fmt="md:myst")
    # "immediate": the kernel is killed once the last cell has run, as nbval does; a
    # graceful shutdown waits up to 2 s for a kernel that imported torch to tear down.
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            shutdown_kernel="immediate",
                            resources={"metadata": {"path": str(args.notebook.parent)}})
    start = time.perf_counter()
    try:
        client.execute()
        status = 0
    except CellExecutionError as e:
        print(str(e)[-3000:], file=sys.stderr)
        status = 1
    elapsed = time.perf_counter() - start
    if args.save:
        nbformat.write(nb, args.save)
    if not args.quiet:
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                text = out.get("text") or out.get("data", {}).get("text/markdown") or ""
                if text:
                    print(text.rstrip())
                elif "data" in out:
                    print(f"[{', '.join(out['data'])}]")
    print(f"{args.notebook}: {'ok' if status == 0 else 'FAILED'} in {elapsed:.1f} s")
    return status


if __name__ == "__main__":
    sys.exit(main())
