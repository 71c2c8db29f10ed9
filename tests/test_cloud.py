"""The chapters' first cell: inert locally, installs and loads in Colab/Binder, in every chapter."""

import subprocess
import sys
import types
from pathlib import Path

import nbformat
import pytest

from attention_book import setup_env
from attention_book.cloud import (
    BINDER_VARS,
    CELL_TAGS,
    CLOUD_VAR,
    cloud_cell_problem,
    first_cell,
    prepare_for_cloud,
    repository,
    sync_cloud_cell,
    where,
)

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "book").glob("*.ipynb"))


@pytest.fixture
def local(monkeypatch):
    """A plain machine: no Colab module, no Binder variables, no forcing."""
    for var in (CLOUD_VAR, *BINDER_VARS):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)

    def no_pip(*args, **kwargs):
        raise AssertionError(f"pip must not run here: {args}")

    monkeypatch.setattr(subprocess, "check_call", no_pip)
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


def test_in_the_cloud_missing_libraries_are_installed_and_gpt2_loaded(local, capsys):
    """Colab without tiktoken: pip gets exactly that name, then the loader runs."""
    local.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    calls = []
    local.setattr(subprocess, "check_call", lambda cmd: calls.append(cmd))
    local.setattr(setup_env, "RUNTIME", {**setup_env.RUNTIME,
                                         "no_such_module_xyz": "tiktoken-stand-in"})
    checkpoint = prepare_for_cloud()
    assert calls == [[sys.executable, "-m", "pip", "install", "--quiet", "tiktoken-stand-in"]]
    assert checkpoint is not None and "h.0.attn.c_attn.weight" in checkpoint.tensors
    out = capsys.readouterr().out
    assert "installing tiktoken-stand-in" in out and "GPT-2 small checkpoint" in out


def test_missing_modules_finds_what_is_absent():
    assert setup_env.missing_modules({"numpy": "numpy", "no_such_module_xyz": "xyz"}) == ["xyz"]


def test_the_cell_is_made_from_the_config(tmp_path):
    config = tmp_path / "_config.yml"
    config.write_text("repository:\n  url: https://example.org/a/b/\n  branch: dev\n")
    url, branch = repository(config)
    assert (url, branch) == ("https://example.org/a/b", "dev")
    assert 'git+https://example.org/a/b@dev"' in first_cell(url, branch)
    config.write_text("title: no repository\n")
    with pytest.raises(ValueError, match="no repository url"):
        repository(config)


def test_sync_inserts_then_updates_then_leaves_alone(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title"),
                                         nbformat.v4.new_code_cell("x = 1")])
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    assert sync_cloud_cell(path, "https://example.org/a/b")
    cells = nbformat.read(path, as_version=4).cells
    assert [c.cell_type for c in cells] == ["markdown", "code", "code"]
    assert cells[1].metadata["tags"] == CELL_TAGS and cells[2].source == "x = 1"
    assert not sync_cloud_cell(path, "https://example.org/a/b")  # already right
    assert sync_cloud_cell(path, "https://example.org/c/d")      # address changed
    cells = nbformat.read(path, as_version=4).cells
    assert len(cells) == 3 and "example.org/c/d" in cells[1].source


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_every_chapter_starts_with_the_cloud_cell(nb):
    source = first_cell(*repository(REPO / "_config.yml"))
    problem = cloud_cell_problem(nbformat.read(nb, as_version=4), source)
    assert problem is None, f"{nb.name} {problem}: run python scripts/cloud_cell.py"
