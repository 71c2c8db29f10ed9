"""One verification layer: a check is declared once; this module does the rest.

A ``Check`` holds the claim, the quantity (a function of one ``Case``: a model and, for
checks that read rows, an input set), the threshold with the range the quantity can reach,
and the kind. ``run`` measures it on GPT-2 and on every control over every input set,
applies the kind's rule and returns a ``Verdict`` that renders as one compact table.

Kinds, and the rule each must satisfy (``subjects`` names the controls):

- ``IDENTITY`` holds for any weights: it passes on every subject.
- ``GENERIC`` holds for almost all weights: it passes on every subject, and the check
  names the exceptions (``exceptions=...``), the measure-zero sets where it fails.
- ``FINDING`` is a fact about the trained model's function: it passes on GPT-2 and on the
  reparametrised model on every input set, and fails on the permuted and the random-init
  models.
- ``VALUES`` is a property of the trained weights' values, not their arrangement: it
  passes on GPT-2, on its reparametrisation and on its permuted values, and fails on the
  random initialisation (a property of the trained weights' scale or distribution).
- ``PARAMETRISATION`` is a property of this parametrisation: it passes on GPT-2 and fails
  on a reparametrisation that computes the same function.

A check whose observed pattern contradicts its declared kind stops with a message that
says what the pattern means. Counterfactuals (``counterfactuals={name: model}``) are
models on which the claim must fail: the same measure and threshold, asserted to fail.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from .checks import ClaimCheckFailed, num
from .gpt2 import GPT2
from .subjects import GPT2_NAME, INIT, PERMUTED, REPARAM, SUBJECTS, Case, InputSet

IDENTITY, GENERIC, FINDING = "identity", "generic", "finding"
VALUES, PARAMETRISATION = "property of the trained values", "property of this parametrisation"
KINDS = (IDENTITY, GENERIC, FINDING, VALUES, PARAMETRISATION)
EPS32 = float(np.finfo(np.float32).eps) / 2  # unit roundoff u of float32


def gamma(n: int, u: float = EPS32) -> float:
    """Higham's gamma_n = n u / (1 - n u): |fl(x . y) - x . y| <= gamma_n sum |x_i y_i|
    for a dot product of n terms (Higham, Accuracy and Stability, Thm 3.1)."""
    return n * u / (1 - n * u)


@dataclass(frozen=True)
class Threshold:
    """``quantity <op> value``, with the range the quantity can reach and why."""

    op: str          # "<", "<=", ">", ">=" or "=="
    value: float
    lowest: float    # the quantity's mathematical limits
    highest: float
    why: str
    log: bool = False  # margins in orders of magnitude (tolerances, ratios)

    def __post_init__(self) -> None:
        if self.op not in ("<", "<=", ">", ">=", "=="):
            raise ValueError(f"a threshold's operator is <, <=, >, >= or ==, not {self.op!r}")
        if not self.lowest <= self.highest:
            raise ValueError(f"the reach [{self.lowest}, {self.highest}] is empty")
        if (edge := self._edge()):
            raise ValueError(f"'{self.op} {self.value:g}' with the reach [{self.lowest:g}, "
                             f"{self.highest:g}] {edge}: it is not a threshold")

    def _edge(self) -> str:
        """Why the threshold sits at (or past) the edge of the reach, or ''."""
        lo, hi, v = self.lowest, self.highest, self.value
        always = {"<": v > hi, "<=": v >= hi, ">": v < lo, ">=": v <= lo, "==": False}
        never = {"<": v <= lo, "<=": v < lo, ">": v >= hi, ">=": v > hi,
                 "==": not lo <= v <= hi}
        if always[self.op]:
            return "passes for every value the quantity can take"
        return "fails for every value the quantity can take" if never[self.op] else ""

    def passes(self, x: float) -> bool:
        if not math.isfinite(x):
            return False
        return {"<": x < self.value, "<=": x <= self.value, ">": x > self.value,
                ">=": x >= self.value, "==": x == self.value}[self.op]

    def margin(self, x: float) -> float:
        """How far x is on the passing side of the threshold (negative: failing side), in
        ``unit``: orders of magnitude (``log``), a share of the reachable range when it is
        finite, else a share of the threshold itself."""
        if self.op == "==":
            return 0.0 if x == self.value else -math.inf
        sign = 1 if self.op in (">", ">=") else -1
        if self.log:
            tiny = 1e-300
            return sign * (math.log10(max(abs(x), tiny)) - math.log10(max(abs(self.value),
                                                                          tiny)))
        return sign * (x - self.value) / self._scale

    @property
    def _scale(self) -> float:
        span = self.highest - self.lowest
        return span if math.isfinite(span) and span > 0 else max(abs(self.value), 1e-300)

    @property
    def unit(self) -> str:
        if self.op == "==":
            return "exact"
        if self.log:
            return "orders of magnitude"
        finite = math.isfinite(self.highest - self.lowest) and self.highest > self.lowest
        return "of the range" if finite else "of the threshold"

    def margin_text(self, margin: float) -> str:
        if self.op == "==":
            return "exact" if margin == 0 else "off"
        if self.log and margin > 30:  # the value is 0 (or within 1e-30 of it): exact
            return "exact (0)"
        if self.log:
            return f"{margin:+.1f} orders of magnitude"
        return f"{margin:+.0%} {self.unit}"

    @property
    def text(self) -> str:
        return f"{self.op} {num(self.value)}"

    @property
    def reach(self) -> str:
        return f"[{num(self.lowest)}, {num(self.highest)}]"


def below(value: float, *, lowest: float = 0.0, highest: float = math.inf, why: str,
          log: bool = False, strict: bool = True) -> Threshold:
    return Threshold("<" if strict else "<=", float(value), lowest, highest, why, log)


def above(value: float, *, lowest: float = 0.0, highest: float = math.inf, why: str,
          log: bool = False, strict: bool = True) -> Threshold:
    return Threshold(">" if strict else ">=", float(value), lowest, highest, why, log)


def equals(value: float, *, lowest: float, highest: float, why: str) -> Threshold:
    return Threshold("==", float(value), lowest, highest, why)


@dataclass(frozen=True)
class Check:
    """One check, declared once: what is measured, the threshold, the kind."""

    claim: str
    quantity: str
    measure: Callable[[Case], float]
    threshold: Threshold
    kind: str
    rows: bool = False  # True: the measure reads input rows, so it runs on every input set
    exceptions: str = ""  # GENERIC: the weights where it fails
    # name -> a model on which the claim must fail, or a measure of the same quantity
    # under the counterfactual (a function of GPT-2's case)
    counterfactuals: Mapping[str, GPT2 | Callable[[Case], float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.claim}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == GENERIC and not self.exceptions:
            raise ValueError(f"{self.claim}: a generic property names its exceptions")
        if self.kind in (IDENTITY, GENERIC) and not self.counterfactuals:
            raise ValueError(f"{self.claim}, {self.quantity}: an {self.kind} passes on every "
                             "control, so it names the input on which it fails: a "
                             "counterfactual (a broken hypothesis or a broken computation)")

    @property
    def failing_inputs(self) -> tuple[str, ...]:
        """The inputs on which this check must fail: its counterfactuals and the controls
        its kind's rule fails."""
        return tuple(s for s in SUBJECTS if expected_pass(self.kind, s) is False) + \
            tuple(self.counterfactuals)


