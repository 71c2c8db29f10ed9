"""How far a numerical answer may be from the key's, relative to the answer's scale.

Every comparison of the key is relative: the gap is measured in units of the reference's
largest magnitude, so that a right answer is accepted whatever its size. Where float32 is
what a student naturally computes (GPT-2's weights are float32), the tolerance is derived
from float32's rounding, Higham's gamma_n for sums of n terms
(``attention_book.verify.gamma``), with a margin; the key's own reference is computed in
float32 or float64 as the chapter does.
"""

from __future__ import annotations

import numpy as np

from attention_book.verify import EPS32, gamma


def relative_gap(got: object, want: object) -> float:
    """max |got - want| over max |want| (0 when both are 0)."""
    g = np.asarray(got, dtype=np.float64)
    w = np.asarray(want, dtype=np.float64)
    scale = float(np.abs(w).max()) if w.size else 0.0
    gap = float(np.abs(g - w).max()) if w.size else 0.0
    if scale == 0.0:
        return gap
    return gap / scale


def close(got: object, want: object, rtol: float) -> bool:
    """``got`` has ``want``'s shape and lies within ``rtol`` of it, relative to its scale."""
    g, w = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return g.shape == w.shape and relative_gap(g, w) <= rtol


def float32_sums(terms: int, margin: float = 10.0) -> float:
    """The relative tolerance for results made of float32 sums of ``terms`` products:
    ``margin`` x gamma_terms (a worst-case bound, so the margin covers the few sums and
    differences that follow)."""
    return margin * gamma(terms, EPS32)
