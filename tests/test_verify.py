"""The verification layer: kinds and their rules, thresholds and margins, counterfactuals,
and the controls (the reparametrisation computes GPT-2's function; the permutation keeps
every tensor's values)."""

import math

import numpy as np
import pytest

from attention_book.checks import ClaimCheckFailed
from attention_book.gpt2 import GPT2, attention
from attention_book.subjects import (
    COND,
    GPT2_NAME,
    INIT,
    PERMUTED,
    REPARAM,
    SUBJECTS,
    Case,
    _invertible,
    permute,
    position_sets,
    reparametrise,
)
from attention_book.verify import (
    FINDING,
    GENERIC,
    IDENTITY,
    PARAMETRISATION,
    VALUES,
    Check,
    above,
    below,
    evaluate,
    gamma,
    kind_problem,
    observed_kind,
)


def _passed(**by_subject):
    """A pattern of passes: subject -> bool, on two input sets."""
    names = {"gpt2": GPT2_NAME, "reparam": REPARAM, "permuted": PERMUTED, "init": INIT}
    return {f"{names[k]} / {s}": ok for k, ok in by_subject.items() for s in "ABC"}


@pytest.mark.parametrize("pattern, kind", [
    (dict(gpt2=True, reparam=True, permuted=True, init=True), IDENTITY),
    (dict(gpt2=True, reparam=True, permuted=False, init=False), FINDING),
    (dict(gpt2=True, reparam=True, permuted=True, init=False), VALUES),
    (dict(gpt2=True, reparam=False, permuted=False, init=False), PARAMETRISATION),
    (dict(gpt2=True, reparam=True, permuted=False, init=True), None),
    (dict(gpt2=False, reparam=True, permuted=True, init=True), None),
])
def test_the_pattern_over_the_controls_shows_the_kind(pattern, kind):
    assert observed_kind(_passed(**pattern)) == kind


def test_a_declared_kind_must_fit_the_pattern():
    scale_only = _passed(gpt2=True, reparam=True, permuted=True, init=False)
    assert kind_problem(VALUES, scale_only) == ""
    problem = kind_problem(FINDING, scale_only)
    assert "property of the trained values" in problem and "permuted / A passes" in problem
    assert kind_problem(GENERIC, _passed(gpt2=True, reparam=True, permuted=True,
                                         init=True)) == ""
    assert kind_problem(IDENTITY, scale_only)  # an identity may not fail anywhere


def test_a_finding_must_fail_on_every_input_set_of_the_controls():
    half = _passed(gpt2=True, reparam=True, permuted=False, init=False)
    half[f"{PERMUTED} / B"] = True
    assert observed_kind(half) is None


def test_a_generic_property_names_its_exceptions():
    with pytest.raises(ValueError, match="exceptions"):
        Check("Q4", "x", lambda c: 0.0, below(1, why="w"), GENERIC)


def test_margins_are_against_the_reach():
    share = above(0.25, lowest=0, highest=1, why="w")
    assert share.margin(0.75) == pytest.approx(0.5) and share.unit == "of the range"
    assert share.margin(0.0) == pytest.approx(-0.25)
    tol = below(1e-5, why="w", log=True)
    assert tol.margin(1e-7) == pytest.approx(2.0) and tol.unit == "orders of magnitude"
    assert not tol.passes(math.nan) and not share.passes(math.inf)


def test_gamma_is_highams_bound():
    u = np.finfo(np.float32).eps / 2
    assert gamma(768) == pytest.approx(768 * u / (1 - 768 * u))
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(768).astype(np.float32), rng.standard_normal(768).astype(
        np.float32)
    exact = float(np.dot(x.astype(np.float64), y.astype(np.float64)))
    assert abs(float(np.dot(x, y)) - exact) <= gamma(768) * float(np.abs(x * y).sum())


class _Model:
    """A stand-in with just what a measure reads."""

    def __init__(self, value):
        self.value = value


def _cases(values):
    return [Case(s, None, _Model(v)) for s, v in zip(SUBJECTS, values, strict=True)]


def test_evaluate_reports_a_gpt2_failure_and_a_kind_mismatch():
    check = Check("L2", "bias norm", lambda c: c.model.value, above(0.1, why="w"), FINDING)
    ok = evaluate(check, _cases([1.0, 1.0, 0.0, 0.0]))
    assert ok.problems == () and ok.gpt2_passes and ok.margin == pytest.approx(9.0)
    scale = evaluate(check, _cases([1.0, 1.0, 2.0, 0.0]))
    assert "property of the trained values" in scale.problems[0]
    failing = evaluate(check, _cases([0.0, 1.0, 0.0, 0.0]))
    assert "= 0 on GPT-2" in failing.problems[0]


