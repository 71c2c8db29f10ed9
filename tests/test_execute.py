"""Each chapter executes once: nbval's run goes into the build's cache (book_tools.execute as
nbval's plugin) and the strict build renders it, exactly as a fresh execution gives it, with
the ledger file that run wrote; a change to what the run depended on executes it again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jupytext
import pytest
from jupyter_cache import get_cache
from myst_nb.core.read import myst_nb_reader_plugin

from book_tools.execute import execute, inputs_key

HEADER = """---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---
"""
CHAPTER = HEADER + """
# A chapter

```{code-cell}
import sys
from IPython.display import Markdown, display
from attention_book.ledger import Ledger
ledger = Ledger("book/zz_chapter", "")
print("printed before the figure")
display(Markdown("**a display between two prints**"))
print("printed after it")
print("a warning", file=sys.stderr)
```

Prose between the cells.

```{code-cell}
6 * 7
```
"""


def nbval(source: Path, cache: Path) -> subprocess.CompletedProcess:
    """make chapters on one chapter: nbval with the plugin, into ``cache``."""
    notebook = source.with_suffix(".ipynb")
    jupytext.write(jupytext.read(source), notebook)
    return subprocess.run([sys.executable, "-m", "pytest", "--nbval-lax", "--nbval-current-env",
                           "-p", "no:cacheprovider", "-p", "book_tools.execute",
                           "--executed-cache", str(cache), "-q", str(notebook)],
                          cwd=source.parent, capture_output=True, text=True)


def rendered(cache: Path, source: Path, read=None):
    """The chapter as the build renders it from ``cache`` (MyST-NB's merge of its reading)."""
    read = read or myst_nb_reader_plugin(str(source))
    return get_cache(cache).merge_match_into_notebook(read)[1]


@pytest.fixture
def chapter(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("ATTENTION_BOOK_LEDGER_DIR", str(tmp_path / "ledger"))
    source = tmp_path / "zz_chapter.md"
    source.write_text(CHAPTER)
    return source


@pytest.mark.slow
def test_the_build_renders_nbvals_run_as_a_fresh_execution_with_its_ledger(chapter, capsys):
    cache, ledger = chapter.parent / "cache", chapter.parent / "ledger" / "book__zz_chapter.json"
    done = nbval(chapter, cache)
    assert done.returncode == 0, done.stdout + done.stderr
    written = ledger.read_text()
    ledger.unlink()  # (the strict build starts from an empty ledger)

    assert execute(cache, [chapter]) == []
    assert "kept nbval's execution of zz_chapter.md" in capsys.readouterr().out
    assert ledger.read_text() == written
    assert execute(chapter.parent / "fresh", [chapter]) == []
    read = myst_nb_reader_plugin(str(chapter))  # (its cells' ids are drawn at each reading)
    kept, fresh = rendered(cache, chapter, read), rendered(chapter.parent / "fresh", chapter, read)
    assert kept == fresh
    assert [o.get("text") or o.output_type for o in kept.cells[1].outputs] == [
        "printed before the figure\n", "display_data", "printed after it\n", "a warning\n"]
    assert kept.cells[-1].outputs[0]["data"]["text/plain"] == "42"


@pytest.mark.slow
def test_a_changed_chapter_or_variable_is_executed_again_and_a_failing_one_not_cached(
        chapter, monkeypatch, capsys):
    cache = chapter.parent / "cache"
    assert nbval(chapter, cache).returncode == 0
    monkeypatch.setenv("ATTENTION_BOOK_ALLOW_MODIFIED", "1")
    assert execute(cache, [chapter]) == []
    assert "kept" not in capsys.readouterr().out
    assert "inputs_key" not in get_cache(cache).list_cache_records()[0].data  # re-executed
    monkeypatch.delenv("ATTENTION_BOOK_ALLOW_MODIFIED")
    assert nbval(chapter, cache).returncode == 0
    chapter.write_text(CHAPTER + "\nA sentence added after nbval's run.\n")
    assert execute(cache, [chapter]) == []
    assert "kept" not in capsys.readouterr().out

    broken = chapter.parent / "zz_broken.md"
    broken.write_text(HEADER + "\n```{code-cell}\nprint('runs')\n```\n\n"
                      "```{code-cell}\n1 / 0\n```\n")
    assert nbval(broken, chapter.parent / "broken").returncode != 0
    assert get_cache(chapter.parent / "broken").list_cache_records() == []


def test_the_key_follows_the_chapter_the_variables_and_the_weights_files(tmp_path, monkeypatch):
    source, weights = tmp_path / "a.md", tmp_path / "weights"
    source.write_text(CHAPTER)
    weights.mkdir()
    (weights / "model.safetensors").write_bytes(b"x")
    monkeypatch.setenv("GPT2_CHECKPOINT", str(weights))
    keys = [inputs_key(source), inputs_key(source)]
    (weights / "model.safetensors").write_bytes(b"xy")
    keys.append(inputs_key(source))
    source.write_text(CHAPTER + "\n")
    keys.append(inputs_key(source))
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "7")
    keys.append(inputs_key(source))
    assert keys[0] == keys[1] and len(set(keys)) == 4


@pytest.mark.slow
def test_chapters_are_executed_into_the_cache_and_a_failing_one_is_named(tmp_path):
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text(HEADER + "\n# Good\n\n```{code-cell}\nprint(6 * 7)\n```\n")
    bad.write_text(HEADER + "\n# Bad\n\n```{code-cell}\n1 / 0\n```\n")
    failed = execute(tmp_path / "cache", [good, bad])
    assert [Path(uri).name for uri in failed] == ["bad.md"]
    cache = get_cache(tmp_path / "cache")
    assert "ZeroDivisionError" in cache.get_project_record(str(bad)).traceback
    assert rendered(tmp_path / "cache", good).cells[-1].outputs[0]["text"] == "42\n"
