"""GPT-2's tensors by name and shape: one schema for the loader, the model, the control,
constructed models and the tests.

Names are Hugging Face's (``h.{i}.attn.c_attn.weight``, ...); weights are stored
``[in, out]`` as GPT-2's Conv1D stores them, so a row vector multiplies on the left.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    """The sizes of a GPT-2; the defaults are GPT-2 small."""

    n_layer: int = 12
    n_head: int = 12
    d_model: int = 768
    n_ctx: int = 1024
    n_vocab: int = 50257
    eps: float = 1e-5

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_head

    @property
    def d_mlp(self) -> int:
        return 4 * self.d_model


GPT2_SMALL = Config()


def layer_shapes(config: Config, layer: int) -> dict[str, tuple[int, ...]]:
    """The tensors of one block, with their shapes."""
    d, m, p = config.d_model, config.d_mlp, f"h.{layer}."
    return {
        p + "ln_1.weight": (d,), p + "ln_1.bias": (d,),
        p + "attn.c_attn.weight": (d, 3 * d), p + "attn.c_attn.bias": (3 * d,),
        p + "attn.c_proj.weight": (d, d), p + "attn.c_proj.bias": (d,),
        p + "ln_2.weight": (d,), p + "ln_2.bias": (d,),
        p + "mlp.c_fc.weight": (d, m), p + "mlp.c_fc.bias": (m,),
        p + "mlp.c_proj.weight": (m, d), p + "mlp.c_proj.bias": (d,),
    }


def tensor_shapes(config: Config = GPT2_SMALL) -> dict[str, tuple[int, ...]]:
    """Every tensor of a GPT-2 of this config with its shape (GPT-2 small by default)."""
    d = config.d_model
    shapes = {"wte.weight": (config.n_vocab, d), "wpe.weight": (config.n_ctx, d),
              "ln_f.weight": (d,), "ln_f.bias": (d,)}
    for i in range(config.n_layer):
        shapes |= layer_shapes(config, i)
    return shapes


def is_mlp_weight(name: str) -> bool:
    return name.endswith(("mlp.c_fc.weight", "mlp.c_proj.weight"))


def is_layernorm_weight(name: str) -> bool:
    return name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight"))
