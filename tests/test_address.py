"""A fork publishes itself: with the workflow's repository variable set, every place the
site writes the book's address (theme buttons, footer links, launch links, the notebooks'
set-up cell, Binder's requirements) carries that repository, and none the placeholder. The
built pages are checked for it by the deploy guard (tests/test_workflows.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from jupyter_book.config import get_final_config

from book_tools import address
from book_tools.address import PLACEHOLDER, REPOSITORY_VAR, configured, repository
from book_tools.cloud_cell import first_cell, launch_urls
from book_tools.notebooks import chapters, generate

REPO = Path(__file__).resolve().parent.parent
FORK = "https://github.com/someone-else/their-fork"


def theme_options() -> dict:
    """The theme options Jupyter Book makes from _config.yml, as the build gets them."""
    sphinx, _ = get_final_config(user_yaml=REPO / "_config.yml", sourcedir=REPO,
                                 cli_config={"latex_individualpages": False})
    return sphinx["html_theme_options"]


def test_without_the_variable_the_address_is_config_yml_s(monkeypatch):
    monkeypatch.delenv(REPOSITORY_VAR, raising=False)
    assert repository(REPO / "_config.yml") == configured(REPO / "_config.yml")


def test_the_workflow_s_repository_replaces_it_and_a_bad_one_is_refused(monkeypatch):
    monkeypatch.setenv(REPOSITORY_VAR, FORK + "/")
    assert repository(REPO / "_config.yml") == (FORK, configured(REPO / "_config.yml")[1])
    monkeypatch.setenv(REPOSITORY_VAR, "someone-else/their-fork")
    with pytest.raises(ValueError, match="not a repository address"):
        repository(REPO / "_config.yml")


def test_every_theme_option_and_footer_link_carries_the_fork(monkeypatch):
    monkeypatch.setenv(REPOSITORY_VAR, FORK)
    config = SimpleNamespace(html_theme_options=theme_options())
    assert PLACEHOLDER in config.html_theme_options["extra_footer"]  # before: the placeholder
    address.use_resolved_address(SimpleNamespace(), config)
    options = config.html_theme_options
    assert options["repository_url"] == FORK
    for link in ("/blob/main/LICENSE-CODE", "/issues/new?labels=erratum", "/blob/main/CITATION"):
        assert FORK + link in options["extra_footer"], link
    assert not [k for k, v in options.items() if PLACEHOLDER in str(v)]


def test_launch_links_and_every_published_notebook_carry_the_fork(monkeypatch, tmp_path):
    monkeypatch.setenv(REPOSITORY_VAR, FORK)
    url, branch = repository(REPO / "_config.yml")
    for href in launch_urls(url, "01.ipynb").values():
        assert "someone-else/their-fork" in href and "attention-book/" not in href
    assert f"git+{FORK}@{branch}" in first_cell(url, branch)
    written = generate(tmp_path, chapters()[:2], cloud=True)
    binder = tmp_path / "requirements.txt"  # the Binder environment, beside the notebooks
    assert written and binder in tmp_path.iterdir()
    assert all(FORK in p.read_text() and PLACEHOLDER not in p.read_text()
               for p in [*written, binder])
