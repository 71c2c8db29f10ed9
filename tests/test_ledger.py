import re

import pytest
from conftest import shared_claims_spec

from attention_book import checks
from attention_book import ledger as lg
from attention_book.checks import FINDING, IDENTITY, ClaimCheckFailed, check, versus_control
from attention_book.claims import claim_index
from attention_book.ledger import (
    NOT_VERIFIED,
    STATED,
    VERIFIED,
    Ledger,
    read_derivations,
    read_records,
)


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


def _finding(value=0.9, control=0.1):
    return versus_control("Q1", FINDING, "share", gpt2=value, control=control,
                          passes=lambda v: v > 0.5, expected="> 0.5")


def test_round_trip_with_kind_control_and_derivation(ledger_dir):
    book = Ledger("book/99_test")
    book.derived("Q1", symbolic="d, entries", step="SymPy expands")
    book.record("Q1", evidence=["symbolic", "GPT-2 weights"], checks=[_finding()],
                measured="0.9")
    book.record("M3", evidence=["citation"], status=STATED)
    records = read_records()
    assert set(records) == {"Q1", "M3"}
    q1 = records["Q1"]
    assert q1.status == VERIFIED and q1.chapter == "book/99_test"
    assert q1.statement == claim_index()["Q1"]["title"]
    assert q1.checks[0]["kind"] == FINDING and q1.checks[0]["control_passes"] is False
    assert "Ledger, Q1: verified" in q1._repr_markdown_()
    assert read_derivations()["Q1"].genuine


def test_a_chapter_rerun_replaces_its_records(ledger_dir):
    Ledger("book/99_test").record("L5", evidence=["symbolic"])
    Ledger("book/99_test")  # the chapter starts again and records nothing
    assert read_records() == {}


def test_unknown_claim_is_refused(ledger_dir):
    with pytest.raises(KeyError, match="'Z9' is not a claim"):
        Ledger("book/99_test").record("Z9", evidence=["symbolic"])


@pytest.mark.parametrize("kwargs, message", [
    ({"evidence": []}, "non-empty"),
    ({"evidence": ["vibes"]}, "drawn from"),
    ({"evidence": ["symbolic"], "status": "probably"}, "status must be"),
    ({"evidence": ["symbolic"], "status": NOT_VERIFIED}, "must say why"),
    ({"evidence": ["GPT-2 weights"]}, "needs its Verdict"),
])
def test_malformed_records_are_refused(ledger_dir, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Ledger("book/99_test").record("Q1", **kwargs)


def test_a_derivation_must_say_what_sympy_does(ledger_dir):
    with pytest.raises(ValueError, match="which step SymPy performs"):
        Ledger("book/99_test").derived("Q1", symbolic="d", step="")


def test_a_failed_check_names_the_claim_and_the_number():
    with pytest.raises(ClaimCheckFailed, match=r"^Q1 failed: head 3\.0 share 0\.000"):
        check("Q1", False, "head 3.0 share 0.000, expected > 1e-3")
    tb = ClaimCheckFailed("Q1 failed: x")._render_traceback_()
    assert len(tb) == 1 and "Q1 failed: x" in tb[0]


def test_a_finding_must_fail_on_the_control_and_an_identity_pass():
    assert _finding().kind == FINDING
    with pytest.raises(ClaimCheckFailed, match="does not separate trained GPT-2"):
        _finding(control=0.9)
    with pytest.raises(ClaimCheckFailed, match=r"Q1 failed: share = 0\.1 on GPT-2"):
        _finding(value=0.1)
    with pytest.raises(ClaimCheckFailed, match="identity fails on the random-init control"):
        versus_control("O1", IDENTITY, "gap", gpt2=1e-7, control=1.0,
                       passes=lambda v: v < 1e-5, expected="< 1e-5")


def test_a_check_that_failed_is_never_recorded_as_verified(ledger_dir, monkeypatch):
    monkeypatch.setitem(checks.failures, "L5", "L5 failed: x")
    rec = Ledger("book/99_test").record("L5", evidence=["symbolic"])
    assert rec.status == lg.FAILED and rec.reason == "L5 failed: x"
