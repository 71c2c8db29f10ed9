"""attention_book.moments: the rules give SymPy's own expectations, for any table."""

import pytest
import sympy as sp
from sympy import stats

from attention_book.moments import (
    INDICES,
    E,
    dot_moments,
    k,
    linearity,
    moment_table,
    moments,
    q,
)

D_K = sp.Symbol("d_k", integer=True, positive=True)
MU = sp.Symbol("mu", real=True)
SIGMA = sp.Symbol("sigma", positive=True)


def test_s1_hypotheses_give_mean_zero_and_variance_d_k():
    assert dot_moments(moment_table(0, 1, 0, D_K), D_K) == (0, D_K)


@pytest.mark.parametrize("size", [1, 2])
def test_general_mean_and_variance_agree_with_sympy_stats(size):
    """Independent normal components N(mu, sigma^2): sympy.stats computes the moments
    of q . k at a fixed size with no help from this module."""
    qs = [stats.Normal(f"q{a}", MU, SIGMA) for a in range(size)]
    ks = [stats.Normal(f"k{a}", MU, SIGMA) for a in range(size)]
    dot = sum(x * y for x, y in zip(qs, ks, strict=True))
    mean, var = dot_moments(moment_table(MU, SIGMA**2, 0, D_K), D_K)
    assert sp.simplify(stats.E(dot) - mean.subs(D_K, size)) == 0
    assert sp.simplify(stats.variance(dot) - var.subs(D_K, size)) == 0


def test_a_scale_comes_out_squared():
    gamma = sp.Symbol("gamma", positive=True)
    _, var = dot_moments(moment_table(0, 1, 0, D_K), D_K, scale=D_K**-gamma)
    assert sp.simplify(var - D_K ** (1 - 2 * gamma)) == 0


def test_correlation_adds_a_term_in_d_k_squared():
    rho = sp.Symbol("rho", real=True)
    _, var = dot_moments(moment_table(0, 1, rho, D_K), D_K)
    assert sp.expand(var - (D_K + rho**2 * D_K * (D_K - 1))) == 0


def test_linearity_splits_q_from_k_over_fresh_indices():
    a, b = INDICES
    dot = sp.Sum(q[a] * k[a], (a, 1, D_K))
    assert linearity(E(dot**2)) == sp.Sum(E(q[a] * q[b]) * E(k[a] * k[b]),
                                          (a, 1, D_K), (b, 1, D_K))


def test_what_the_rules_do_not_know_is_refused():
    a = INDICES[0]
    with pytest.raises(ValueError, match="no moment of order 3"):
        moments(E(q[a] ** 3), moment_table(0, 1, 0, D_K))
    with pytest.raises(ValueError, match="at most 2 sums"):
        linearity(E(sp.Sum(q[a] * k[a], (a, 1, D_K)) ** 3))
