"""Models built by hand: small, complete, seeded, and never presented as GPT-2.

Chapters use them where the right answer is known by construction, above all to run
the code path of a claim that needs the full checkpoint (token embeddings, MLP weights)
when this build has only GPT-2's attention tensors.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .gpt2 import GPT2
from .schema import Config, is_layernorm_weight, tensor_shapes


def attention_shapes(d_model: int, n_head: int, n_kv: int, d_head: int) -> dict[str, tuple]:
    """[in, out] shapes of W_Q, W_K, W_V, W_O: n_head query heads, n_kv key-value heads."""
    return {"W_Q": (d_model, n_head * d_head), "W_K": (d_model, n_kv * d_head),
            "W_V": (d_model, n_kv * d_head), "W_O": (n_head * d_head, d_model)}


def random_gpt2_tensors(config: Config, n_vocab: int = 50257, seed: int = 0,
                        std: float = 0.2) -> dict[str, np.ndarray]:
    """Every tensor of a GPT-2 of this config, seeded N(0, std) (LayerNorm weights 1 + that),
    under Hugging Face key names. Edit the dict, then build ``GPT2(tensors, config)``."""
    rng = np.random.default_rng(seed)
    shapes = tensor_shapes(replace(config, n_vocab=n_vocab))
    return {name: (is_layernorm_weight(name) + rng.normal(0.0, std, shape)).astype(np.float32)
            for name, shape in shapes.items()}


def random_gpt2(config: Config, n_vocab: int = 50257, seed: int = 0,
                std: float = 0.2) -> GPT2:
    """A complete, seeded random model of this config (see random_gpt2_tensors)."""
    return GPT2(random_gpt2_tensors(config, n_vocab, seed, std), config)
