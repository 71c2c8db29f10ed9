import re

import pytest
from conftest import shared_claims_spec

from attention_book import ledger as lg
from attention_book.ledger import NOT_VERIFIED, STATED, VERIFIED, Ledger, claim_index, read_records


@pytest.fixture
def ledger_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(lg.LEDGER_DIR_VAR, str(tmp_path))
    return tmp_path


def test_claim_index_matches_the_specification():
    spec = shared_claims_spec()
    if spec is None:
        pytest.skip("the content specification (shared/CLAIMS.md) is not on this machine")
    ids = re.findall(r"^\*\*([A-Z]\d+)\. ", spec.read_text(), re.M)
    assert ids == list(claim_index()), "attention_book/claims.yml must list the spec's claims"


def test_round_trip(ledger_dir):
    book = Ledger("book/99_test")
    book.record("L1", statement="s", evidence=["symbolic"], measured="1e-6", tolerance="1e-5")
    book.record("M3", statement="t", evidence=["citation"], status=STATED)
    records = read_records()
    assert set(records) == {"L1", "M3"}
    assert records["L1"].status == VERIFIED and records["L1"].chapter == "book/99_test"
    assert "Ledger, L1: verified" in records["L1"]._repr_markdown_()


def test_a_chapter_rerun_replaces_its_records(ledger_dir):
    Ledger("book/99_test").record("L1", statement="s", evidence=["symbolic"])
    Ledger("book/99_test")  # the chapter starts again and records nothing
    assert read_records() == {}


def test_unknown_claim_is_refused(ledger_dir):
    with pytest.raises(KeyError, match="'Z9' is not a claim"):
        Ledger("book/99_test").record("Z9", statement="s", evidence=["symbolic"])


@pytest.mark.parametrize("kwargs, message", [
    ({"evidence": []}, "non-empty"),
    ({"evidence": ["vibes"]}, "drawn from"),
    ({"evidence": ["symbolic"], "status": "probably"}, "status must be"),
    ({"evidence": ["symbolic"], "status": NOT_VERIFIED}, "must say why"),
])
def test_malformed_records_are_refused(ledger_dir, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Ledger("book/99_test").record("L1", statement="s", **kwargs)
