"""One-way fingerprints of answers: a mistaken answer is recognised without being stored.

An answer, read by its form, becomes one token: exact for whole numbers, names and
symbols' values that are whole; for a real number, the cell of a logarithmic grid 0.1%
wide that it falls in; for an array of more than four numbers, its shape, the cell of its
norm and the cells of three fixed projections of it (seeded, each about a standard normal
draw). A SymPy expression is read as its values at two fixed points. The token is hashed
with PBKDF2 (salted with the exercise's label, slow on purpose), so that what is stored
says nothing about the answer it was made from, and finding it back means trying answers
one by one.

``digests(label, value, spread)`` gives every digest of the answers within ``spread``
(relative) of ``value``: the key's mistaken answer is stored with the cells around it, so
that the same mistake made in float32 or in another order is recognised too.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np

RESOLUTION = 1e-3   # a cell is 0.1% of a number (or of an array's norm) wide
SPREAD = 1e-4       # a stored mistake covers the cells within 0.01% of it
ITERATIONS = 20_000  # 10-20 ms a digest on this machine: slow to try answers one by one
SMALL = 4           # arrays up to this size are read number by number
POINTS = 2          # a SymPy expression is read at this many points


def _cells(x: float, spread: float, log: bool) -> list[str]:
    if log:
        if x == 0:
            return ["0"]
        step = math.log1p(RESOLUTION)
        ends = (math.log(abs(x) * (1 - spread)), math.log(abs(x) * (1 + spread)))
        return sorted({f"{'-' if x < 0 else '+'}{math.floor(e / step)}" for e in ends})
    return sorted({str(math.floor(e / RESOLUTION)) for e in (x - spread, x + spread)})


def _array(a: np.ndarray, spread: float) -> list[list[str]]:
    """The alternatives for each summary of a large array: shape, norm, projections."""
    flat = a.ravel()
    norm = float(np.linalg.norm(flat))
    summaries = [[f"shape{a.shape}"], _cells(norm, spread, log=True)]
    if norm > 0:
        draws = np.random.default_rng(flat.size).standard_normal((3, flat.size))
        summaries += [_cells(float(p), spread, log=False) for p in draws @ flat / norm]
    return summaries


def _at_points(expr: Any) -> list[Any]:
    """A SymPy expression's values where its symbol number i takes 2 + i + 3 * point."""
    import sympy as sp

    symbols = sorted(getattr(expr, "free_symbols", ()), key=lambda s: s.name)
    values = []
    for point in range(POINTS):
        v = sp.sympify(expr).subs({s: 2 + i + 3 * point for i, s in enumerate(symbols)})
        v = v.doit()
        values.append(int(v) if v.is_Integer else float(sp.re(sp.N(v, 30))))
    return values


def _alternatives(value: Any, spread: float) -> list[str]:
    """Every token of the answers within ``spread`` of ``value``."""
    if isinstance(value, str | bool) or value is None:
        return [repr(value)]
    if isinstance(value, numbers.Integral):
        return [str(int(value))]
    if isinstance(value, float | np.floating):
        return _cells(float(value), spread, log=True)
    if isinstance(value, np.ndarray):
        if value.size > SMALL:
            return ["|".join(c) for c in itertools.product(*_array(value, spread))]
        return _joined(list(value.ravel().astype(float)), spread, f"a{value.shape}")
    if isinstance(value, Mapping):
        keys = sorted(value, key=repr)
        return _joined([value[k] for k in keys], spread, "{" + ",".join(map(repr, keys)))
    if isinstance(value, frozenset | set):
        items = [_alternatives(v, spread) for v in value]
        return sorted({"{" + ",".join(sorted(c)) for c in itertools.product(*items)})
    if isinstance(value, list | tuple):
        return _joined(list(value), spread, "(")
    return _joined(_at_points(value), spread, "expr(")


def _joined(parts: list[Any], spread: float, opening: str) -> list[str]:
    options = [_alternatives(p, spread) for p in parts]
    return [opening + ",".join(c) + ")" for c in itertools.product(*options)]


def _digest(label: str, token: str) -> str:
    key = hashlib.pbkdf2_hmac("sha256", token.encode(), label.encode(), ITERATIONS)
    return key[:8].hex()


def digest(label: str, value: Any) -> str:
    """The digest of one answer (as its form reads it) to exercise ``label``."""
    (token,) = _alternatives(value, 0.0)
    return _digest(label, token)


def digests(label: str, value: Any, spread: float = SPREAD) -> frozenset[str]:
    """The digests of every answer within ``spread`` of ``value``."""
    return frozenset(_digest(label, t) for t in _alternatives(value, spread))
