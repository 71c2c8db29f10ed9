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

from jupyter_client.manager import KernelManager  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("notebook", type=Path)
    ap.add_argument("--save", type=Path)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    start = time.perf_counter()
    # The kernel boots (0.5 s) while this process imports what reads and runs the notebook
    # (0.3 s): a reader's Jupyter has those loaded before it starts a kernel.
    kernel = KernelManager(kernel_name="python3")
    kernel.start_kernel(cwd=str(args.notebook.parent))
    try:
        nb, status = _run(args.notebook, kernel)
    finally:
        # At once, as nbval does: a graceful shutdown waits up to 2 s for a kernel that
        # imported torch to tear down.
        kernel.shutdown_kernel(now=True)
    elapsed = time.perf_counter() - start
    if args.save:
        import nbformat

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


def _run(notebook: Path, kernel: KernelManager) -> tuple[object, int]:
    """Execute the notebook in the started kernel: (the executed notebook, 0 or 1)."""
    import jupytext
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = jupytext.read(notebook, fmt="md:myst")
    client = NotebookClient(nb, km=kernel, timeout=600,
                            resources={"metadata": {"path": str(notebook.parent)}})
    try:
        client.execute()
    except CellExecutionError as e:
        print(str(e)[-3000:], file=sys.stderr)
        return nb, 1
    return nb, 0


if __name__ == "__main__":
    sys.exit(main())