@dataclass(frozen=True)
class Verdict:
    """A check's values on every case and counterfactual, and what they show."""

    claim: str
    kind: str
    quantity: str
    threshold: str
    reach: str
    why: str
    exceptions: str
    values: dict[str, float]       # "<subject>" or "<subject> / <input set>" -> value
    passed: dict[str, bool]
    margin: float                  # GPT-2's smallest margin over its input sets
    margin_text: str               # the margin with its unit
    counterfactuals: dict[str, float]
    rows_are_tokens: bool = False  # the input sets were token rows (else position rows)
    problems: tuple[str, ...] = ()  # non-empty: the check failed (on other weights)
    errors: dict[str, str] = field(default_factory=dict)  # key -> what stopped the measure
    counterfactual_passed: dict[str, bool] = field(default_factory=dict)

    @property
    def gpt2_passes(self) -> bool:
        return all(ok for k, ok in self.passed.items() if k.split(" / ")[0] == GPT2_NAME)

    def expected(self, key: str) -> bool | None:
        """Whether the kind's rule wants this subject (or counterfactual) to pass."""
        subject = key.split(" / ")[0]
        return expected_pass(self.kind, subject) if subject in SUBJECTS else False

    @property
    def failing_inputs(self) -> dict[str, float]:
        """Where the check fails as it must: the controls its kind fails (their value
        closest to passing) and the counterfactuals."""
        out = {}
        for s in SUBJECTS:
            keys = [k for k in self.values if k.split(" / ")[0] == s]
            if expected_pass(self.kind, s) is False and keys:
                out[s] = self.values[max(keys, key=lambda k: self.values[k])
                                     if self.threshold.startswith(">") else
                                     min(keys, key=lambda k: self.values[k])]
        return out | self.counterfactuals


