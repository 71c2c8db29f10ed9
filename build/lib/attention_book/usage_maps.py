"""Who reads what in one attention layer: nudge one position's query, key or value and
see which output rows move at all (any bit), against what the causal mask predicts.

A map is ``changed[i, j]``: nudging position j's q, k or v moved output row i. The
prediction (chapter 08's proposition) splits into two parts of different kinds:

- *unread*: cells the mask says no row reads. A nudge there cannot move a bit, for any
  weights (a hidden key's weight is exactly ``e^{-inf} = 0``): an identity;
- *read*: cells the mask says are read. A nudge there moves the row for almost all
  weights, but not where the softmax saturates in float32 (a weight that rounds to 0 or
  1, so that no bit moves): a generic property.
"""

from __future__ import annotations

import math

import numpy as np

from .gpt2 import AttentionTrace, causal_mask, softmax

KINDS = ("q", "k", "v")


def attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = True) -> np.ndarray:
    """Softmax attention of given q [H, T_q, e] over k, v [H, T_k, e]: scaled scores,
    the causal mask, softmax, the weighted values."""
    scores = (q @ k.transpose(0, 2, 1)) / math.sqrt(q.shape[-1])
    if causal:
        scores = np.where(causal_mask(q.shape[1], k.shape[1]), -np.inf, scores)
    return softmax(scores) @ v


def usage_map(trace: AttentionTrace, kind: str, causal: bool) -> np.ndarray:
    """``changed[i, j]``: does adding 1 to position j's ``kind`` (q, k or v) in every head
    move output row i in any bit?"""
    qkv = {"q": trace.q, "k": trace.k, "v": trace.v}
    base = attend(*qkv.values(), causal=causal)
    T = trace.q.shape[1]
    changed = np.zeros((T, T), bool)
    for j in range(T):
        nudged = dict(qkv, **{kind: qkv[kind].copy()})
        nudged[kind][:, j] += 1.0
        changed[:, j] = (attend(*nudged.values(), causal=causal) != base).any(axis=(0, 2))
    return changed


def usage_maps(trace: AttentionTrace) -> dict[tuple[str, bool], np.ndarray]:
    """The six maps of one layer: q, k, v, each with and without the causal mask."""
    return {(kind, causal): usage_map(trace, kind, causal)
            for kind in KINDS for causal in (True, False)}


def predicted(T: int) -> dict[tuple[str, bool], np.ndarray]:
    """Who reads what, by the proposition: row i reads q_i only; under the mask it reads
    k_j, v_j for j <= i (row 0, with one key of weight 1, ignores q_0 and k_0), without
    it every k_j, v_j."""
    lower = np.tril(np.ones((T, T), bool))
    first_row_free = lower.copy()
    first_row_free[0, 0] = False
    diagonal, every = np.eye(T, dtype=bool), np.ones((T, T), bool)
    return {("q", True): diagonal & first_row_free, ("k", True): first_row_free,
            ("v", True): lower, ("q", False): diagonal, ("k", False): every,
            ("v", False): every}


def moved_unread(maps: dict, want: dict, masks_swapped: bool = False) -> int:
    """Cells that moved where the prediction says no row reads (masks_swapped: each map
    against the prediction for the other mask)."""
    return sum(int((maps[kind, causal] & ~want[kind, causal != masks_swapped]).sum())
               for kind, causal in want)


def read_unmoved(maps: dict, want: dict, masks_swapped: bool = False) -> int:
    """Cells the prediction says are read that did not move (masks_swapped: as above)."""
    return sum(int((want[kind, causal != masks_swapped] & ~maps[kind, causal]).sum())
               for kind, causal in want)
