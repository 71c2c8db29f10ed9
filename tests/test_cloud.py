"""The published notebooks' first cell: inert locally, installs and loads in Colab/Binder."""

import sys
import types
from pathlib import Path

import nbformat
import pytest

from attention_book.cloud import BINDER_VARS, CLOUD_VAR, prepare_for_cloud, where
from book_tools.cloud_cell import CELL_TAGS, first_cell, launch_urls, repository
from book_tools.notebooks import chapters, generate

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def local(monkeypatch):
    """A plain machine: no Colab module, no Binder variables, no forcing."""
    for var in (CLOUD_VAR, *BINDER_VARS):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    return monkeypatch


def test_local_build_and_tests_do_nothing(local, capsys):
    assert where() is None
    assert prepare_for_cloud() is None
    assert capsys.readouterr().out == ""  # the hidden cell leaves no output on the page


def test_colab_and_binder_are_recognised(local):
    local.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    assert where() == "colab"
    local.setenv(CLOUD_VAR, "0")  # an explicit "no" wins
    assert where() is None
    local.delitem(sys.modules, "google.colab")
    local.delenv(CLOUD_VAR)
    local.setenv("BINDER_REPO_URL", "https://github.com/someone/somewhere")
    assert where() == "binder"


def test_in_the_cloud_the_checkpoint_is_loaded_and_described(local, capsys):
    local.setenv(CLOUD_VAR, "1")
    checkpoint = prepare_for_cloud()
    assert checkpoint is not None and "h.0.attn.c_attn.weight" in checkpoint.tensors
    assert "GPT-2 small" in capsys.readouterr().out


def test_the_cell_and_links_are_made_from_the_config(tmp_path):
    config = tmp_path / "_config.yml"
    config.write_text("repository:\n  url: https://github.com/a/b/\n  branch: dev\n")
    url, branch = repository(config)
    assert (url, branch) == ("https://github.com/a/b", "dev")
    assert '"attention-book @ git+https://github.com/a/b@dev"' in first_cell(url, branch)
    compile(first_cell(url, branch), "cell", "exec")  # plain Python: no magics
    links = launch_urls(url, "01_x.ipynb")
    assert links["Colab"] == ("https://colab.research.google.com/github/a/b/blob/notebooks/"
                              "01_x.ipynb")
    assert links["Binder"].startswith("https://mybinder.org/v2/gh/a/b/notebooks?")
    config.write_text("title: no repository\n")
    with pytest.raises(ValueError, match="no repository url"):
        repository(config)


def test_published_notebooks_start_with_the_cell(tmp_path):
    paths = generate(tmp_path, chapters()[:2], cloud=True)
    url, branch = repository(REPO / "_config.yml")
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        first = next(c for c in nb.cells if c.cell_type == "code")
        assert first.source == first_cell(url, branch)
        assert first.metadata["tags"] == CELL_TAGS
    assert f"git+{url}@{branch}" in (tmp_path / "requirements.txt").read_text()
