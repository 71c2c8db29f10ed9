"""Expectations of dot products of random vectors, from a table of moments (chapter 04).

The hypotheses about the components of q and k are a *moment table*: the mean E[x_a] and
the second moment E[x_a x_b] of one vector's components, as SymPy expressions of the
indices. Expectations stay unevaluated (``E``) until the rules are applied, each one a
step a derivation can name:

- ``linearity``: E of a polynomial in sums over the components becomes a sum, over the
  index tuples, of E(q factors) E(k factors) (E is linear; q is independent of k);
- ``moments``: each E(...) of one vector's components becomes the table's value.

SymPy then performs the sums over the d_k indices (``doit``), the step that carries
the variance (tests/test_moments.py).
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

E = sp.Function(r"\mathbb{E}")  # an expectation, unevaluated
q, k = sp.IndexedBase("q"), sp.IndexedBase("k")
INDICES = sp.symbols("a b", integer=True, positive=True)

MomentTable = dict[int, Callable[..., sp.Expr]]


def moment_table(mean: sp.Expr, var: sp.Expr, corr: sp.Expr, size: sp.Expr
                 ) -> MomentTable:
    """E[x_a] = mean and
    E[x_a x_b] = mean^2 + var (delta_ab + corr (1 - delta_ab))
    for the components x_1 .. x_size of one vector (corr: between two
    components)."""
    def delta(i: sp.Expr, j: sp.Expr) -> sp.Expr:
        return sp.KroneckerDelta(i, j, (1, size))

    def second(i: sp.Expr, j: sp.Expr) -> sp.Expr:
        return mean**2 + var * (delta(i, j) + corr * (1 - delta(i, j)))

    return {1: lambda i: sp.sympify(mean), 2: second}


def linearity(expr: sp.Expr) -> sp.Expr:
    """Every E(c * sum^p) in ``expr`` (sums over the components of q and k, p = 1 or 2)
    as c times a sum over fresh indices of E(q factors) E(k factors)."""
    return expr.replace(lambda e: isinstance(e, sp.Function) and e.func == E,
                        lambda e: _split(e.args[0]))


def _split(arg: sp.Expr) -> sp.Expr:
    coeff, sums = sp.S.One, []
    for factor in sp.Mul.make_args(arg):
        base, power = factor.as_base_exp()
        if isinstance(base, sp.Sum) and power.is_Integer and power > 0:
            sums += [base] * int(power)
        else:
            coeff *= factor
    if len(sums) > len(INDICES):
        raise ValueError(f"linearity handles at most {len(INDICES)} sums in a product, "
                         f"got {len(sums)} in {arg}")
    summand, limits = sp.S.One, []
    for s, index in zip(sums, INDICES, strict=False):
        if len(s.limits) != 1:
            raise ValueError(f"linearity expects single sums, got {s}")
        (var, lo, hi), = s.limits
        summand *= s.function.subs(var, index)
        limits.append((index, lo, hi))
    parts = sp.Add.make_args(sp.expand(summand))
    return coeff * sp.Sum(sp.Add(*(_factorised(t) for t in parts)), *limits)


def _factorised(term: sp.Expr) -> sp.Expr:
    """A product of q's and k's as E(q factors) E(k factors), constants outside."""
    coeff, of = sp.S.One, {q: sp.S.One, k: sp.S.One}
    for factor in sp.Mul.make_args(term):
        base, _ = factor.as_base_exp()
        if isinstance(base, sp.Indexed) and base.base in of:
            of[base.base] *= factor
        else:
            coeff *= factor
    return coeff * E(of[q]) * E(of[k])


def moments(expr: sp.Expr, table: MomentTable) -> sp.Expr:
    """Every E(product of one vector's components) in ``expr`` as the table's value."""
    return expr.replace(lambda e: isinstance(e, sp.Function) and e.func == E,
                        lambda e: _moment(e.args[0], table))


def _moment(arg: sp.Expr, table: MomentTable) -> sp.Expr:
    indices = []
    for factor in sp.Mul.make_args(arg):
        base, power = factor.as_base_exp()
        if not (isinstance(base, sp.Indexed) and power.is_Integer and power > 0):
            raise ValueError(f"the moment table does not know E({arg})")
        indices += list(base.indices) * int(power)
    if len(indices) not in table:
        raise ValueError(f"the moment table has no moment of order {len(indices)}")
    return table[len(indices)](*indices)


def dot_moments(table: MomentTable, size: sp.Expr, scale: sp.Expr = sp.S.One
                ) -> tuple[sp.Expr, sp.Expr]:
    """Mean and variance of scale * (q . k) for q, k of ``size`` components drawn
    independently from ``table``: the rules above, then SymPy's sums."""
    a = INDICES[0]
    dot = scale * sp.Sum(q[a] * k[a], (a, 1, size))
    mean = moments(linearity(E(dot)), table).doit()
    second = sp.expand(moments(linearity(E(dot**2)), table)).doit()
    return sp.simplify(mean), sp.factor(sp.simplify(second - mean**2))
