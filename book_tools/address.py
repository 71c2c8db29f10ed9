"""The book's repository address, resolved in one place, and the Sphinx extension that puts
it into the theme. The publishing workflow sets ``ATTENTION_BOOK_REPOSITORY_URL`` to the
repository it runs in (a fork publishes itself); without it the address is ``_config.yml``'s
``repository: url:``. The theme's buttons and footer links (``setup``), every chapter's
Colab and Binder links and the published notebooks' set-up cell read it here."""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

REPOSITORY_VAR = "ATTENTION_BOOK_REPOSITORY_URL"
# What _config.yml holds until the book has its own home; a published build never carries it
# (make deploy-guard refuses to deploy a site that does).
PLACEHOLDER = "https://github.com/attention-book/four-matrices"
CONFIG = Path(__file__).resolve().parent.parent / "_config.yml"
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
    override = os.environ.get(REPOSITORY_VAR, "").strip().rstrip("/")
    if override and not _ADDRESS.fullmatch(override):
        raise ValueError(f"${REPOSITORY_VAR} is '{override}', not a repository address like "
                         "https://github.com/OWNER/NAME; set it to the server URL and "
                         "owner/name of the repository the book is published from")
    return override or url, branch


def use_resolved_address(app, config) -> None:
    """The theme's options with every copy of the configured address made the resolved one."""
    options = dict(config.html_theme_options or {})
    configured_url = str(options.get("repository_url") or "").rstrip("/")
    resolved, _ = repository(CONFIG)
    if configured_url and resolved != configured_url:
        config.html_theme_options = {
            k: v.replace(configured_url, resolved) if isinstance(v, str) else v
            for k, v in options.items()}


def setup(app) -> dict:
    app.connect("config-inited", use_resolved_address)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
