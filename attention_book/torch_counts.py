"""What a piece of torch code does, counted while it runs: FLOPs by torch's own rules and
the tensors each computing operation reads.

The FLOPs come from ``torch.utils.flop_counter.flop_registry``, the rules torch's
``FlopCounterMode`` applies (a product of m x k by k x n counts 2mkn; elementwise work,
softmax and masking count nothing). The counter is a dispatch mode: it sees every
operation the code sends to torch's kernels, after autograd and composite operations
have been resolved into them, exactly where ``FlopCounterMode`` looks.
"""

from __future__ import annotations

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.flop_counter import flop_registry


class OpCounter(TorchDispatchMode):
    """Counts every operation torch runs inside it: ``flops`` by torch's
    rules, and in ``storages`` the storage of every tensor a computing
    operation reads (views, which read nothing, are skipped)."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # Nothing runs compiled inside the counter, so the compiler guard torch
        # wraps around __torch_dispatch__ guards nothing here; its first call
        # imports torch._dynamo (1.2-1.5 s).
        return False

    def __init__(self) -> None:
        super().__init__()
        self.flops = 0
        self.storages: set[int] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        rule = flop_registry.get(func.overloadpacket)
        if rule is not None:
            self.flops += rule(*args, **kwargs, out_val=out)
        if not func.is_view:  # _cdata: the storage's identity, views share it
            self.storages |= {x.untyped_storage()._cdata
                              for x in tree_leaves((args, kwargs))
                              if isinstance(x, torch.Tensor)}
        return out

    def read(self, tensor: torch.Tensor) -> bool:
        """Whether an operation inside the counter read tensor's storage."""
        return tensor.untyped_storage()._cdata in self.storages


def fused_attention_layer(
        x_ln: torch.Tensor, W_attn: torch.Tensor, b_attn: torch.Tensor,
        W_proj: torch.Tensor, b_proj: torch.Tensor, n_head: int,
        causal: bool = True) -> torch.Tensor:
    """GPT-2's attention layer written as GPT-2 computes it: one fused
    product for q, k and v, the heads split by a reshape, scores, the
    causal mask (unless ``causal`` is False), softmax, mixing and one
    output product. ``x_ln``: the LayerNorm'd rows."""
    n, width = x_ln.shape[0], W_attn.shape[1] // 3
    if width % n_head:
        raise ValueError(f"{n_head} heads do not split the width {width}: "
                         "choose a divisor")
    q, k, v = (a.reshape(n, n_head, -1).transpose(0, 1)
               for a in torch.addmm(b_attn, x_ln, W_attn).split(width, dim=1))
    scores = q @ k.transpose(1, 2) / q.shape[-1] ** 0.5
    if causal:
        mask = torch.ones(n, n, dtype=torch.bool, device=x_ln.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
    z = torch.softmax(scores, -1) @ v
    return torch.addmm(b_proj, z.transpose(0, 1).reshape(n, width), W_proj)


def layer_flops(n_head: int, head_width: int, n_pos: int, d_model: int) -> int:
    """The FLOPs torch records for ``fused_attention_layer`` with ``n_head`` heads of
    ``head_width`` on ``n_pos`` rows of width ``d_model``, counted on the meta device
    (shapes only, no numbers)."""
    total = n_head * head_width
    shapes = [(d_model, 3 * total), (3 * total,), (total, d_model), (d_model,)]
    with OpCounter() as counter:
        fused_attention_layer(torch.empty(n_pos, d_model, device="meta"),
                              *(torch.empty(s, device="meta") for s in shapes),
                              n_head=n_head)
    return counter.flops
