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
import json
import mmap
import os
from collections.abc import Iterator, Mapping
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


class _LazyTensors(Mapping):
    """Tensors of a safetensors file as arrays over a private memory map of it.

    Nothing is copied up front: a page is read when an array touches it, so looking up
    a few rows of wte reads those rows only. The map is copy-on-write, so an array
    written to changes this process's copy and never the file. The layout is
    safetensors' own: an 8-byte little-endian header length, a JSON header giving
    each tensor's dtype, shape and byte range, then the data.
    """

    DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16,
              "I64": np.int64, "I32": np.int32}

    def __init__(self, path: Path):
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(size))
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        header.pop("__metadata__", None)
        unknown = {v["dtype"] for v in header.values()} - set(self.DTYPES)
        if unknown:
            raise ValueError(f"{path} holds tensors of dtype {sorted(unknown)}, which "
                             "the control never has: delete the file to rebuild it")
        self._start, self._header = 8 + size, header
        self._cache: dict[str, np.ndarray] = {}

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in self._cache:
            entry = self._header[key]  # KeyError for a name the file lacks
            dtype = np.dtype(self.DTYPES[entry["dtype"]])
            begin, end = entry["data_offsets"]
            self._cache[key] = np.frombuffer(
                self._map, dtype, (end - begin) // dtype.itemsize,
                self._start + begin).reshape(entry["shape"])
        return self._cache[key]

    def __contains__(self, key: object) -> bool:
        return key in self._header

    def __iter__(self) -> Iterator[str]:
        return iter(self._header)

    def __len__(self) -> int:
        return len(self._header)


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
    return GPT2(_LazyTensors(path))
