"""Parameters and FLOPs counted as SymPy sums, one unit per index (chapters 07 and 09).

A matrix has one parameter per (copy, row, column) and a product of an m x k by a
k x n matrix costs two FLOPs (a multiplication and an addition) per (copy, row, column,
inner index); a single copy has no copy index. The sums are returned unevaluated, with
symbolic limits, so that a derivation shows them and SymPy evaluates them (``.doit()``).
"""

from __future__ import annotations

import sympy as sp

_copy, _row, _col, _inner = sp.symbols("g r c l", integer=True, positive=True)


def entries(n_rows: sp.Expr, n_cols: sp.Expr, copies: sp.Expr = 1) -> sp.Sum:
    """Parameters of ``copies`` matrices of n_rows x n_cols: one per entry."""
    return sp.Sum(1, *_copies(copies), (_row, 1, n_rows), (_col, 1, n_cols))


def product_flops(m: sp.Expr, k: sp.Expr, n: sp.Expr, copies: sp.Expr = 1) -> sp.Sum:
    """FLOPs of ``copies`` products (m x k)(k x n): two per multiply-add."""
    return sp.Sum(2, *_copies(copies), (_row, 1, m), (_col, 1, n), (_inner, 1, k))


def _copies(copies: sp.Expr) -> tuple:
    return () if copies == 1 else ((_copy, 1, copies),)
