"""One layer's grouped-query attention in torch, and what running it costs, counted.

``attention_torch`` is the step chapter 08b counts: causal attention of the queries over
the cached keys and values, each group of query heads reading one key-value head without
copies of K and V (baddbmm adds the mask to the scaled scores inside the product).
``count`` runs it inside ``torch_counts.OpCounter``: the FLOPs by torch's own rules, and
the bytes of the tensors the step actually read (queries, keys, values) and wrote (its
output). Counting needs shapes, not numbers: on torch's ``meta`` device it allocates
nothing.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch

from .gpt2 import causal_mask
from .torch_counts import OpCounter


class StepCount(NamedTuple):
    flops: int           # counted by torch's rules
    bytes_moved: int     # the tensors read (q, k, v) and the output written
    cache_bytes: int     # of those, the keys and values read
    out: torch.Tensor


def causal_bias(t_q: int, t_k: int, group: int, like: torch.Tensor) -> torch.Tensor:
    """0 where query row i (the last t_q of t_k positions) may see key j, -inf where the
    causal mask hides it; one block per query head of a group, on ``like``'s device."""
    hidden = torch.from_numpy(causal_mask(t_q, t_k))
    bias = torch.zeros(t_q, t_k, dtype=like.dtype).masked_fill(hidden, float("-inf"))
    return bias.to(like.device).repeat(group, 1)


def attention_torch(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Causal attention of q [n_q, T_q, d] over k, v [n_kv, T_k, d]: each group of
    n_q / n_kv consecutive query heads reads one key-value head."""
    n_q, t_q, d = q.shape
    n_kv, t_k, _ = k.shape
    group = n_q // n_kv
    scores = torch.baddbmm(causal_bias(t_q, t_k, group, q), q.reshape(n_kv, group * t_q, d),
                           k.transpose(1, 2), alpha=1 / math.sqrt(d))
    return (torch.softmax(scores, -1) @ v).reshape(n_q, t_q, d)


def count(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> StepCount:
    """Run ``attention_torch`` inside the counter."""
    with OpCounter() as counter:
        out = attention_torch(q, k, v)
    read = [x for x in (q, k, v) if counter.read(x)]
    return StepCount(counter.flops, sum(x.nbytes for x in read) + out.nbytes,
                     sum(x.nbytes for x in read if x is not q), out)