def expected_pass(kind: str, subject: str) -> bool | None:
    """What the rule of ``kind`` wants of ``subject``: pass, fail, or None (either)."""
    if kind in (IDENTITY, GENERIC):
        return True
    rule = {FINDING: (True, True, False, False), VALUES: (True, True, True, False),
            PARAMETRISATION: (True, False, None, None)}[kind]
    return dict(zip(SUBJECTS, rule, strict=True))[subject]


def _cell(value: float, ok: bool) -> str:
    return f"{num(value)} {'✓' if ok else '✗'}"


def subject_cell(values: dict[str, float], passed: dict[str, bool], subject: str) -> str:
    """A subject's value, or its values on the input sets: "0.17 ✓ / 0.11 ✓ / 0.2 ✓"."""
    keys = [k for k in values if k.split(" / ")[0] == subject]
    return " / ".join(_cell(values[k], passed[k]) for k in keys)


# ------------------------------------------------------------------ the rules of the kinds

def observed_kind(passed: dict[str, bool]) -> str | None:
    """The kind a pattern of passes shows (None: no kind; IDENTITY also covers GENERIC)."""
    by = {s: all(ok for k, ok in passed.items() if k.split(" / ")[0] == s) for s in SUBJECTS}
    fails = {s: not any(ok for k, ok in passed.items() if k.split(" / ")[0] == s)
             for s in SUBJECTS}
    if not by[GPT2_NAME]:
        return None
    if all(by.values()):
        return IDENTITY
    if not by[REPARAM]:
        return PARAMETRISATION
    if fails[PERMUTED] and fails[INIT]:
        return FINDING
    if by[PERMUTED] and fails[INIT]:
        return VALUES
    return None


_MEANS = {
    IDENTITY: "it passes on every control, so it holds for any weights (identity or generic)",
    FINDING: "it separates trained GPT-2 from its permuted values and from the random init, "
             "and survives the reparametrisation: a finding",
    VALUES: "it passes on GPT-2's values shuffled and fails only on the random init: a "
            "property of the trained values (their scale), not of their arrangement",
    PARAMETRISATION: "it fails on a reparametrisation that computes the same function: a "
                     "property of this parametrisation, not of the model",
    None: "its pattern over the controls fits no kind",
}


def kind_problem(kind: str, passed: dict[str, bool]) -> str:
    """'' when the pattern fits the declared kind, else what the pattern shows instead."""
    seen = observed_kind(passed)
    declared = IDENTITY if kind == GENERIC else kind
    if seen == declared:
        return ""
    shown = ", ".join(f"{k} {'passes' if ok else 'fails'}" for k, ok in passed.items())
    return f"declared a {kind}, but {_MEANS[seen]} ({shown})"


# ------------------------------------------------------------------ measuring

def _key(case: Case) -> str:
    return case.subject if case.inputs is None else f"{case.subject} / {case.inputs.name}"


def _measured(measure: Callable[[Case], float], case: Case) -> tuple[float, str]:
    """The measure's value, or NaN and what went wrong: on weights that are not GPT-2 a
    rank-deficient matrix, an underflow or a NaN is a failed check, never a stopped
    chapter."""
    try:
        with np.errstate(all="ignore"):
            x = float(measure(case))
    except (ArithmeticError, ValueError, np.linalg.LinAlgError, IndexError) as e:
        return math.nan, f"the measure stopped: {type(e).__name__}: {e}"
    return x, "" if math.isfinite(x) else f"the measure is {x} (not a finite number)"


