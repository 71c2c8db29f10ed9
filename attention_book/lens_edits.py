"""Counterfactual models made by editing the lenses inside GPT-2's fused c_attn.

c_attn holds [W_Q | W_K | W_V] side by side (each d_model wide, heads in blocks of
d_head columns) and its bias [b_Q | b_K | b_V] likewise. Each function returns a new
model (``GPT2.with_tensors``); the original is not touched. ``swap_lenses`` edits one
layer's ``AttentionWeights`` instead.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .gpt2 import GPT2, AttentionWeights


def _c_attn(model: GPT2, layer: int) -> tuple[str, np.ndarray, np.ndarray]:
    p = f"h.{layer}.attn.c_attn."
    w, b = (np.array(model.tensors[p + s]) for s in ("weight", "bias"))
    return p, w, b


def shared_key_lens(model: GPT2) -> GPT2:
    """``model`` with W_K = W_Q and b_K = b_Q in every head of every layer: one shared
    lens, so every head's M = W_Q W_Q^T is symmetric and positive semi-definite."""
    d, changes = model.config.d_model, {}
    for layer in range(model.config.n_layer):
        p = f"h.{layer}.attn.c_attn."
        for s in ("weight", "bias"):  # [Q | K | V] -> [Q | Q | V] in one copy
            t = model.tensors[p + s]
            changes[p + s] = np.concatenate([t[..., :d], t[..., :d], t[..., 2 * d:]], -1)
    return model.with_tensors(changes)


def dependent_key_column(model: GPT2, layer: int, head: int,
                         coefficients: tuple[float, ...] = (0.5, -1.0, 2.0)) -> GPT2:
    """``model`` with the last column of one head's W_K replaced by a combination of its
    first ``len(coefficients)`` columns: that head's key lens, hence its M = W_Q W_K^T,
    loses one rank (d_k - 1)."""
    cfg = model.config
    if not 0 <= layer < cfg.n_layer or not 0 <= head < cfg.n_head:
        raise ValueError(f"no head {layer}.{head} in a model with {cfg.n_layer} layers "
                         f"of {cfg.n_head} heads")
    if len(coefficients) >= cfg.d_head:
        raise ValueError(f"{len(coefficients)} coefficients leave no column of the "
                         f"{cfg.d_head}-wide key lens free to replace")
    p, w, _ = _c_attn(model, layer)
    start = cfg.d_model + head * cfg.d_head        # this head's first key column
    cols = w[:, start:start + len(coefficients)].astype(np.float64)
    w[:, start + cfg.d_head - 1] = cols @ np.asarray(coefficients, np.float64)
    return model.with_tensors({p + "weight": w})


def swap_lenses(w: AttentionWeights, biases: bool = True) -> AttentionWeights:
    """One layer's weights with the query and key lenses exchanged in every head: the
    matrices W_Q <-> W_K, and with ``biases`` the biases b_Q <-> b_K too."""
    extra = {"b_Q": w.b_K, "b_K": w.b_Q} if biases else {}
    return replace(w, W_Q=w.W_K, W_K=w.W_Q, **extra)


def without_values(w: AttentionWeights) -> AttentionWeights:
    """One layer's weights with an empty value path (W_V, b_V, W_O and b_O of width 0):
    the book's ``attention`` on them computes the same queries, keys, scores and pattern,
    bit for bit, and writes nothing (head writes and output of width 0), at a third of
    the cost, for measures that read only the scores."""
    return replace(w, W_V=w.W_V[..., :0], b_V=w.b_V[..., :0], W_O=w.W_O[:, :0, :0],
                   b_O=w.b_O[:0])
