"""Running a chapter in Colab or Binder, from the notebooks generated from the book.

Each published notebook starts with a small set-up cell (written by
``book_tools.cloud_cell``). In Colab it first installs this package, with its pinned
dependencies, from the book's repository; in Binder the environment already has it. Then
it calls ``prepare_for_cloud``, which loads the *full* GPT-2 small checkpoint from the
Hugging Face Hub (pinned revision), so that every claim runs, including those that need
the token embeddings and the MLP weights. Anywhere else (locally, in the build, under the
tests) it does nothing.
"""

from __future__ import annotations

import os
import sys

from .checkpoint import ENV_VAR, Checkpoint, load_checkpoint

CLOUD_VAR = "ATTENTION_BOOK_CLOUD"  # "1": behave as in the cloud; "0": never
BINDER_VARS = ("BINDER_REPO_URL", "BINDER_LAUNCH_HOST", "BINDER_SERVICE_HOST")


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


def prepare_for_cloud() -> Checkpoint | None:
    """In Colab or Binder: load the full checkpoint and say what it holds.

    Returns the loaded checkpoint there, and None (having done nothing) anywhere else.
    """
    place = where()
    if place is None:
        return None
    if os.environ.get(ENV_VAR):
        print(f"{place}: {ENV_VAR} is set, the chapters read {os.environ[ENV_VAR]}")
    else:
        print(f"{place}: fetching GPT-2 small from the Hugging Face Hub (about 550 MB, "
              "once per session)")
    checkpoint = load_checkpoint()
    print(checkpoint.describe())
    return checkpoint