def test_a_counterfactual_that_passes_is_a_problem():
    cf = {"biases dropped": lambda case: 0.0, "no change": lambda case: 1.0}
    check = Check("L2", "bias norm", lambda c: c.model.value, above(0.1, why="w"), FINDING,
                  counterfactuals=cf)
    v = evaluate(check, _cases([1.0, 1.0, 0.0, 0.0]))
    assert v.counterfactuals == {"biases dropped": 0.0, "no change": 1.0}
    assert len(v.problems) == 1 and "'no change' passes" in v.problems[0]


def test_checks_on_one_counterfactual_model_share_its_traces(gpt2):
    """A counterfactual model is one case per input set for every check that reads it:
    its layer traces are computed once, not once per check."""
    zeroed = gpt2.with_tensors({"h.0.attn.c_attn.bias": np.zeros_like(
        gpt2.tensors["h.0.attn.c_attn.bias"])})
    cases = [Case(GPT2_NAME, inputs, gpt2) for inputs in position_sets()]
    measured = []

    def score_size(case):
        measured.append(case)
        return float(np.abs(case.trace(0).scores).max())

    checks = [Check("L2", name, score_size, above(0.0, why="w"), IDENTITY,
                    counterfactuals={"no c_attn bias": zeroed}) for name in ("a", "b")]
    for check in checks:
        evaluate(check, cases)
    counterfactual = {id(c): c for c in measured if all(c is not g for g in cases)}
    assert len([c for c in measured if c.model is zeroed]) == 6  # 2 checks x 3 input sets
    assert len(counterfactual) == 3 and {c.inputs for c in counterfactual.values()} == \
        set(position_sets())


def test_the_chapter_stops_on_a_failed_check():
    from attention_book.verify import run

    check = Check("L2", "bias norm", lambda c: c.model.value, above(0.1, why="w"), FINDING)
    with pytest.raises(ClaimCheckFailed, match="L2 failed: bias norm = 0 on GPT-2"):
        run(check, _cases([0.0, 1.0, 0.0, 0.0]))
    v = run(check, _cases([0.0, 1.0, 0.0, 0.0]), weights_note="modified weights: x")
    assert v.problems  # other weights: returned and recorded, not raised


# ------------------------------------------------------------------ the controls

def test_invertible_matrices_are_not_orthogonal_and_well_conditioned():
    R = _invertible(np.random.default_rng(1), 64, 4.0)
    s = np.linalg.svd(R, compute_uv=False)
    assert s.max() / s.min() == pytest.approx(4.0)
    assert np.abs(R @ R.T - np.eye(64)).max() > 0.5


def test_position_sets_are_disjoint_and_seeded():
    a, b, c = position_sets()
    assert not set(a.positions) & set(b.positions) and not set(c.positions) & (
        set(a.positions) | set(b.positions))
    assert position_sets()[1].positions == b.positions
    assert a.positions == tuple(range(20)) and len(b.positions) == 20
    # set C: 20 consecutive positions far from the start of the context
    assert c.positions == tuple(range(c.positions[0], c.positions[0] + 20))
    assert c.positions[0] > 300


@pytest.fixture(scope="module")
def gpt2(checkpoint):
    return GPT2(checkpoint.tensors)


def test_the_reparametrised_model_computes_gpt2s_function(gpt2):
    """Scores and head writes unchanged within float32 error, every layer, both input
    sets; the matrices themselves changed."""
    cfg = gpt2.config
    other = GPT2(reparametrise(gpt2.tensors, cfg.n_layer, cfg.n_head, seed=3), cfg)
    for inputs in position_sets():
        x = inputs.rows(gpt2)
        for layer in range(cfg.n_layer):
            a = attention(gpt2.layers[layer], x)
            b = attention(other.layers[layer], x)
            # sums of 768 then 64 float32 terms; cond(R), cond(S) <= 4 amplify them
            bound = COND * gamma(768 + 64)
            assert np.abs(a.scores - b.scores).max() <= bound * np.abs(a.scores).max()
            assert (np.abs(a.head_writes - b.head_writes).max()
                    <= bound * np.abs(a.head_writes).max())
    assert np.abs(other.layers[0].W_Q - gpt2.layers[0].W_Q).max() > 0.1


