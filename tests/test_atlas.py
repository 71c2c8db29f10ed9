"""The atlas's pieces that need no build: head mentions to links, roles, when the page is
read again, the page's figures (what the atlas says of each role: tests/test_head_roles.py)."""

import io
from types import SimpleNamespace

import numpy as np
import pytest

from attention_book.head_roles import load_roles, parse_head, roles_of
from attention_book.plotting import LEGEND_PX_KEY
from book_tools.atlas_page import CURVES, interactive_html, overview_png
from book_tools.sphinx_atlas import ATLAS_DOC, always_reread, link_text, mention_spans


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


def test_the_atlas_page_is_read_again_at_every_build():
    """What it is computed from (the weights, the control, the code) Sphinx cannot see."""
    env = SimpleNamespace(found_docs={ATLAS_DOC, "book/intro"})
    assert always_reread(None, env, set(), set(), set()) == [ATLAS_DOC]
    assert always_reread(None, SimpleNamespace(found_docs={"x"}), set(), set(), set()) == []


def small_atlas(n: int = 2) -> dict:
    """An atlas of n x n heads whose every number is made up, in heads.json's shape."""
    rng = np.random.default_rng(0)

    def entry():
        return {"antisymmetric_share": 0.2, "negative_mass_share": 0.3,
                "self_score_bound_violation_share": 0.1, "previous_token_score": 0.5,
                "ov_copying_score": None, "inertia": [3, 2],
                "attention_pattern": np.tril(np.ones((3, 3))).tolist(),
                **{f: sorted(rng.random(4).tolist()) for f, _, _ in CURVES.values()}}

    heads = {f"{layer}.{h}": {**entry(), "control": entry(), "roles": []}
             for layer in range(n) for h in range(n)}
    return {"about": {"rows_are_tokens": False}, "heads": heads}


def test_the_page_carries_every_widget_and_the_print_overview_records_no_legend():
    from PIL import Image

    script, div = interactive_html(small_atlas())
    for name in ("atlas-layer", "atlas-head", "atlas-search", "atlas-pin", "atlas-control",
                 "atlas-numbers", "pattern-control"):
        assert name in script, name
    assert "<div" in div and '"3.0"' not in script  # the heads of this atlas only
    png = overview_png(small_atlas())
    with Image.open(io.BytesIO(png)) as image:
        assert image.text[LEGEND_PX_KEY] == "none" and image.width > 400
