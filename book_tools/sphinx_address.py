"""Sphinx extension: the theme's repository address is the resolved one.

Jupyter Book copies ``_config.yml``'s ``repository: url:`` into the theme's options, where the
repository and issue buttons read it, and the footer (``html: extra_footer:``) writes the same
address into its licence, erratum and citation links. When the publishing workflow names
another repository (``book_tools.address``), every one of those becomes that repository's.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

from book_tools.address import repository

REPO = Path(__file__).resolve().parent.parent


def readdress(options: dict, configured: str, resolved: str) -> dict:
    """The theme options with every occurrence of one address replaced by another."""
    return {key: value.replace(configured, resolved) if isinstance(value, str) else value
            for key, value in options.items()}


def use_resolved_address(app: Sphinx, config: Config) -> None:
    options = dict(config.html_theme_options or {})
    configured = str(options.get("repository_url") or "").rstrip("/")
    if not configured:
        return
    resolved, _ = repository(REPO / "_config.yml")
    if resolved != configured:
        config.html_theme_options = readdress(options, configured, resolved)


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", use_resolved_address)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
