"""One circuit's parameters exchanged between heads, and what the exchange moves
(chapter 07, claim C3).

A head's pattern is computed from its QK parameters (``W_Q, b_Q, W_K, b_K``) alone and
its messages ``m_j = (x_j W_V + b_V) W_O`` from its OV parameters alone. Giving every head
its neighbour's OV parameters therefore leaves every pattern as it was and changes what
the heads write; giving it the neighbour's QK parameters moves the patterns and leaves the
messages. This module makes those exchanges and measures what moved; that the untouched
half does not move is derived in the chapter and unit-tested in
``tests/test_circuit_swaps.py``.

Every head of a layer reads the same normalised rows, so a head given its neighbour's QK
parameters computes its neighbour's queries, keys and pattern, and a head given its
neighbour's OV parameters computes its neighbour's values: both exchanges of a whole
layer are read off one trace of it (``neighbour_qk_pattern``, ``neighbour_ov_writes``),
bit for bit what running the exchanged layer gives (unit-tested).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from .gpt2 import GPT2, AttentionTrace, AttentionWeights, attention

QK_PARAMETERS = ("W_Q", "b_Q", "W_K", "b_K")
OV_PARAMETERS = ("W_V", "b_V", "W_O")


def from_neighbour(w: AttentionWeights, parts: Sequence[str]) -> AttentionWeights:
    """The layer with every head's ``parts`` taken from the previous head (head 0 takes
    the last head's)."""
    _known(parts)
    return replace(w, **{p: np.roll(getattr(w, p), 1, axis=0) for p in parts})


def _known(parts: Sequence[str]) -> None:
    unknown = set(parts) - set(QK_PARAMETERS + OV_PARAMETERS)
    if unknown:
        raise ValueError(f"not a per-head parameter of a circuit: {sorted(unknown)}; use "
                         f"names from {QK_PARAMETERS + OV_PARAMETERS}")


def messages(w: AttentionWeights, v: np.ndarray) -> np.ndarray:
    """Each head's message from each source, ``m_j = v_j W_O``: [head, source, d_model]
    from the values ``v`` [head, source, d_head] (``trace.v``, bias included)."""
    return v @ w.W_O


def total_variation(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Total-variation distance between corresponding rows of two patterns (last axis)."""
    return 0.5 * np.abs(p - q).sum(-1)


def neighbour_qk_pattern(trace: AttentionTrace) -> np.ndarray:
    """Each head's pattern [head, query, source] when its QK parameters come from the
    previous head (``from_neighbour``): the previous head's pattern in ``trace``, whose
    queries and keys it now computes from the same rows."""
    return np.roll(trace.pattern, 1, axis=0)


def neighbour_ov_writes(w: AttentionWeights, trace: AttentionTrace) -> np.ndarray:
    """What each head writes [head, query, d_model] when its OV parameters come from the
    previous head: its own pattern (its QK parameters are untouched) over the previous
    head's values, through the previous head's W_O, as ``attention`` computes a write."""
    return (trace.pattern @ np.roll(trace.v, 1, axis=0)) @ np.roll(w.W_O, 1, axis=0)


def swap_effects(w: AttentionWeights, x: np.ndarray, eps: float) -> tuple[np.ndarray,
                                                                        np.ndarray]:
    """Per head of one layer on rows ``x``: the relative change of the head's write when
    the OV parameters come from its neighbour, and the largest total-variation change of
    a pattern row when the QK parameters do."""
    return trace_swap_effects(w, attention(w, x, eps=eps))


def trace_swap_effects(w: AttentionWeights, base: AttentionTrace) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """``swap_effects`` read off the layer's trace ``base`` (``attention(w, x)``), when
    it is already at hand."""
    written = np.linalg.norm(base.head_writes, axis=(1, 2))
    moved = np.linalg.norm(neighbour_ov_writes(w, base) - base.head_writes, axis=(1, 2))
    return moved / written, total_variation(neighbour_qk_pattern(base),
                                            base.pattern).max(-1)


def layer_swap_effects(model: GPT2, layer: int, x: np.ndarray,
                       trace: Callable[[], AttentionTrace] | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``swap_effects`` of one layer of ``model`` on rows ``x``, computed once per layer's
    weights and rows (``GPT2.layer_memo``): a counterfactual that edits one layer shares
    the others' with the model it was made from. ``trace``, if given, returns the layer's
    trace on ``x`` (e.g. a ``Case.trace`` its forward pass already holds); it is called
    only when the effects are computed."""
    rows = hashlib.sha1(np.ascontiguousarray(x).tobytes()).hexdigest()
    return model.layer_memo(layer, ("swap effects", x.shape, rows), lambda w: (
        swap_effects(w, x, model.config.eps) if trace is None
        else trace_swap_effects(w, trace())))


def pattern_shift_downstream(model: GPT2, x: np.ndarray, reader: int,
                             base: AttentionTrace | None = None) -> float:
    """The largest total-variation change of a pattern row of layer ``reader`` when layer
    0's OV parameters come from the neighbours, on the attention path
    ``x -> x + attn_0(x)``. Layer 1 reads what layer 0 wrote, so its patterns move; layer
    0's own (``reader=0``) cannot. ``base``, if given, is layer 0's trace on ``x``
    (``attention(model.layers[0], x)``, e.g. a ``Case.trace(0)`` already at hand)."""
    if reader not in (0, 1):
        raise ValueError(f"reader is layer 0 or 1, not {reader}")
    w0, eps = model.layers[0], model.config.eps
    base = attention(w0, x, eps=eps) if base is None else base
    if reader == 0:
        after = attention(from_neighbour(w0, OV_PARAMETERS), x, eps=eps).pattern
        return float(total_variation(after, base.pattern).max())
    exchanged_out = neighbour_ov_writes(w0, base).sum(0) + w0.b_O  # as ``written``
    before, after = (attention(model.layers[1], x + out, eps=eps).pattern
                     for out in (base.out, exchanged_out))
    return float(total_variation(after, before).max())


def neighbour_shared(model: GPT2, layer: int, head: int, parts: Sequence[str]) -> GPT2:
    """``model`` with head ``head`` of ``layer`` given head ``head - 1``'s ``parts`` in the
    stored tensors: a head whose QK (or OV) parameters equal its neighbour's, on which an
    exchange of those parameters moves nothing."""
    if not 1 <= head < model.config.n_head:
        raise ValueError(f"head must have a previous head: 1..{model.config.n_head - 1}")
    _known(parts)
    d, k = model.config.d_model, model.config.d_head
    p = f"h.{layer}.attn."
    weight, bias = (np.array(model.tensors[p + f"c_attn.{n}"]) for n in ("weight", "bias"))
    proj = np.array(model.tensors[p + "c_proj.weight"])
    third = {"W_Q": 0, "b_Q": 0, "W_K": 1, "b_K": 1, "W_V": 2, "b_V": 2}
    for part in parts:
        if part == "W_O":  # c_proj: head h owns rows h*k..
            proj[head * k:(head + 1) * k] = proj[(head - 1) * k:head * k]
            continue
        start = third[part] * d + head * k  # c_attn: [W_Q | W_K | W_V], heads within
        target = weight if part.startswith("W") else bias
        target[..., start:start + k] = target[..., start - k:start]
    return model.with_tensors({p + "c_attn.weight": weight, p + "c_attn.bias": bias,
                               p + "c_proj.weight": proj})
