"""The build renders nbval's execution of a chapter only while that execution is still true
of the chapter: the same source, the same weights, newer than the code it ran
(book_tools.execute, book_tools.nbval_record). Nothing here executes a chapter."""

import time

import nbformat
import pytest

from book_tools.execute import read_source, stale_reason
from book_tools.nbval_record import METADATA_KEY, source_digest, weights_key
from book_tools.notebooks import REPO, chapters


@pytest.fixture
def chapter():
    return min(chapters(), key=lambda p: p.stat().st_size)


def recording(source, **changes) -> nbformat.NotebookNode:
    nb = read_source(source)
    nb.metadata[METADATA_KEY] = {"source": source.relative_to(REPO).as_posix(),
                                 "source_sha256": source_digest(source),
                                 "weights": weights_key(), "finished": time.time(),
                                 "seconds": 1.0, "ledger": None} | changes
    return nb


def test_a_fresh_recording_of_the_same_chapter_on_the_same_weights_is_used(chapter):
    assert stale_reason(chapter, recording(chapter), read_source(chapter)) is None


def test_a_recording_on_other_weights_is_not_used(chapter, monkeypatch):
    recorded = recording(chapter)
    monkeypatch.setenv("GPT2_CHECKPOINT", "/elsewhere/gpt2")
    assert stale_reason(chapter, recorded, read_source(chapter)) == "recorded on other weights"
    monkeypatch.delenv("GPT2_CHECKPOINT")
    monkeypatch.setenv("ATTENTION_BOOK_REHEARSAL", "1")
    assert stale_reason(chapter, recorded, read_source(chapter)) == "recorded on other weights"


def test_a_recording_of_an_older_chapter_or_older_code_is_not_used(chapter):
    nb = read_source(chapter)
    assert stale_reason(chapter, recording(chapter, source_sha256="0" * 64), nb) \
        == "the chapter changed since"
    assert stale_reason(chapter, recording(chapter, finished=0.0), nb) \
        == "attention_book or the chapter changed since"


def test_a_recording_of_another_chapter_or_with_other_code_cells_is_not_used(chapter):
    nb = read_source(chapter)
    other = next(p for p in chapters() if p != chapter)
    assert stale_reason(chapter, recording(other), nb) == "not a recording of this chapter"
    unmarked = read_source(chapter)
    assert stale_reason(chapter, unmarked, nb) == "not a recording of this chapter"
    edited = recording(chapter)
    next(c for c in edited.cells if c.cell_type == "code").source += "\nx = 1"
    assert "code cells differ" in stale_reason(chapter, edited, nb)
