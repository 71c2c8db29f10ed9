"""The built book keeps the promise of its ledger: every derivation typeset and genuine or
cited-partial, every GPT-2 check of the kind its pattern over the controls shows, no SymPy
repr on any page."""

import re
from pathlib import Path

import pytest
import sympy as sp
from browsing import parse

from attention_book.derivation import DECORATIVE, GENUINE, PARTIAL
from attention_book.ledger import FAILED, read_derivations, read_records
from attention_book.subjects import GPT2_NAME, INIT, PERMUTED, REPARAM
from attention_book.verify import (
    FINDING,
    GENERIC,
    IDENTITY,
    KINDS,
    PARAMETRISATION,
    VALUES,
)

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("site")
# What SymPy's repr looks like: a derivation printed instead of typeset.
SYMPY_REPR = re.compile(
    r"\b(Sum|Product|MatrixSymbol|MatrixElement|KroneckerDelta|Piecewise|BlockMatrix|"
    r"ZeroMatrix|Identity|ImmutableDenseMatrix|Matrix|Symbol|Integer|Rational|Eq|Lambda|"
    r"FunctionMatrix|Transpose|Trace|Indexed|IndexedBase|Dummy|"
    r"Derivation|Record|Verdict|Result|Checkpoint)\("
    r"|\b_i_\d|\b\w+\.T\*|[A-Za-z_]\w*\*\*\w")


def test_no_output_shows_a_sympy_repr(doc):
    """Derivations are typeset, never printed."""
    printed = [line.strip()[:120] for block in doc.select(".cell_output pre, .cell_output code")
               for line in block.get_text().splitlines() if SYMPY_REPR.search(line)]
    assert not printed


def test_every_chapter_that_derives_shows_typeset_mathematics_in_its_outputs(site):
    chapters = {d["chapter"] for d in read_derivations().values()}
    assert len(chapters) >= 8, f"derivations recorded by only {sorted(chapters)}"
    bare = [c for c in sorted(chapters) if not any(
        out.select(".math") for out in parse(site / f"{c}.html").select(".cell_output"))]
    assert not bare, f"chapters that derive but show no typeset output: {bare}"


d, i = sp.symbols("d i", integer=True)


@pytest.mark.parametrize("expr", [
    sp.Sum(sp.MatrixSymbol("X", d, d)[i, sp.Idx("k")] * sp.MatrixSymbol("X", d, d)[
        sp.Idx("k"), i], (sp.Idx("k"), 0, d - 1)),
    sp.KroneckerDelta(i, d), sp.MatrixSymbol("X", d, d).T * sp.MatrixSymbol("X", d, d),
    d**2 + 1, sp.Matrix([[1, 2], [3, 4]]),
])
def test_printed_sympy_objects_are_caught(expr):
    assert SYMPY_REPR.search(str(expr)) or SYMPY_REPR.search(repr(expr)), str(expr)


@pytest.mark.parametrize("text", [
    "max |difference| = 4.3e-06", "rank of W_Q^h, all 144 heads: [64]",
    "layer 0, head 3: share 0.48 (median)", "q: hand vs transformers", "[[1. 2.]\n [3. 4.]]",
])
def test_ordinary_outputs_are_not(text):
    assert not SYMPY_REPR.search(text)


def test_no_derivation_is_decorative_and_every_partial_one_cites_its_theorem():
    derivations = read_derivations()
    assert derivations
    keys = set(re.findall(r"@\w+\{([^,]+),", (REPO / "references.bib").read_text()))
    for d in derivations.values():
        assert d["status"] in (GENUINE, PARTIAL), f"{d['claim']}: {d['status']}: {d}"
        assert d["status"] != DECORATIVE and d["sizes"] and d["conclusions"], d
        assert any(s["changed"] for s in d["steps"]), d
        if d["status"] == PARTIAL:
            assert len(d["theorem"].split()) >= 2 and "{cite}" not in d["theorem"], d
            assert d["cite"] and set(d["cite"].split(",")) <= keys, d


def _by_subject(check: dict, subject: str) -> list[bool]:
    return [ok for k, ok in check["passed"].items() if k.split(" / ")[0] == subject]


def test_every_check_obeys_the_rule_of_its_kind():
    checks = [(r.claim, c) for r in read_records().values() if r.status != FAILED
              for c in r.checks]
    assert checks, "no GPT-2 check in the ledger"
    assert {c["kind"] for _, c in checks} <= set(KINDS)
    assert {FINDING, IDENTITY} <= {c["kind"] for _, c in checks}
    for claim, c in checks:
        gpt2, reparam = _by_subject(c, GPT2_NAME), _by_subject(c, REPARAM)
        permuted, init = _by_subject(c, PERMUTED), _by_subject(c, INIT)
        assert gpt2 and all(gpt2), f"{claim}: failed on GPT-2: {c}"
        if c["rows_are_tokens"] or any(" / " in k for k in c["values"]):
            assert len(gpt2) == 3, f"{claim}: a check on rows ran on {len(gpt2)} input sets"
        if c["kind"] in (IDENTITY, GENERIC):
            assert all(reparam + permuted + init), f"{claim}: an {c['kind']} failed: {c}"
        if c["kind"] == GENERIC:
            assert c["exceptions"], f"{claim}: a generic property without exceptions: {c}"
        if c["kind"] == FINDING:
            assert all(reparam), f"{claim}: a finding changed under reparametrisation: {c}"
            assert not any(permuted + init), f"{claim}: a finding held on a control: {c}"
        if c["kind"] == VALUES:
            assert all(reparam + permuted) and not any(init), (claim, c)
        if c["kind"] == PARAMETRISATION:
            assert not all(reparam), (claim, c)
        for name, value in c["counterfactuals"].items():
            assert name and value is not None


def test_every_check_names_the_input_on_which_it_fails_and_fails_there():
    """Its counterfactuals, and the controls its kind's rule fails; each recorded failing."""
    from attention_book.verify import Verdict, expected_pass

    known = set(Verdict.__dataclass_fields__)
    for r in read_records().values():
        if r.status == FAILED:
            continue
        for c in r.checks:
            v = Verdict(**{k: x for k, x in c.items() if k in known})
            controls = [s for s in (REPARAM, PERMUTED, INIT) if expected_pass(v.kind, s) is False]
            assert controls or v.counterfactuals, f"{r.claim}: {v.quantity} names no failing input"
            for s in controls:
                assert not any(_by_subject(c, s)), f"{r.claim}: {v.quantity} passed on {s}"
            for name, passed in v.counterfactual_passed.items():
                assert not passed, f"{r.claim}: {v.quantity} passed on its counterfactual {name}"
            assert set(v.counterfactual_passed) == set(v.counterfactuals), (r.claim, v.quantity)


def test_every_check_is_on_the_ledger_page_with_its_kind_and_margin(site):
    page = "".join(parse(site / "book" / "claims_ledger.html").get_text(" ").split())
    for r in read_records().values():
        for c in r.checks:  # compared without whitespace: head names are links (the atlas)
            quantity = "".join(c["quantity"].split())
            kind = "".join(c["kind"].split())
            assert kind in page and quantity in page, (r.claim, c["quantity"])
            assert "".join(c["margin_text"].split()) in page, (r.claim, c["margin_text"])
