"""Checkers for the exercises of chapter 04, the scale 1/sqrt(d_k)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from grading.registry import exercise


def _by_name(expr: object, values: dict[str, float]) -> sp.Expr:
    """``expr`` with its symbols replaced by value, matched by name (so the
    reader's own Symbol("d_k", ...) works whatever its assumptions)."""
    names = {name: sp.Symbol(name) for name in values}  # "beta" is not the function
    e = sp.sympify(expr, locals=names)
    unknown = {s.name for s in e.free_symbols} - set(values)
    if unknown:
        raise ValueError(f"it uses symbols other than {sorted(values)}: "
                         f"{sorted(unknown)}")
    return e.subs({s: values[s.name] for s in e.free_symbols})


# ex-s1-rademacher ---------------------------------------------------------

_D_K = sp.Symbol("d_k", integer=True, positive=True)


@exercise("ex-s1-rademacher", difficulty="warm-up", minutes=10,
          hint="A ±1 variable has mean 0 and E[x²] = 1; two different "
               "components are independent. Which moment table is that?",
          reference=lambda: (sp.S.Zero, _D_K),
          wrong=lambda: (sp.S.Zero, _D_K**2))
def _(answer) -> str | None:
    mean, var = answer
    for d in (1, 2, 5, 64):
        m = _by_name(mean, {"d_k": d})
        if m != 0:
            return f"the mean is not 0 for every d_k (at d_k = {d} it is {m})."
    for d in (1, 2, 5, 64):
        v = _by_name(var, {"d_k": d})
        if sp.simplify(v - d) != 0:
            return (f"the variance is not right: at d_k = {d} your expression "
                    f"gives {v}.")
    return None


# ex-s4-monotone -----------------------------------------------------------

def _entropy_slope() -> tuple[sp.Expr, sp.Expr]:
    """dH/dbeta computed by SymPy, and -beta Var_p(z), in beta, z1, z2, z3."""
    beta = sp.Symbol("beta", positive=True)
    zs = sp.symbols("z1:4", real=True)
    partition = sum(sp.exp(beta * v) for v in zs)
    probs = [sp.exp(beta * v) / partition for v in zs]
    entropy = -sum(p * (beta * v - sp.log(partition))
                   for p, v in zip(probs, zs, strict=True))
    mean = sum(p * v for p, v in zip(probs, zs, strict=True))
    var = sum(p * v**2 for p, v in zip(probs, zs, strict=True)) - mean**2
    return sp.diff(entropy, beta), -beta * var


@exercise("ex-s4-monotone", difficulty="challenging", minutes=30,
          hint="Differentiate log p_i = beta z_i - log sum_m exp(beta z_m); "
               "dp_i/dbeta is the S3 Jacobian applied to z.",
          reference=lambda: _entropy_slope()[1],
          wrong=lambda: -_entropy_slope()[1])
def _(answer) -> str | None:
    names = {name: sp.Symbol(name) for name in ("beta", "z1", "z2", "z3")}
    e = sp.sympify(answer, locals=names)
    if e.has(sp.Derivative):
        return "the expression still contains an unevaluated derivative."
    truth = _entropy_slope()[0]
    rng = np.random.default_rng(0)
    for _point in range(4):
        values = {"beta": float(rng.uniform(0.2, 2.0)),
                  **{f"z{i}": float(rng.normal()) for i in (1, 2, 3)}}
        mine = complex(_by_name(e, values).evalf())
        true = float(_by_name(truth, values).evalf())
        # relative to dH/dbeta at this point (seeded draws, never 0); float64 evaluation
        if abs(mine.imag) > 1e-8 * abs(true) or abs(mine.real - true) > 1e-8 * abs(true):
            shown = ", ".join(f"{k} = {v:.2f}" for k, v in values.items())
            return (f"at {shown} your expression does not equal dH/dbeta "
                    f"(it gives {mine.real:.4f}).")
    return None


# ex-s4-temperature --------------------------------------------------------

def _jacobian_norm(logits: np.ndarray) -> np.ndarray:
    from attention_book.gpt2 import softmax

    prob = softmax(logits)
    jac = prob[..., :, None] * np.eye(prob.shape[-1]) - prob[..., :, None] * prob[..., None, :]
    return np.linalg.norm(jac, axis=(-2, -1))


def _temperature_reference() -> tuple[float, float]:
    rng = np.random.default_rng(3)
    raw = (rng.standard_normal((2000, 1, 128))
           * rng.standard_normal((2000, 20, 128))).sum(-1)
    left = np.median(_jacobian_norm(raw)) / np.median(_jacobian_norm(raw / np.sqrt(128)))
    return float(raw.std()), float(left)


@exercise("ex-s4-temperature", difficulty="standard", minutes=15,
          hint="What variance does S1 give an unscaled score of a 128-wide head? For "
               "the share, compare how sensitive the softmax is on raw and on scaled rows.",
          reference=_temperature_reference, float32=True,
          wrong=lambda: (128.0, _temperature_reference()[1]))
def _(answer) -> str | None:
    std, left = (float(v) for v in answer)
    if abs(std / np.sqrt(128) - 1) > 0.03:
        return (f"a logit standard deviation of {std:.3g} does not fit unit-variance "
                "components in a 128-wide head.")
    # the ratio of two medians over 2000 random rows: about 0.15, standard deviation
    # about 0.023 across seeds; 0.06..0.26 is about four of them either side
    if not 0.06 <= left <= 0.26:
        return (f"a share of {left:.3g} is outside what a 2000-row simulation of "
                "the scaled and unscaled heads gives.")
    return None
