"""The site check's pattern for SymPy reprs: it catches printed derivations, not numbers."""

import pytest
import sympy as sp

from book_tools.site_check import SYMPY_REPR

d, i = sp.symbols("d i", integer=True)
X = sp.MatrixSymbol("X", d, d)
k = sp.Idx("k")


@pytest.mark.parametrize("expr", [
    sp.Sum(X[i, k] * X[k, i], (k, 0, d - 1)),
    sp.KroneckerDelta(i, d),
    X.T * X,
    d**2 + 1,
    sp.Matrix([[1, 2], [3, 4]]),
])
def test_printed_sympy_objects_are_caught(expr):
    assert SYMPY_REPR.search(str(expr)) or SYMPY_REPR.search(repr(expr)), str(expr)


@pytest.mark.parametrize("text", [
    "max |difference| = 4.3e-06", "rank of W_Q^h, all 144 heads: [64]",
    "layer 0, head 3: share 0.48 (median)", "q: hand vs transformers",
    "[[1. 2.]\n [3. 4.]]",
])
def test_ordinary_outputs_are_not(text):
    assert not SYMPY_REPR.search(text)
