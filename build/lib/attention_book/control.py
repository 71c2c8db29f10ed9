"""The control: GPT-2 small as it is before training.

Every GPT-2 check of the book also runs on this model: the same shapes and the same
initialisation as GPT-2 small (``transformers``' own ``GPT2LMHeadModel`` initialisation,
seeded), and no training. A finding about trained GPT-2 must fail on it; an identity,
which holds for any weights, must pass on it.

Building it takes ``transformers`` about 10 s, so the tensors are written once to the
user's cache (``$XDG_CACHE_HOME/attention_book``, about 500 MB) and memory-mapped from
there afterwards; the file name carries the seed and the ``transformers`` version.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from .gpt2 import GPT2

SEED = 0
LABEL = "random-init control (GPT-2 small's initialisation, untrained, seed 0)"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attention_book"


def _build(path: Path, seed: int) -> None:
    import torch
    from safetensors.torch import save_file
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    model = GPT2LMHeadModel(GPT2Config())
    state = {k: v.contiguous() for k, v in model.transformer.state_dict().items()
             if not k.endswith((".attn.bias", ".attn.masked_bias"))}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    save_file(state, str(tmp), metadata={"what": LABEL, "seed": str(seed)})
    tmp.replace(path)  # atomic: two chapters building at once both end with one good file


def mapped_tensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file the book wrote (a control, a cached control) as
    copy-on-write views of a memory map of it: the loader's reader
    (``checkpoint.safetensors_file.read_tensors``), so nothing is copied up front and a
    few rows of wte read only those rows. A damaged file is named, with what to do."""
    from .checkpoint import CheckpointError
    from .checkpoint.safetensors_file import read_tensors

    try:
        return read_tensors(path)
    except CheckpointError as e:
        raise RuntimeError(f"the cached control {path} cannot be read ({str(e).split('. ')[0]}):"
                           " delete it and it is built again") from None


def control_path(seed: int = SEED) -> Path:
    from importlib.metadata import version  # not the import: transformers loads slowly

    name = f"gpt2-small-init-seed{seed}-transformers-{version('transformers')}.safetensors"
    return cache_dir() / name


@functools.lru_cache(maxsize=2)
def load_control(seed: int = SEED) -> GPT2:
    """The random-init control as the book's GPT2 (full: token embeddings and MLP too)."""
    path = control_path(seed)
    if not path.is_file():
        _build(path, seed)
    return GPT2(mapped_tensors(path))
