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
