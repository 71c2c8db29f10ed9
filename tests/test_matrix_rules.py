"""The rules chapter 03's matrix proofs rely on hold with symbolic sizes."""

import sympy as sp

from attention_book.matrix_rules import at_size_one, canon, trace_canon

d, d_k = sp.symbols("d d_k", integer=True, positive=True)


def test_a_one_by_one_matrix_is_its_transpose():
    Z = sp.MatrixSymbol("Z", 1, 1)
    assert Z.T[0, 0] == Z[0, 0]
    x, y = sp.MatrixSymbol("x", 1, d), sp.MatrixSymbol("y", 1, d)
    M = sp.MatrixSymbol("M", d, d)
    assert canon(y * M * x.T - x * M.T * y.T) == sp.ZeroMatrix(1, 1)
    assert canon(x * M * y.T - y * M * x.T) != sp.ZeroMatrix(1, 1)


def test_traces_are_unchanged_by_cycling_and_transposing():
    P, Q = sp.MatrixSymbol("P", d, d_k), sp.MatrixSymbol("Q", d_k, d)
    S = sp.MatrixSymbol("S", d, d)
    assert sp.Trace(P * Q).rewrite(sp.Sum).dummy_eq(
        sp.Trace(Q * P).rewrite(sp.Sum).reorder((0, 1)))
    assert sp.Trace(S.T).rewrite(sp.Sum) == sp.Trace(S).rewrite(sp.Sum)
    assert trace_canon(sp.Trace(P * Q) - sp.Trace(Q * P)) == 0
    assert trace_canon(sp.Trace(S.T * S) - sp.Trace(S * S.T)) == 0
    assert trace_canon(sp.Trace(S * S) - sp.Trace(S * S.T)) != 0


def test_at_size_one_evaluates_and_names_what_is_missing():
    x, W = sp.MatrixSymbol("x", 1, d), sp.MatrixSymbol("W", d, d_k)
    assert at_size_one(x * W * W.T * x.T, x=2, W=3) == 36
    try:
        at_size_one(x * W * W.T * x.T, x=2)
    except KeyError as err:
        assert "W" in str(err)
    else:
        raise AssertionError("a missing value must be named")


def test_sum_deltas_separate_sums_and_entry_sums():
    from attention_book.matrix_rules import entry_sums, separate_sums, sum_deltas

    a, b, p, c, i, j = sp.symbols("a b p c i j", integer=True, nonnegative=True)
    M = sp.IndexedBase("M")
    assert sum_deltas(sp.Sum(sp.KroneckerDelta(a, p) * M[a, b] * sp.KroneckerDelta(b, a),
                             (a, 0, d - 1), (b, 0, d - 1))) == M[p, p]
    u, v = sp.IndexedBase("u", real=True), sp.IndexedBase("v", real=True)
    double = sp.Sum(u[i] * v[j], (i, 0, d_k - 1), (j, 0, d_k - 1))
    assert separate_sums(double, c) == (sp.Sum(u[c], (c, 0, d_k - 1))
                                        * sp.Sum(v[c], (c, 0, d_k - 1)))
    U, V = sp.MatrixSymbol("U", 1, d_k), sp.MatrixSymbol("V", 1, d_k)
    assert entry_sums(U * V.T, {U: u, V: v}, c) == sp.Sum(u[c] * v[c], (c, 0, d_k - 1))
