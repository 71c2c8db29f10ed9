"""The build renders nbval's execution of a chapter only while that execution is still true
of the chapter: the same source, the same weights, newer than the code it ran
(book_tools.execute, book_tools.nbval_record). Nothing here executes a chapter."""

import time

import nbformat
import pytest
from myst_nb.core.read import myst_nb_reader_plugin

from book_tools.execute import stale_reason
from book_tools.nbval_record import METADATA_KEY, source_digest, weights_key
from book_tools.notebooks import chapters


@pytest.fixture
def chapter():
    return min(chapters(), key=lambda p: p.stat().st_size)


def read(source) -> nbformat.NotebookNode:
    return myst_nb_reader_plugin(str(source))


def recording(source, **changes) -> nbformat.NotebookNode:
    nb = read(source)
    nb.metadata[METADATA_KEY] = {"source_sha256": source_digest(source), "seconds": 1.0,
                                 "weights": weights_key(), "finished": time.time()} | changes
    return nb


def test_a_fresh_recording_of_the_same_chapter_on_the_same_weights_is_used(chapter):
    assert stale_reason(chapter, recording(chapter), read(chapter)) is None


def test_a_recording_on_other_weights_is_not_used(chapter, monkeypatch):
    recorded = recording(chapter)
    monkeypatch.setenv("GPT2_CHECKPOINT", "/elsewhere/gpt2")
    assert stale_reason(chapter, recorded, read(chapter)) == "recorded on other weights"
    monkeypatch.delenv("GPT2_CHECKPOINT")
    monkeypatch.setenv("ATTENTION_BOOK_REHEARSAL", "1")
    assert stale_reason(chapter, recorded, read(chapter)) == "recorded on other weights"


def test_a_recording_of_an_older_or_another_chapter_or_of_older_code_is_not_used(chapter):
    nb = read(chapter)
    other = next(p for p in chapters() if p != chapter)
    for stale in (recording(other), read(chapter), recording(chapter, source_sha256="0" * 64)):
        assert stale_reason(chapter, stale, nb) == "the chapter changed since"
    assert stale_reason(chapter, recording(chapter, finished=0.0), nb) \
        == "attention_book changed since"


def test_a_recording_with_other_code_cells_is_not_used(chapter):
    edited = recording(chapter)
    next(c for c in edited.cells if c.cell_type == "code").source += "\nx = 1"
    assert "code cells differ" in stale_reason(chapter, edited, read(chapter))