def evaluate(check: Check, cases: list[Case]) -> Verdict:
    """Measure on every case and counterfactual; the verdict, with the problems found."""
    values, errors = {}, {}
    for c in cases:
        values[_key(c)], error = _measured(check.measure, c)
        if error:
            errors[_key(c)] = error
    passed = {k: check.threshold.passes(x) for k, x in values.items()}
    gpt2 = [k for k in values if k.split(" / ")[0] == GPT2_NAME]
    margin = min(check.threshold.margin(values[k]) if math.isfinite(values[k]) else -math.inf
                 for k in gpt2)
    cf_values = _counterfactual_values(check, [c for c in cases if c.subject == GPT2_NAME],
                                       errors)
    problems = _problems(check, values, passed, gpt2, cf_values, errors)
    tokens = any(c.inputs is not None and c.inputs.are_tokens for c in cases)
    return Verdict(check.claim, check.kind, check.quantity, check.threshold.text,
                   check.threshold.reach, check.threshold.why, check.exceptions, values,
                   passed, margin, check.threshold.margin_text(margin), cf_values, tokens,
                   tuple(problems), errors,
                   {n: check.threshold.passes(x) for n, x in cf_values.items()})


def _counterfactual_values(check: Check, gpt2_cases: list[Case],
                           errors: dict[str, str]) -> dict[str, float]:
    out = {}
    for name, cf in check.counterfactuals.items():
        xs = []
        for c in gpt2_cases:
            case = counterfactual_case(name, c.inputs, cf) if isinstance(cf, GPT2) else c
            x, error = _measured(check.measure if isinstance(cf, GPT2) else cf, case)
            if error:  # a counterfactual that cannot even be measured has not failed
                errors[name] = error
            xs.append(x)
        out[name] = _worst_for_failure(check, xs)
    return out


def _problems(check: Check, values: dict[str, float], passed: dict[str, bool],
              gpt2: list[str], cf_values: dict[str, float],
              errors: dict[str, str]) -> list[str]:
    problems = [f"on {key} {e}" for key, e in errors.items() if key in values]
    failing = [k for k in gpt2 if not passed[k]]
    if failing:
        problems.append(f"{check.quantity} = " + ", ".join(f"{num(values[k])} on {k}"
                                                           for k in failing) +
                        f", expected {check.threshold.text}")
    elif (why := kind_problem(check.kind, passed)):
        problems.append(why)
    for name, x in cf_values.items():
        if name in errors:
            problems.append(f"the counterfactual '{name}' could not be measured "
                            f"({errors[name]}), so it shows nothing")
        elif check.threshold.passes(x):
            problems.append(f"the counterfactual '{name}' passes ({check.quantity} = {num(x)}, "
                            f"{check.threshold.text}), so the check cannot tell it apart")
    return problems


def counterfactual_case(name: str, inputs: InputSet | None, model: GPT2) -> Case:
    """A counterfactual model on one input set, as a case built once per model, name and
    input set: the checks that read the same counterfactual share its traces."""
    return model.memo(("counterfactual case", name, inputs), lambda m: Case(name, inputs, m))


def _worst_for_failure(check: Check, xs: list[float]) -> float:
    """The counterfactual value closest to passing (it must fail on every input set)."""
    finite = [x for x in xs if math.isfinite(x)]
    return max(finite, key=check.threshold.margin) if len(finite) == len(xs) else math.nan


def run(check: Check, cases: list[Case], weights_note: str = "") -> Verdict:
    """Evaluate; stop with ClaimCheckFailed on a problem, unless the weights are not GPT-2
    small as released (``weights_note``), where a failure is information: the verdict is
    returned with it and the ledger records the claim as failed."""
    verdict = evaluate(check, cases)
    if verdict.problems:
        message = f"{check.claim} failed: " + "; ".join(verdict.problems)
        if not weights_note:
            raise ClaimCheckFailed(message)
        loaded = [p.replace(f"on {GPT2_NAME}", "on the loaded weights")
                  for p in verdict.problems]  # the ledger's reason names them alike
        verdict = replace(verdict, problems=tuple(loaded))
        print(f"[{weights_note.split(':')[0]}] {check.claim} failed: " + "; ".join(loaded))
    return verdict
