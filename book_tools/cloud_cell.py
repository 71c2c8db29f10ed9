"""The set-up cell that opens every published notebook (Colab, Binder): added when the
notebooks are generated, from the repository address (``book_tools.address``); locally it
does nothing."""

from __future__ import annotations

from pathlib import Path

import nbformat
import yaml

# Re-exported: book_tools.notebooks and the tests read the address through this module.
from book_tools.address import repository as repository

CELL_ID = "cloud-setup"
CELL_TAGS = ["hide-input", CELL_ID]
MARKER = "# Opened in Colab or Binder?"
NOTEBOOKS_BRANCH = "notebooks"  # where the publishing workflow pushes the generated notebooks


def site_url(config: Path) -> str:
    """The published site's address, ending in '/': ``html: baseurl:`` of _config.yml when it
    is set, otherwise the GitHub Pages address of the repository (``repository``)."""
    html = (yaml.safe_load(config.read_text()) or {}).get("html") or {}
    if html.get("baseurl"):
        return str(html["baseurl"]).rstrip("/") + "/"
    url, _ = repository(config)
    owner_repo = url.removeprefix("https://github.com/")
    if owner_repo == url or owner_repo.count("/") != 1:
        raise ValueError(f"{config}: set html: baseurl: (the published site's address); it "
                         f"cannot be derived from the repository url {url}")
    owner, name = owner_repo.split("/")
    return f"https://{owner.lower()}.github.io/{name}/"


def first_cell(url: str, branch: str = "main") -> str:
    """The source of every published notebook's first code cell."""
    return "\n".join([
        f"{MARKER} This installs the book's code and fetches GPT-2 small; elsewhere it does "
        "nothing.",
        "import subprocess",
        "import sys",
        "",
        'if "google.colab" in sys.modules:',
        "    subprocess.run([sys.executable, \"-m\", \"pip\", \"install\", \"--quiet\",",
        f'                    "attention-book @ git+{url}@{branch}"], check=True)',
        "from attention_book.cloud import prepare_for_cloud",
        "",
        "prepare_for_cloud()",
    ])


def add_cloud_cell(nb: nbformat.NotebookNode, url: str, branch: str) -> None:
    """Insert the set-up cell before the notebook's first code cell."""
    cell = nbformat.v4.new_code_cell(first_cell(url, branch),
                                     metadata={"tags": list(CELL_TAGS)})
    cell.id = CELL_ID
    first_code = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"),
                      len(nb.cells))
    nb.cells.insert(first_code, cell)


def launch_urls(url: str, notebook: str) -> dict[str, str]:
    """Colab and Binder addresses of a published notebook (``notebook``: its file name)."""
    owner_repo = url.removeprefix("https://github.com/")
    return {
        "Colab": f"https://colab.research.google.com/github/{owner_repo}/blob/"
                 f"{NOTEBOOKS_BRANCH}/{notebook}",
        "Binder": f"https://mybinder.org/v2/gh/{owner_repo}/{NOTEBOOKS_BRANCH}"
                  f"?urlpath=lab/tree/{notebook}",
    }
