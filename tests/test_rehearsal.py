"""The rehearsal catches what only the full checkpoint reaches: a code error planted in a
full-checkpoint-only branch passes on the offline checkpoint and fails the rehearsal."""

import json
import os
import textwrap

import pytest
from jupyter_cache import get_cache

from attention_book import checkpoint as ck
from attention_book.ledger import FAILED
from book_tools import rehearsal, standin

HEADER = """\
---
jupytext:
  text_representation: {extension: .md, format_name: myst}
kernelspec: {display_name: Python 3, language: python, name: python3}
---
"""
OPENING = """\
```{code-cell}
from attention_book.checkpoint import load_checkpoint
from attention_book.gpt2 import load_gpt2
from attention_book.ledger import NOT_VERIFIED, VERIFIED, Ledger
checkpoint = load_checkpoint()
print(checkpoint.describe())
model = load_gpt2()
```
"""
CHAPTERS = {
    # A KeyError that only the full-checkpoint branch reaches.
    "zz_planted": """\
```{code-cell}
if model.has_wte and model.has_mlp:
    logits = model.logits([464, 3797])
    top = {}["planted: a key only the full-checkpoint branch reads"]
```
""",
    # The full branch runs cleanly: real tokens through the whole model.
    "zz_clean": """\
```{code-cell}
if model.has_wte and model.has_mlp:
    logits = model.logits([464, 3797, 318])
    assert logits.shape == (3, 50257)
```
""",
    # A claim's check fails on the stand-in: recorded, the chapter goes on.
    "zz_check_fails": """\
```{code-cell}
ledger = Ledger("book/zz_check_fails", checkpoint.weights_note)
ledger.add_failure("Q6", "Q6 failed: asymmetry 0.001 on token rows, expected > 0.01")
ledger.record("Q6", evidence=("numeric",))
print("the chapter went on")
```
""",
    # A full-checkpoint claim left unverified although the full tensors are there.
    "zz_branch_not_taken": """\
```{code-cell}
ledger = Ledger("book/zz_branch_not_taken", checkpoint.weights_note)
ledger.record("I2", evidence=("numeric",), status=NOT_VERIFIED,
              reason="needs the token embeddings")
```
""",
}


def _write(folder, name, body, opening=OPENING):
    path = folder / f"{name}.md"
    path.write_text(HEADER + f"\n# {name}\n\n" + opening + "\n" + textwrap.dedent(body))
    return path


@pytest.mark.slow
def test_rehearsal_judges_every_kind_of_chapter(tmp_path, checkpoint):
    """One rehearsal of six small chapters (one test: under xdist it runs once)."""
    folder = tmp_path / "chapters"
    folder.mkdir()
    sources = [_write(folder, name, body) for name, body in CHAPTERS.items()]
    sources.append(_write(folder, "zz_silent", "```{code-cell}\nx = 1\n```\n",
                          opening="```{code-cell}\nprint('hello')\n```\n"))
    out = tmp_path / "rehearsal"
    results = rehearsal.rehearse(sources, out)

    # The planted error in a full-checkpoint-only branch fails the rehearsal, with its
    # traceback ...
    (problem,) = results["zz_planted"].problems
    assert problem.startswith("a cell failed") and "KeyError" in problem and "planted" in problem
    # ... and is invisible to an ordinary run on the offline checkpoint.
    if not checkpoint.is_full:
        env = dict(os.environ, **{ck.ENV_VAR: str(checkpoint.path.parent),
                                  "ATTENTION_BOOK_LEDGER_DIR": str(tmp_path / "ledger")})
        env.pop(ck.REHEARSAL_VAR, None)
        rehearsal.run_chapters([sources[0]], env, tmp_path / "ordinary")
        ran = get_cache(tmp_path / "ordinary").get_project_record(str(sources[0]))
        assert ran.traceback is None, ran.traceback

    # A clean full branch passes.
    assert results["zz_clean"].ok, results["zz_clean"].problems

    # A failed check is recorded, not raised; its ledger entry is never 'verified'.
    r = results["zz_check_fails"]
    assert r.ok and r.recorded == ["Q6"], (r.problems, r.recorded)
    ledger = json.loads((out / "ledger" / "book__zz_check_fails.json").read_text())
    (rec,) = ledger["records"]
    assert rec["status"] == FAILED

    # A full-checkpoint claim left unverified although the full tensors are there fails.
    r = results["zz_branch_not_taken"]
    assert not r.ok and "I2" in r.problems[0] and "did not run" in r.problems[0]

    # A chapter whose first output does not say what the weights are fails.
    r = results["zz_silent"]
    assert not r.ok and "first output" in r.problems[0]

    assert list(results) == [p.stem for p in sources]


def test_rehearsal_never_writes_the_published_ledger(tmp_path):
    with pytest.raises(ValueError, match="published ledger"):
        rehearsal.rehearse([], rehearsal.REPO / "_build")


@pytest.mark.slow
def test_standin_folder_is_recognised_and_kept(checkpoint, monkeypatch):
    folder = standin.build()
    assert (folder / "model.safetensors").is_file()
    assert (folder / "vocab.bpe").exists() or (folder / "merges.txt").exists()
    monkeypatch.setenv(ck.ENV_VAR, str(folder))
    monkeypatch.setenv(ck.REHEARSAL_VAR, "1")
    ck._load.cache_clear()
    try:
        loaded = ck.load_checkpoint()
        assert loaded.is_standin and loaded.is_full
        assert standin.is_current_standin(folder / "model.safetensors")
        assert loaded.weights_note and "never GPT-2" in loaded.describe()
    finally:
        ck._load.cache_clear()
    mtime = (folder / "model.safetensors").stat().st_mtime_ns
    assert standin.build() == folder
    assert (folder / "model.safetensors").stat().st_mtime_ns == mtime  # current: not rebuilt
