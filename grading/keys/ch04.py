"""Checkers for the exercises of chapter 04, the scale 1/sqrt(d_k)."""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from grading.registry import exercise

# the answers' symbols, as the forms read them: plain symbols of these names
D_K = sp.Symbol("d_k")
BETA = sp.Symbol("beta")
ZS = sp.symbols("z1:4")


@exercise("ex-s1-rademacher", difficulty="warm-up", minutes=10,
          reference=lambda: (sp.S.Zero, D_K),
          mistakes={"variance-squared": lambda: (sp.S.Zero, D_K**2)})
def _(answer: tuple[sp.Expr, sp.Expr]) -> str | None:
    mean, var = answer
    for d in (1, 2, 5, 64):
        if (m := mean.subs(D_K, d)) != 0:
            return f"the mean is not 0 for every d_k (at d_k = {d} it is {m})."
    for d in (1, 2, 5, 64):
        if sp.simplify(var.subs(D_K, d) - d) != 0:
            return (f"the variance is not right: at d_k = {d} your expression "
                    f"gives {var.subs(D_K, d)}.")
    return None


@functools.lru_cache(maxsize=1)
def _entropy_and_variance() -> tuple[sp.Expr, sp.Expr]:
    """H(beta) and Var_p(z) of softmax(beta z) for three logits."""
    partition = sum(sp.exp(BETA * v) for v in ZS)
    probs = [sp.exp(BETA * v) / partition for v in ZS]
    entropy = -sum(p * (BETA * v - sp.log(partition)) for p, v in zip(probs, ZS, strict=True))
    mean = sum(p * v for p, v in zip(probs, ZS, strict=True))
    return entropy, sum(p * v**2 for p, v in zip(probs, ZS, strict=True)) - mean**2


@exercise("ex-s4-monotone", difficulty="challenging", minutes=30,
          reference=lambda: -BETA * _entropy_and_variance()[1],
          mistakes={"unevaluated": lambda: sp.Derivative(_entropy_and_variance()[0], BETA),
                    "sign-flipped": lambda: BETA * _entropy_and_variance()[1],
                    "no-beta": lambda: -_entropy_and_variance()[1]})
def _(answer: sp.Expr) -> str | None:
    if answer.has(sp.Derivative):
        return "the expression still contains an unevaluated derivative."
    truth = sp.diff(_entropy_and_variance()[0], BETA)
    rng = np.random.default_rng(0)
    for _point in range(4):
        values = {BETA: float(rng.uniform(0.2, 2.0)), **{z: float(rng.normal()) for z in ZS}}
        mine = complex(answer.subs(values).evalf())
        true = float(truth.subs(values).evalf())
        # relative to dH/dbeta at this point (seeded draws, never 0); float64 evaluation
        if abs(mine.imag) > 1e-8 * abs(true) or abs(mine.real - true) > 1e-8 * abs(true):
            shown = ", ".join(f"{k} = {v:.2f}" for k, v in values.items())
            return (f"at {shown} your expression does not equal dH/dbeta "
                    f"(it gives {mine.real:.4f}).")
    return None


def _jacobian_norm(logits: np.ndarray) -> np.ndarray:
    from attention_book.gpt2 import softmax

    prob = softmax(logits)
    jac = prob[..., :, None] * np.eye(prob.shape[-1]) - prob[..., :, None] * prob[..., None, :]
    return np.linalg.norm(jac, axis=(-2, -1))


@functools.lru_cache(maxsize=1)
def _raw_logits() -> np.ndarray:
    """The chapter's simulation: 2000 rows of 20 unscaled scores of a 128-wide head."""
    rng = np.random.default_rng(3)
    return (rng.standard_normal((2000, 1, 128)) * rng.standard_normal((2000, 20, 128))).sum(-1)


@functools.lru_cache(maxsize=1)
def _share_left() -> float:
    raw = _raw_logits()
    return float(np.median(_jacobian_norm(raw)) / np.median(_jacobian_norm(raw / np.sqrt(128))))


@exercise("ex-s4-temperature", difficulty="standard", minutes=15, float32=True,
          reference=lambda: (float(_raw_logits().std()), _share_left()),
          mistakes={"variance-for-std": lambda: (float(_raw_logits().var()), _share_left()),
                    "scaled-logits": lambda: (float((_raw_logits() / np.sqrt(128)).std()),
                                              _share_left()),
                    "inverted-share": lambda: (float(_raw_logits().std()), 1 / _share_left())})
def _(answer: tuple[float, float]) -> str | None:
    std, left = answer
    if abs(std / np.sqrt(128) - 1) > 0.03:
        return (f"a logit standard deviation of {std:.3g} does not fit unit-variance "
                "components in a 128-wide head.")
    # the ratio of two medians over 2000 random rows: about 0.15, standard deviation
    # about 0.023 across seeds; 0.06..0.26 is about four of them either side
    if not 0.06 <= left <= 0.26:
        return (f"a share of {left:.3g} is outside what a 2000-row simulation of "
                "the scaled and unscaled heads gives.")
    return None
