"""What a head moves, set against what its map shows (Kobayashi et al.'s norm-based reading).

Source j's contribution to row i of head h is the vector c_ij = alpha_ij f_h(x_j), with
f_h(x_j) = (LN(x_j) W_V + b_V) W_O, and the head's write is sum_j c_ij. The map shows
alpha_ij; the *moved norm* is ||c_ij|| and the *moved share* beta_ij = ||c_ij|| / sum_k
||c_ik||. A *high-alpha, low-share case* is a query row i >= 1 where the map gives one
source a clear majority (alpha_ij > 0.6) and that source supplies less than half of what
is moved (beta_ij < 0.5). Every function takes a model and one of its forward passes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gpt2 import GPT2, Forward

CLEAR_MAJORITY, HALF = 0.6, 0.5


@dataclass(frozen=True)
class MapAndMoved:
    """Every layer's weights and moved norms, and how well the contributions rebuild the
    heads' writes."""

    alpha: np.ndarray  # [L, H, T, T] attention weights (the map)
    moved: np.ndarray  # [L, H, T, T] ||alpha_ij f_h(x_j)||
    gap: float         # max |sum_j c_ij - head write|, relative to the sum of |products|

    @property
    def shares(self) -> np.ndarray:
        return moved_shares(self.moved)

    @property
    def cases(self) -> np.ndarray:
        return high_alpha_low_share(self.alpha, self.moved)

    @property
    def heads_with_cases(self) -> int:
        return int(self.cases.any((-1, -2)).sum())


def map_and_moved(model: GPT2, forward: Forward, value_bias: bool = True) -> MapAndMoved:
    """Weights, moved norms and the rebuild gap of every head on one forward pass.
    ``value_bias=False`` leaves b_V out of f_h: a broken computation, whose contributions
    no longer add up to the heads' writes."""
    alphas, moved, gap = [], [], 0.0
    for w, tr in zip(model.layers, forward.traces, strict=True):
        v = tr.v if value_bias else tr.v - w.b_V[:, None]
        f = v @ w.W_O                                                 # f_h(x_j)
        rebuilt = tr.pattern @ f
        scale = (tr.pattern @ (np.abs(tr.v) @ np.abs(w.W_O))).max()   # alpha >= 0
        gap = max(gap, float(np.abs(rebuilt - tr.head_writes).max() / scale))
        alphas.append(tr.pattern)
        moved.append(tr.pattern * np.linalg.norm(f, axis=-1)[:, None, :])
    return MapAndMoved(np.stack(alphas), np.stack(moved), gap)


def moved_shares(moved: np.ndarray) -> np.ndarray:
    """beta_ij = ||c_ij|| / sum_k ||c_ik|| over the last axis (0 where nothing moves)."""
    total = moved.sum(-1, keepdims=True)
    return np.divide(moved, total, out=np.zeros_like(moved), where=total > 0)


def high_alpha_low_share(alpha: np.ndarray, moved: np.ndarray, a: float = CLEAR_MAJORITY,
                         b: float = HALF) -> np.ndarray:
    """[..., T, T] mask of the cases: alpha_ij > a and beta_ij < b, query rows i >= 1
    (row 0 can only attend to itself)."""
    mask = (alpha > a) & (moved_shares(moved) < b)
    mask[..., 0, :] = False
    return mask


def equal_value_norms(alpha: np.ndarray, moved: np.ndarray) -> np.ndarray:
    """The moved norms if every source of a head had the head's mean value norm (the
    directions unchanged): the counterfactual under which beta = alpha."""
    f_norms = np.divide(moved, alpha, out=np.zeros_like(moved), where=alpha > 0).max(-2)
    return alpha * f_norms.mean(-1)[..., None, None]