def test_the_permuted_model_keeps_every_matrixs_values(gpt2):
    """Each of W_Q, W_K, W_V (the thirds of c_attn), their biases, W_O and every other
    tensor keeps its own values, shuffled."""
    names = ["h.0.attn.c_attn.weight", "h.0.attn.c_attn.bias", "wpe.weight",
             "h.3.ln_1.weight"]
    small = {n: np.asarray(gpt2.tensors[n]) for n in names}
    shuffled = permute(small, seed=0)
    for n in names:
        parts = 3 if "c_attn" in n else 1
        for a, b in zip(np.split(shuffled[n], parts, axis=-1), np.split(small[n], parts,
                                                                      axis=-1), strict=True):
            assert np.array_equal(np.sort(a, axis=None), np.sort(b, axis=None))
            assert not np.array_equal(a, b)
    assert np.array_equal(permute(small, seed=0)["wpe.weight"], shuffled["wpe.weight"])


def test_the_permuted_control_commutes_with_rescaling_one_matrix(gpt2):
    """Shuffling W_V then scaling it is scaling then shuffling: the control does not
    depend on which of the reparametrisations the book uses was applied first."""
    name = "h.2.attn.c_attn.weight"
    w = np.asarray(gpt2.tensors[name]).copy()
    scaled = w.copy()
    scaled[:, 1536:] *= 4.0
    a = permute({name: w})[name]
    a[:, 1536:] *= 4.0
    assert np.array_equal(a, permute({name: scaled})[name])


def test_the_build_refuses_a_reparametrisation_that_changes_the_function(gpt2):
    from attention_book.subjects import function_tolerance, same_function

    cfg = gpt2.config
    x = position_sets()[0].rows(gpt2)
    good = GPT2(reparametrise(gpt2.tensors, cfg.n_layer, cfg.n_head, seed=5), cfg)
    assert same_function(gpt2, good, x) <= function_tolerance(cfg)
    bad = dict(good.tensors)
    bad["h.4.attn.c_proj.weight"] = np.asarray(gpt2.tensors["h.4.attn.c_proj.weight"])
    assert same_function(gpt2, GPT2(bad, cfg), x) > 100 * function_tolerance(cfg)


# ------------------------------------------------------------------ what a check must be


@pytest.mark.parametrize("threshold", [
    dict(op=below, value=1, lowest=0, highest=1, strict=False),   # "<= 1" of a share
    dict(op=above, value=0, lowest=0, highest=1, strict=False),   # ">= 0" of a norm
    dict(op=below, value=0.6, lowest=0, highest=0.5, strict=True),  # past the reach
    dict(op=above, value=2, lowest=0, highest=1, strict=True),     # never passes
])
def test_a_threshold_at_the_edge_of_the_reach_is_refused(threshold):
    op = threshold.pop("op")
    with pytest.raises(ValueError, match="not a threshold"):
        op(threshold.pop("value"), why="w", **threshold)


def test_an_identity_or_generic_check_names_its_failing_input():
    with pytest.raises(ValueError, match="names the input on which it fails"):
        Check("L1", "x", lambda c: 0.0, below(1, why="w"), IDENTITY)
    check = Check("L2", "bias norm", lambda c: c.model.value, above(0.1, why="w"), FINDING)
    assert check.failing_inputs == (PERMUTED, INIT)


def test_a_measure_that_stops_is_a_failed_check_with_what_happened():
    def rank(case):
        if case.model.value == 0:
            raise np.linalg.LinAlgError("Singular matrix")
        return case.model.value

    check = Check("L2", "rank", rank, above(0.1, why="w"), FINDING)
    v = evaluate(check, _cases([0.0, 1.0, 0.0, 0.0]))
    assert math.isnan(v.values[GPT2_NAME]) and "LinAlgError: Singular matrix" in \
        v.errors[GPT2_NAME]
    assert any("Singular matrix" in p for p in v.problems)
    nan = evaluate(Check("S4", "entropy", lambda c: math.nan, above(0.1, why="w"), FINDING),
                   _cases([1.0, 1.0, 0.0, 0.0]))
    assert "not a finite number" in nan.errors[GPT2_NAME] and nan.problems


def test_the_verdict_line_reads_an_expected_failure_as_expected():
    from attention_book.verdict_view import html, line

    check = Check("L2", "bias norm", lambda c: c.model.value, above(0.1, why="w"), FINDING,
                  counterfactuals={"biases dropped": lambda case: 0.0})
    v = evaluate(check, _cases([1.0, 1.0, 0.0, 0.0]))
    assert "as it must" in line(v) and "verdict-pass" in line(v)
    page = html([v])
    assert page.count('class="v expected"') == 3  # permuted, random init, counterfactual
    assert 'class="v fail"' not in page
    broken = evaluate(check, _cases([1.0, 1.0, 1.0, 0.0]))  # passes on permuted: not a finding
    assert "verdict-fail" in line(broken) and 'class="v fail"' not in html([broken])
