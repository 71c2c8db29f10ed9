"""The counts chapters 07 and 09 derive from: SymPy's sums against hand counts."""

import sympy as sp

from attention_book.sympy_counts import entries, product_flops


def test_a_matrix_counts_its_entries_and_a_product_two_flops_per_multiply_add():
    d, w, h = sp.symbols("d w h", integer=True, positive=True)
    assert entries(d, w, h).doit() == d * w * h
    assert isinstance(entries(d, w), sp.Sum)          # unevaluated until asked
    assert len(entries(d, w).limits) == 2 and len(entries(d, w, h).limits) == 3
    assert product_flops(3, 4, 5).doit() == 2 * 3 * 4 * 5
    assert product_flops(d, w, d, h).doit() == 2 * d * w * d * h
