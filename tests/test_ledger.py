import re

import pytest
import sympy as sp

from attention_book import ledger as lg
from attention_book.checks import ClaimCheckFailed
from attention_book.claims import claim_index
from attention_book.derivation import DECORATIVE, GENUINE, PARTIAL, Derivation
from attention_book.ledger import (
    NOT_VERIFIED,
    STATED,
    VERIFIED,
    Ledger,
    read_derivations,
    read_records,
)
from attention_book.subjects import SUBJECTS, Case
from attention_book.verify import FINDING, Check, above, evaluate


@pytest.fixture
def ledger_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(lg.LEDGER_DIR_VAR, str(tmp_path))
    return tmp_path


def test_claim_index_matches_the_specification(claims_spec):
    ids = re.findall(r"^\*\*([A-Z]\d+)\. ", claims_spec.read_text(), re.M)
    assert ids == list(claim_index()), "attention_book/claims.yml must list the spec's claims"


class _M:
    def __init__(self, value):
        self.value = value


def _verdict(values=(0.9, 0.9, 0.1, 0.1)):
    check = Check("Q1", "share", lambda c: c.model.value, above(0.5, highest=1, why="w"),
                  FINDING)
    return evaluate(check, [Case(s, None, _M(v)) for s, v in zip(SUBJECTS, values,
                                                                  strict=True)])


def _derivation(ledger: Ledger, claim: str = "Q1") -> None:
    d_k = sp.Symbol("d_k", integer=True, positive=True)
    i = sp.Symbol("i", integer=True)
    a = sp.IndexedBase("a", real=True)
    with Derivation(claim, ledger.chapter, on_done=ledger.add_derivation) as d:
        total = d.step("split the sum", sp.expand, sp.Sum(a[i] * (a[i] + 1), (i, 0, d_k - 1))
                       .doit())
        d.conclude(total, sp.Sum(a[i] ** 2 + a[i], (i, 0, d_k - 1)))


def test_round_trip_with_verdicts_and_derivation(ledger_dir):
    book = Ledger("book/99_test")
    _derivation(book)
    v = _verdict()
    book.add_verdict(v, list(v.problems))
    book.record("Q1", evidence=("figure",))
    book.record("M3", evidence=("citation",), status=STATED)
    records = read_records()
    assert set(records) == {"Q1", "M3"}
    q1 = records["Q1"]
    assert q1.status == VERIFIED and q1.chapter == "book/99_test"
    assert q1.statement == claim_index()["Q1"]["title"]
    assert q1.evidence == ["symbolic", "GPT-2 weights", "figure"]
    assert q1.checks[0]["kind"] == FINDING and q1.checks[0]["passed"]["random init"] is False
    assert "Ledger, Q1: verified" in q1._repr_markdown_()
    assert read_derivations()["Q1"]["status"] == GENUINE


def test_derivation_status_comes_from_what_sympy_did():
    n = sp.Symbol("n", integer=True, positive=True)
    x = sp.Symbol("x")
    typed = Derivation("Q1")
    typed.step("nothing", sp.simplify, x)  # no change
    typed.conclude(x, x)
    assert typed.status == DECORATIVE
    fixed = Derivation("Q1")
    fixed.conclude(fixed.step("expand", sp.expand, (x + 1) ** 2), x**2 + 2 * x + 1)
    assert fixed.status == DECORATIVE  # no size is symbolic
    general = Derivation("Q1")
    general.conclude(general.step("expand", sp.expand, (x + n) ** 2), x**2 + 2 * n * x + n**2)
    assert general.status == GENUINE
    general.rests_on("Sylvester's law of inertia", cite="horn2013matrix")
    assert general.status == PARTIAL
    general.rests_on("rank subadditivity and genericity", cite=("horn2013matrix",
                                                                  "okamoto1973distinctness"))
    assert general.cite == "horn2013matrix,okamoto1973distinctness"
    for no_citation in ("", (), ("horn2013matrix", " ")):
        with pytest.raises(ValueError, match="names its theorem and a citation"):
            general.rests_on("Sylvester's law of inertia", cite=no_citation)
    with pytest.raises(ClaimCheckFailed, match="SymPy does not confirm"):
        general.conclude((x + n) ** 2, x**2 + n**2)


def test_a_matrix_identity_that_expanding_settles_needs_no_simplify(monkeypatch):
    """Expanding a gap of matrix expressions to the ZeroMatrix confirms it (simplify is
    slower and, for such gaps, adds nothing); a false one still fails."""
    n = sp.Symbol("n", integer=True, positive=True)
    A, B = sp.MatrixSymbol("A", n, n), sp.MatrixSymbol("B", n, n)
    d = Derivation("Q1")
    d.conclude(d.step("distribute", sp.expand, A * (A + B)), A * A + A * B)
    monkeypatch.setattr(sp, "simplify", lambda e, *a, **k: pytest.fail("simplify was called"))
    d.conclude((A + B).T, A.T + B.T)
    monkeypatch.undo()
    with pytest.raises(ClaimCheckFailed, match="SymPy does not confirm"):
        d.conclude(A * (A + B), A * A + B * A)


def test_a_chapter_rerun_replaces_its_records(ledger_dir):
    Ledger("book/99_test").record("L5", evidence=("numeric",))
    Ledger("book/99_test")  # the chapter starts again and records nothing
    assert read_records() == {}


def test_unknown_claim_is_refused(ledger_dir):
    with pytest.raises(KeyError, match="'Z9' is not a claim"):
        Ledger("book/99_test").record("Z9", evidence=("numeric",))


@pytest.mark.parametrize("kwargs, message", [
    ({}, "nothing was derived or checked"),
    ({"evidence": ("vibes",)}, "drawn from"),
    ({"evidence": ("numeric",), "status": "probably"}, "status must be"),
    ({"evidence": ("numeric",), "status": NOT_VERIFIED}, "must say why"),
])
def test_malformed_records_are_refused(ledger_dir, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Ledger("book/99_test").record("Q1", **kwargs)


def test_a_failed_check_names_the_claim_and_the_number():
    tb = ClaimCheckFailed("Q1 failed: x")._render_traceback_()
    assert len(tb) == 1 and "Q1 failed: x" in tb[0]


def test_a_check_that_failed_is_never_recorded_as_verified(ledger_dir):
    book = Ledger("book/99_test", weights_note="modified weights: not GPT-2 small as released")
    v = _verdict(values=(0.1, 0.9, 0.1, 0.1))
    book.add_verdict(v, list(v.problems))
    rec = book.record("Q1")
    assert rec.status == lg.FAILED and "share = 0.1 on GPT-2" in rec.reason


def test_verdicts_on_other_weights_are_not_verified(ledger_dir):
    book = Ledger("book/99_test", weights_note="modified weights: not GPT-2 small as released")
    v = _verdict()
    book.add_verdict(v, [])
    assert book.record("Q1").status == lg.MODIFIED


def test_ledgers_share_no_state(ledger_dir):
    a, b = Ledger("book/98_a"), Ledger("book/99_b")
    a.add_failure("L5", "L5 failed: x")
    assert b.failures == {} and b.record("L5", evidence=("numeric",)).status == VERIFIED


def test_a_method_named_through_its_base_class_runs_as_the_expressions_own():
    n = sp.Symbol("n", integer=True, positive=True)
    i = sp.Symbol("i", integer=True)
    d = Derivation("S1")
    total = d.step("evaluate the sum", sp.Basic.doit, sp.Sum(1, (i, 1, n)))
    assert total == n and d.steps[0].operation == "doit"
