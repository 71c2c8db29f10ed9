"""The book's repository address, resolved in one place.

The publishing workflow builds the book in whichever repository it runs in (a fork
publishes itself): it sets ``ATTENTION_BOOK_REPOSITORY_URL`` to
``${{ github.server_url }}/${{ github.repository }}``. Without that variable (a local build)
the address is ``_config.yml``'s ``repository: url:``. Everything that writes the address into
the site reads it from here: the repository and issue buttons and the footer's licence,
erratum and citation links (``book_tools.sphinx_address``), every chapter's Colab and Binder
links (``book_tools.sphinx_launch``) and the set-up cell of the published notebooks
(``book_tools.cloud_cell``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

REPOSITORY_VAR = "ATTENTION_BOOK_REPOSITORY_URL"
# What _config.yml holds until the book has its own home; a published build never carries it
# (book_tools.deploy_guard refuses to deploy a site that does).
PLACEHOLDER = "https://github.com/attention-book/four-matrices"
_ADDRESS = re.compile(r"https://[A-Za-z0-9.-]+(:[0-9]+)?/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def configured(config: Path) -> tuple[str, str]:
    """(url, branch) as written in ``_config.yml``'s ``repository`` block."""
    repo = (yaml.safe_load(config.read_text()) or {}).get("repository") or {}
    if not repo.get("url"):
        raise ValueError(f"{config} has no repository url (repository: url: ...)")
    return str(repo["url"]).rstrip("/"), str(repo.get("branch") or "main")


def repository(config: Path) -> tuple[str, str]:
    """(url, branch) of the book's repository: $ATTENTION_BOOK_REPOSITORY_URL when set (the
    publishing workflow), else ``_config.yml``'s. The branch is always ``_config.yml``'s."""
    url, branch = configured(config)
    override = os.environ.get(REPOSITORY_VAR, "").strip()
    if not override:
        return url, branch
    override = override.rstrip("/")
    if not _ADDRESS.fullmatch(override):
        raise ValueError(f"${REPOSITORY_VAR} is '{override}', not a repository address like "
                         "https://github.com/OWNER/NAME; set it to the server URL and "
                         "owner/name of the repository the book is published from")
    return override, branch
