"""The atlas's pieces that need no build: head mentions to links, roles, when the page is
read again (what the atlas says of each role: tests/test_head_roles.py)."""

from types import SimpleNamespace

import pytest

from attention_book.head_roles import load_roles, parse_head, roles_of
from book_tools.sphinx_atlas import (
    ATLAS_DOC,
    atlas_inputs,
    link_text,
    mention_spans,
    reread_when_inputs_changed,
)


def names(text):
    return [name for _, _, name in mention_spans(text)]


def test_mentions_of_one_and_of_several_heads():
    assert names("Take head 5.5 of GPT-2") == ["5.5"]
    assert names("duplicate-token heads 0.1, 0.10 and 3.0, previous-token heads 2.2 "
                 "and 4.11") == ["0.1", "0.10", "3.0", "2.2", "4.11"]
    assert names("Heads 7.2 or 7.10") == ["7.2", "7.10"]


def test_numbers_that_are_not_head_mentions_stay_text():
    assert names("a threshold of 0.25 and version 1.0.0") == []
    assert names("head 12.3 does not exist, nor head 3.12") == []
    assert names("ahead 5.5") == []


def test_link_text_keeps_the_words_and_links_each_head():
    parts = link_text("heads 0.1 and 3.0 copy", "atlas.html")
    assert "".join(p.astext() for p in parts) == "heads 0.1 and 3.0 copy"
    assert [p["refuri"] for p in parts if p.tagname == "reference"] == [
        "atlas.html#head-0.1", "atlas.html#head-3.0"]


def test_roles_come_with_their_citations():
    groups = load_roles()
    assert {g.role for g in roles_of((5, 5), groups)} == {"induction"}
    assert all(g.cite for g in groups)
    with pytest.raises(ValueError, match="layer.head"):
        parse_head("5_5")


def test_the_atlas_is_read_again_only_when_what_it_is_computed_from_changed(
        tmp_path, monkeypatch):
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"x")
    monkeypatch.setenv("GPT2_CHECKPOINT", str(tmp_path))
    env = SimpleNamespace(found_docs={ATLAS_DOC, "book/intro"})
    assert reread_when_inputs_changed(None, env, set(), set(), set()) == [ATLAS_DOC]
    env.atlas_inputs = atlas_inputs()
    assert reread_when_inputs_changed(None, env, set(), set(), set()) == []
    weights.write_bytes(b"other weights")            # the same path, another file
    assert reread_when_inputs_changed(None, env, set(), set(), set()) == [ATLAS_DOC]
    env.atlas_inputs = atlas_inputs()
    monkeypatch.setenv("ATTENTION_BOOK_ALLOW_MODIFIED", "1")
    assert reread_when_inputs_changed(None, env, set(), set(), set()) == [ATLAS_DOC]
    monkeypatch.setenv("GPT2_CHECKPOINT", str(tmp_path / "nowhere"))
    assert atlas_inputs() is None
    assert reread_when_inputs_changed(None, env, set(), set(), set()) == [ATLAS_DOC]
