"""Rules SymPy's matrix expressions do not apply by themselves, for chapter 03's proofs.

- ``canon``: a 1 x 1 matrix expression with every product term replaced by itself or its
  transpose, whichever sorts first (a 1 x 1 matrix is its own transpose), so that
  x_j M x_i^T and x_i M^T x_j^T are recognised as equal;
- ``trace_canon``: a sum of traces of products, each brought to its first form under
  cycling and transposing (tr(PQ) = tr(QP), tr(S^T) = tr(S));
- ``named``: an expression with SymPy's summation dummies given readable names;
- ``sum_deltas``: sums of Kronecker deltas summed out, each delta firing once;
- ``separate_sums``: a double sum of f(i) g(j) as a product of two single sums;
- ``entry_sums``: the entry of a 1 x 1 product of rows as a sum over their entries;
- ``at_size_one``: the number a 1 x 1 expression takes when every size is 1 and each
  matrix symbol is a given number (a counterexample exhibits a value).

tests/test_matrix_rules.py proves both rules with symbolic sizes.
"""

from __future__ import annotations

import sympy as sp
from sympy.concrete.delta import deltasummation
from sympy.matrices.expressions.matexpr import MatrixElement
from sympy.simplify.simplify import factor_sum


def canon(expr: sp.Expr) -> sp.Expr:
    """Each term of a 1 x 1 matrix sum as its scalar coefficient times the first of its
    matrix product and that product's transpose (the coefficient set aside, so that
    alpha x y^T and y x^T come to the same product whatever their coefficients)."""
    expr = sp.expand(expr)
    terms = expr.args if isinstance(expr, sp.MatAdd) else (expr,)
    return sp.MatAdd(*[_canonical_term(t) for t in terms]).doit()


def _canonical_term(term: sp.Expr) -> sp.Expr:
    coeff, matrices = (term.as_coeff_matrices() if isinstance(term, sp.MatMul)
                       else (sp.S.One, [term]))
    product = sp.MatMul(*matrices).doit() if len(matrices) > 1 else matrices[0]
    return coeff * min(product, sp.transpose(product).doit(), key=sp.default_sort_key)


def _factors(e: sp.Expr) -> tuple[sp.Expr, list]:
    """Scalar coefficient and matrix factors of a product, powers unrolled."""
    if isinstance(e, sp.MatMul):
        coeff, out = sp.S.One, []
        for arg in e.args:
            c, f = _factors(arg)
            coeff, out = coeff * c, out + f
        return coeff, out
    if isinstance(e, sp.MatPow) and e.exp.is_Integer and e.exp > 0:
        c, f = _factors(e.base)
        return c ** e.exp, f * int(e.exp)
    return (sp.S.One, [e]) if getattr(e, "is_Matrix", False) else (e, [])


def _monomials(e: sp.Expr) -> list[tuple[sp.Expr, list]]:
    """A matrix expression as a list of (coefficient, factors)."""
    out = []
    e = sp.expand(e)
    for t in (e.args if isinstance(e, sp.MatAdd) else (e,)):
        c, fs = _factors(t)
        mons = [(c, [])]
        for f in fs:
            parts = _monomials(f) if isinstance(f, sp.MatAdd) else [(1, [f])]
            mons = [(c1 * c2, f1 + f2) for c1, f1 in mons for c2, f2 in parts]
        out += mons
    return out


def trace_canon(expr: sp.Expr) -> sp.Expr:
    """A sum of traces of products, each in its first form under cycling and
    transposing."""
    out = []
    expr = sp.expand(expr)
    for t in (expr.args if isinstance(expr, sp.Add) else (expr,)):
        coeff, tr = t.as_coeff_Mul()
        if not isinstance(tr, sp.Trace):
            raise TypeError(f"trace_canon expects a sum of traces, got the term {t}")
        for c, fs in _monomials(tr.arg):
            forms = (fs, [sp.transpose(f).doit() for f in reversed(fs)])
            best = min((tuple(s[r:] + s[:r]) for s in forms for r in range(len(s))),
                       key=sp.default_sort_key)
            out.append(coeff * c * sp.Trace(sp.MatMul(*best)))
    return sp.Add(*out)


def at_size_one(expr: sp.Expr, **values: float) -> sp.Expr:
    """The number a 1 x 1 matrix expression takes when every size is 1 and each matrix
    symbol (by name) is the given number."""
    sizes = {s for m in expr.atoms(sp.MatrixSymbol) for k in m.shape
             for s in sp.sympify(k).free_symbols}
    e = expr.subs({s: 1 for s in sizes})
    mats = {m: sp.ImmutableMatrix([[values[m.name]]]) for m in e.atoms(sp.MatrixSymbol)}
    missing = {m.name for m in e.atoms(sp.MatrixSymbol)} - set(values)
    if missing:
        raise KeyError(f"at_size_one needs a value for {sorted(missing)}")
    return sp.expand(e.xreplace(mats).doit()[0, 0])


def named(expr: sp.Expr, *names: sp.Symbol) -> sp.Expr:
    """``expr`` with SymPy's summation dummies (in their sorted order) renamed to
    ``names``: the same expression, written with the indices a reader expects."""
    dummies = sorted(expr.atoms(sp.Dummy), key=str)
    return expr.xreplace(dict(zip(dummies, names, strict=False)))


def sum_deltas(expr: sp.Expr) -> sp.Expr:
    """``expr`` with every sum of Kronecker deltas summed out, one limit at a time. Each
    delta fires exactly once: the book applies it only where a delta's solution is an
    index of the same range as the sum (or a symbol declared to lie in it), so no
    Piecewise condition is needed (SymPy's ``deltasummation(..., no_piecewise=True)``)."""
    def summed(s: sp.Sum) -> sp.Expr:
        body = sp.expand(s.function)
        for limit in s.limits:
            body = deltasummation(body, limit, no_piecewise=True)
        return body

    return expr.replace(lambda e: isinstance(e, sp.Sum), summed)


def separate_sums(expr: sp.Expr, index: sp.Symbol) -> sp.Expr:
    """Every double sum of a product f(i) g(j) written as the product of its two single
    sums, each with its bound index renamed to ``index``."""
    def single(s: sp.Sum) -> sp.Expr:
        bound = s.limits[0][0]
        return sp.Sum(s.function.xreplace({bound: index}), (index, *s.limits[0][1:]))

    def separated(s: sp.Sum) -> sp.Expr:
        if len(s.limits) != 2:
            return s
        inner = factor_sum(sp.Sum(s.function, s.limits[0]))
        both = factor_sum(sp.Sum(inner, s.limits[1]))
        return both.replace(lambda e: isinstance(e, sp.Sum) and len(e.limits) == 1, single)

    return expr.replace(lambda e: isinstance(e, sp.Sum), separated)


def entry_sums(expr: sp.Expr, rows: dict, index: sp.Symbol) -> sp.Expr:
    """A 1 x 1 product of matrix symbols, as the sum SymPy writes for its entry, with the
    entry (0, c) of each row ``r`` written ``rows[r][c]`` (an IndexedBase, e.g. with real
    entries) and the summation index named ``index``."""
    entry = expr[0, 0] if getattr(expr, "is_Matrix", False) else expr
    plain = entry.replace(lambda e: isinstance(e, MatrixElement),
                          lambda e: rows[e.parent][e.j])
    return named(plain, index)
