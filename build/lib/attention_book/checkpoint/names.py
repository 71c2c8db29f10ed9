"""What the loader's modules refer to by name: the Hub repository at its pinned revision, the
files, the environment variables, the provenances, and GPT-2 small's tensors in order."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from ..schema import GPT2_SMALL, is_mlp_weight, tensor_shapes

HUB_REPO = "openai-community/gpt2"
HUB_REVISION = "607a30d783dfa663caf39e06633721c8d4cfcd7e"  # the commit the table describes
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILES = ("vocab.json", "merges.txt")

ENV_VAR = "GPT2_CHECKPOINT"
ALLOW_MODIFIED_VAR = "ATTENTION_BOOK_ALLOW_MODIFIED"
REHEARSAL_VAR = "ATTENTION_BOOK_REHEARSAL"
CACHE_VAR = "ATTENTION_BOOK_CACHE"

# The safetensors metadata key under which the rehearsal stand-in (book_tools.standin)
# records the sha256 of its synthetic tensors, as a JSON object {tensor name: sha256}.
STANDIN_KEY = "attention_book.standin_sha256"

# What a loaded checkpoint is.
OFFICIAL, MODIFIED, STANDIN = "official", "modified", "stand-in"


def expected_shapes() -> dict[str, tuple[int, ...]]:
    """Every tensor of GPT-2 small with its shape, under Hugging Face key names."""
    return tensor_shapes(GPT2_SMALL)


MLP_WEIGHTS = tuple(k for k in expected_shapes() if is_mlp_weight(k))
OPTIONAL = frozenset(("wte.weight", *MLP_WEIGHTS))
# Causal-mask buffers that some exports carry; they are not parameters.
IGNORED = re.compile(r"^h\.\d+\.attn\.(bias|masked_bias)$")


def ordered(names: Iterable[str]) -> list[str]:
    """Tensor names in GPT-2 small's order (unknown names last)."""
    order = {k: i for i, k in enumerate(expected_shapes())}
    return sorted(names, key=lambda k: order.get(k, len(order)))


def flag(var: str) -> bool:
    """Whether an environment variable is set to a yes (1, true, yes)."""
    return os.environ.get(var, "").strip().lower() in ("1", "true", "yes")
