"""Derivations: recorded from what SymPy does, classified by it, shown as one chain."""

import pytest
import sympy as sp

from attention_book.checks import ClaimCheckFailed
from attention_book.derivation import DECORATIVE, GENUINE, PARTIAL, Derivation, _sizes

n, d_k = sp.symbols("n d_k", integer=True, positive=True)
i, j, r, c = sp.symbols("i j r c", integer=True, nonnegative=True)
x = sp.Symbol("x")


def derivation(claim: str = "Q1") -> tuple[Derivation, list[str]]:
    shown: list[str] = []
    return Derivation(claim, display=shown.append), shown


def test_sizes_are_shapes_and_limits_not_indices():
    X = sp.MatrixSymbol("X", n, d_k)
    a = sp.IndexedBase("a")
    assert _sizes(X[i, j]) == {"n", "d_k"}
    assert _sizes(sp.Sum(a[i] * a[j], (i, 0, n - 1))) == {"n"}
    assert _sizes(a[i] * a[j] + i * r) == set()          # indices only: no size
    assert _sizes(sp.KroneckerDelta(i, j, (0, n - 1))) == {"n"}


def test_status_comes_from_what_sympy_did():
    typed, _ = derivation()
    with typed:
        typed.conclude(typed.start(x).simplify(), x)     # no step changed anything
    assert typed.status == DECORATIVE
    fixed, _ = derivation()
    with fixed:
        fixed.conclude(fixed.start((x + 1) ** 2).expand(), x**2 + 2 * x + 1)
    assert fixed.status == DECORATIVE                    # no size is symbolic
    indices, _ = derivation()
    with indices:                                        # i, r are indices, not sizes
        indices.conclude(indices.start((x + i * r) ** 2).expand(),
                         x**2 + 2 * i * r * x + i**2 * r**2)
    assert indices.status == DECORATIVE
    a = sp.IndexedBase("a")
    general, _ = derivation()
    with general:
        total = general.start(sp.Sum(a[i] * (a[i] + 1), (i, 0, n - 1))).expand()
        general.conclude(total, sp.Sum(a[i] ** 2 + a[i], (i, 0, n - 1)))
    assert general.status == GENUINE and general.sizes == {"n"}
    general.rests_on("Sylvester's law of inertia", cite="horn2013matrix")
    assert general.status == PARTIAL
    for no_citation in ("", (), ("horn2013matrix", " ")):
        with pytest.raises(ValueError, match="names its theorem and a citation"):
            general.rests_on("Sylvester's law of inertia", cite=no_citation)
    with pytest.raises(ClaimCheckFailed, match="SymPy does not confirm"):
        general.conclude(total, sp.Sum(a[i] ** 2, (i, 0, n - 1)))


def test_the_chain_is_one_aligned_display_of_named_steps_with_no_x_equals_x():
    X, W = sp.MatrixSymbol("X", n, d_k), sp.MatrixSymbol("W", d_k, d_k)
    d, shown = derivation("L1")
    with d:
        grad = d.start((X * W)[i, c], "(XW)_{ic}").diff(X[j, r]).doit()
        unchanged = grad.doit()                              # changes nothing: not shown
        d.conclude(unchanged, sp.KroneckerDelta(i, j, (0, n - 1)) * W[r, c])
    assert len(shown) == 1 and shown[0].startswith(r"\begin{aligned}")
    lines = shown[0].removeprefix(r"\begin{aligned}").removesuffix(r"\end{aligned}")
    lines = lines.split(r" \\ ")
    notes = [ln for ln in lines if "color" in ln]
    assert any(r"\mathtt{diff}" in ln for ln in notes) and any(r"\mathtt{doit}" in ln
                                                               for ln in notes)
    steps = [ln for ln in lines if "color" not in ln]
    assert len(steps) == 3                                   # define, diff, doit
    for ln in steps:
        lhs, _, rhs = ln.partition("&=")
        assert lhs.strip() != rhs.replace(r"\qquad\blacksquare", "").strip()
    assert steps[-1].endswith(r"\qquad\blacksquare")
    assert [s.operation for s in d.steps] == ["diff", "doit", "doit"]
    assert [s.changed for s in d.steps] == [True, True, False]


def test_a_step_the_reader_folds_hands_its_left_side_to_the_next():
    d, shown = derivation("S1")
    with d:
        total = d.start(sp.Sum(x, (i, 0, n - 1)), "s").subs(x, 1, show=False).doit()
        d.conclude(total, n)
    steps = [ln for ln in shown[0].split(r" \\ ") if "color" not in ln]
    assert len(steps) == 2 and r"\right|" in steps[1] and "= n" in steps[1]


def test_a_function_of_the_books_own_is_applied_with_by():
    d, _ = derivation()
    with d:
        out = d.start(sp.Sum(x, (i, 0, n - 1))).by(lambda e: e.doit(), why="sum",
                                                    equal=True)
        d.conclude(out, n * x)
    assert d.status == GENUINE and d.steps[0].name == "sum"


def test_the_record_reaches_the_ledger_when_the_block_ends():
    records = []
    d = Derivation("Q1", on_done=records.append, display=lambda latex: None)
    with d:
        d.conclude(d.start(sp.Sum(x, (i, 0, n - 1))).doit(), n * x)
    assert records == [d] and d.as_record()["status"] == GENUINE
    assert "rows" not in d.as_record()


def test_a_substitution_into_a_matrix_expression_is_a_step_without_a_name():
    A = sp.MatrixSymbol("A", d_k, d_k)
    d, shown = derivation("C1")
    with d:
        at_identity = d.start(sp.Determinant(A)).subs({A: sp.Identity(d_k)}).doit()
        d.conclude(at_identity, 1)
    assert d.steps[0].operation == "subs" and r"\longrightarrow" in shown[0]


def test_a_strict_sign_is_decided_strictly():
    m = sp.Symbol("m", positive=True, integer=True)
    strict, _ = derivation()
    with strict:
        strict.conclude(strict.start(n * m).expand(), relation="> 0")
        strict.conclude(strict.start(n - 1).expand(), relation=">= 0")
    assert strict.conclusions == ["m n > 0", r"n - 1 \ge 0"]
    with pytest.raises(ClaimCheckFailed, match="SymPy does not confirm"):
        strict.conclude(strict.start(n - 1).expand(), relation="> 0")  # 0 when n = 1


def test_a_constant_factor_inside_a_sum_is_settled_without_simplify(monkeypatch):
    from attention_book.derivation import _reduce

    X, W = sp.IndexedBase("X"), sp.IndexedBase("W")
    r, d = sp.symbols("r d", integer=True, positive=True)
    gap = (sp.Sum(W[r] * X[r] * X[0], (r, 0, d - 1))
           - X[0] * sp.Sum(W[r] * X[r], (r, 0, d - 1)))
    assert sp.expand(gap) != 0  # expanding alone leaves X[0] inside the first sum
    monkeypatch.setattr(sp, "simplify", lambda *_: pytest.fail("simplify was called"))
    assert _reduce(gap) == 0
    monkeypatch.undo()
    assert _reduce(gap + 1) != 0
