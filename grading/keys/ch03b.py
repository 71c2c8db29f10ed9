"""Exercises of chapter 03b, the QK circuit's scores (ex-q5-flat)."""

from __future__ import annotations

import numpy as np

from grading.registry import exercise
from grading.tolerance import float32_sums, relative_gap


def _flat_weights(T: int) -> np.ndarray:
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]


def _asymmetry(A: np.ndarray) -> float:
    return float(np.linalg.norm(A - A.T) / np.linalg.norm(A))


def _flat_reference() -> float:
    return _asymmetry(_flat_weights(20))


@exercise("ex-q5-flat", difficulty="warm-up", minutes=10, reference=_flat_reference,
          mistakes={"no-mask": lambda: _asymmetry(np.full((20, 20), 1 / 20)),
                    "rows-off-by-one": lambda: _asymmetry(_flat_weights(21)),
                    "squared-norms": lambda: _flat_reference() ** 2}, float32=True)
def _(value: float) -> str | None:
    # softmax rows of 20 and a 400-entry norm, in float32 at worst
    if relative_gap(value, _flat_reference()) <= float32_sums(20):
        return None
    return "That is not the asymmetry of the masked uniform weights for T = 20."
