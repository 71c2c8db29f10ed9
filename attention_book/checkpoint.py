"""Find, check and load the GPT-2 small checkpoint.

Resolution order: the path in ``GPT2_CHECKPOINT`` (a ``model.safetensors`` file or a
folder holding one), then the Hugging Face cache, then a download of
``openai-community/gpt2`` from the Hub. Every problem ends in a ``CheckpointError``
whose message names the problem and what to do about it.
"""

from __future__ import annotations

import functools
import json
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HUB_REPO = "openai-community/gpt2"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILES = ("vocab.json", "merges.txt")
ENV_VAR = "GPT2_CHECKPOINT"

D_MODEL, N_LAYER, N_HEAD, N_CTX, D_MLP, N_VOCAB = 768, 12, 12, 1024, 3072, 50257

# First values of wpe[0] in GPT-2 small: identifies the model, not just its shapes.
WPE_FINGERPRINT = np.array([-0.0188, -0.1974, 0.0040, 0.0113, 0.0638, -0.1050], np.float32)

HOW_TO_GET_ONE = (
    "Set GPT2_CHECKPOINT to a GPT-2 small model.safetensors (or the folder holding it), "
    f"or run once with network access so that '{HUB_REPO}' is downloaded into the "
    "Hugging Face cache."
)


OFFICIAL, MODIFIED, STANDIN = "official", "modified", "stand-in"
WEIGHTS_NOTES = {
    OFFICIAL: "",
    MODIFIED: "modified weights: not GPT-2 small as released",
    STANDIN: "stand-in for a rehearsal: real attention tensors with synthetic token "
             "embeddings and MLP weights, never GPT-2",
}


class CheckpointError(RuntimeError):
    """A checkpoint is missing, unreadable, damaged or not GPT-2 small."""


def _layer_shapes(i: int) -> dict[str, tuple[int, ...]]:
    d, p = D_MODEL, f"h.{i}."
    return {
        p + "ln_1.weight": (d,), p + "ln_1.bias": (d,),
        p + "attn.c_attn.weight": (d, 3 * d), p + "attn.c_attn.bias": (3 * d,),
        p + "attn.c_proj.weight": (d, d), p + "attn.c_proj.bias": (d,),
        p + "ln_2.weight": (d,), p + "ln_2.bias": (d,),
        p + "mlp.c_fc.weight": (d, D_MLP), p + "mlp.c_fc.bias": (D_MLP,),
        p + "mlp.c_proj.weight": (D_MLP, d), p + "mlp.c_proj.bias": (d,),
    }


def expected_shapes() -> dict[str, tuple[int, ...]]:
    """Every tensor of GPT-2 small with its shape, under Hugging Face key names."""
    shapes = {"wte.weight": (N_VOCAB, D_MODEL), "wpe.weight": (N_CTX, D_MODEL),
              "ln_f.weight": (D_MODEL,), "ln_f.bias": (D_MODEL,)}
    for i in range(N_LAYER):
        shapes.update(_layer_shapes(i))
    return shapes


MLP_WEIGHTS = tuple(k for k in expected_shapes() if re.search(r"mlp\.c_(fc|proj)\.weight$", k))
OPTIONAL = frozenset(("wte.weight", *MLP_WEIGHTS))
# Causal-mask buffers that some exports carry; they are not parameters.
IGNORED = re.compile(r"^h\.\d+\.attn\.(bias|masked_bias)$")


@dataclass(frozen=True)
class Checkpoint:
    """The tensors of GPT-2 small that a checkpoint holds, checked and named."""

    tensors: dict[str, np.ndarray]
    path: Path
    source: str  # "GPT2_CHECKPOINT", "Hugging Face cache" or "Hugging Face Hub"
    provenance: str = OFFICIAL  # OFFICIAL, MODIFIED (opted in) or STANDIN (rehearsal)

    @property
    def is_standin(self) -> bool:
        return self.provenance == STANDIN

    @property
    def weights_note(self) -> str:
        """'' for GPT-2 small as released; otherwise what the weights are, for every page."""
        return WEIGHTS_NOTES[self.provenance]

    @property
    def has_wte(self) -> bool:
        return "wte.weight" in self.tensors

    @property
    def has_mlp_weights(self) -> bool:
        return all(k in self.tensors for k in MLP_WEIGHTS)

    @property
    def is_full(self) -> bool:
        return self.has_wte and self.has_mlp_weights

    @property
    def missing(self) -> list[str]:
        return sorted(k for k in expected_shapes() if k not in self.tensors)

    def can_serve(self, claim: str) -> bool:
        """Whether this checkpoint holds every tensor the claim's verification needs."""
        from .ledger import claim_index

        return claim_index()[claim]["needs"] != "full" or self.is_full

    def describe(self) -> str:
        n = sum(t.size for t in self.tensors.values())
        kind = "full" if self.is_full else "partial (attention tensors only)"
        lines = [f"GPT-2 small checkpoint, {kind}: {len(self.tensors)} tensors, "
                 f"{n:,} parameters, from {self.source} ({self.path})"]
        if not self.is_full:
            from .ledger import claim_index

            unserved = [c for c in claim_index() if not self.can_serve(c)]
            lines.append(f"missing: token embeddings (wte): {not self.has_wte}; "
                         f"MLP weight matrices: {not self.has_mlp_weights}; "
                         f"claims that need them: {', '.join(unserved)}")
        return "\n".join(lines)


def _read_header(path: Path) -> dict:
    """Parse and sanity-check a safetensors header without trusting it."""
    size = path.stat().st_size
    if size < 8:
        raise CheckpointError(f"{path} is empty or truncated ({size} bytes). "
                              "Download it again. " + HOW_TO_GET_ONE)
    with path.open("rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        if n > size - 8 or n > 100_000_000:
            raise CheckpointError(f"{path} is not a safetensors file or is truncated: its "
                                  f"header claims {n:,} bytes but the file has {size:,}. "
                                  + HOW_TO_GET_ONE)
        try:
            header = json.loads(f.read(n))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise CheckpointError(f"{path} has an unreadable safetensors header ({e}). "
                                  + HOW_TO_GET_ONE) from None
    header.pop("__metadata__", None)
    itemsize = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8, "BOOL": 1, "U8": 1, "I64": 8}
    for name, info in header.items():
        if info["dtype"] != "F32" and not IGNORED.match(name.removeprefix("transformer.")):
            raise CheckpointError(f"{path}: tensor '{name}' is stored as {info['dtype']}; GPT-2 "
                                  "small's weights are float32 (F32), and the book's tolerances "
                                  "assume them. Use the original float32 checkpoint. "
                                  + HOW_TO_GET_ONE)
        start, end = info["data_offsets"]
        want = int(np.prod(info["shape"], dtype=np.int64)) * itemsize.get(info["dtype"], 1)
        if end - start != want:
            raise CheckpointError(f"{path}: the header says tensor '{name}' has shape "
                                  f"{info['shape']} ({want:,} bytes) but gives it "
                                  f"{end - start:,} bytes. The file is corrupt. " + HOW_TO_GET_ONE)
        if 8 + n + end > size:
            raise CheckpointError(f"{path} is truncated: tensor '{name}' ends at byte "
                                  f"{8 + n + end:,} of a {size:,}-byte file. "
                                  "Download it again. " + HOW_TO_GET_ONE)
    return header


def _check_tensor(name: str, t: np.ndarray, shape: tuple[int, ...], path: Path) -> None:
    if t.shape != shape:
        raise CheckpointError(f"{path}: tensor '{name}' has shape {tuple(t.shape)}, GPT-2 small "
                              f"needs {shape}. This is not a GPT-2 small checkpoint. "
                              + HOW_TO_GET_ONE)
    if not np.isfinite(t).all():
        bad = int((~np.isfinite(t)).sum())
        raise CheckpointError(f"{path}: tensor '{name}' holds {bad:,} NaN or infinite values. "
                              "The file is damaged; download it again. " + HOW_TO_GET_ONE)


def _check_identity(tensors: dict[str, np.ndarray], path: Path) -> None:
    required = sorted(set(expected_shapes()) - OPTIONAL - tensors.keys())
    if required:
        raise CheckpointError(f"{path} does not hold GPT-2 small: {len(required)} required "
                              f"tensors are missing (first: {required[:3]}). " + HOW_TO_GET_ONE)
    got = tensors["wpe.weight"][0, : len(WPE_FINGERPRINT)]
    if not np.allclose(got, WPE_FINGERPRINT, atol=5e-5):
        raise CheckpointError(f"{path} has GPT-2 small's shapes but not its weights "
                              f"(wpe[0, :6] = {np.round(got, 4).tolist()}, expected "
                              f"{WPE_FINGERPRINT.tolist()}). Another model or a retrained "
                              "one cannot stand in for GPT-2 small. " + HOW_TO_GET_ONE)


def read_tensors(path: Path) -> dict[str, np.ndarray]:
    """Read every tensor of a safetensors file as float32 numpy arrays, keys normalised."""
    from safetensors import SafetensorError, safe_open

    header = _read_header(path)
    tensors = {}
    try:
        with safe_open(str(path), framework="np") as f:
            for raw in header:
                key = raw.removeprefix("transformer.")
                if IGNORED.match(key):
                    continue
                tensors[key] = np.asarray(f.get_tensor(raw), dtype=np.float32)
    except (SafetensorError, OSError, ValueError, TypeError) as e:
        raise CheckpointError(f"{path} could not be read as safetensors ({e}). "
                              + HOW_TO_GET_ONE) from None
    return tensors


def validate(tensors: dict[str, np.ndarray], path: Path) -> None:
    """Refuse anything that is not (a subset of) GPT-2 small with finite values."""
    shapes = expected_shapes()
    unknown = sorted(set(tensors) - set(shapes))
    if unknown:
        raise CheckpointError(f"{path} holds tensors GPT-2 small does not have "
                              f"(first: {unknown[:3]}); it is another model. " + HOW_TO_GET_ONE)
    for name, t in tensors.items():
        _check_tensor(name, t, shapes[name], path)
    _check_identity(tensors, path)


def _weights_file(p: Path) -> Path:
    if not p.exists():
        raise CheckpointError(f"{ENV_VAR}={p} does not exist. " + HOW_TO_GET_ONE)
    if p.is_dir():
        if not (p / WEIGHTS_FILE).is_file():
            raise CheckpointError(f"{ENV_VAR}={p} is a folder without a {WEIGHTS_FILE}. "
                                  + HOW_TO_GET_ONE)
        return p / WEIGHTS_FILE
    return p


def _from_hub() -> tuple[Path, str]:
    import huggingface_hub as hub

    cached = hub.try_to_load_from_cache(HUB_REPO, WEIGHTS_FILE)
    if isinstance(cached, str):
        return Path(cached), "Hugging Face cache"
    try:
        for name in TOKENIZER_FILES:
            hub.hf_hub_download(HUB_REPO, name)
        return Path(hub.hf_hub_download(HUB_REPO, WEIGHTS_FILE)), "Hugging Face Hub"
    except Exception as e:  # the Hub client raises many types for "no network"
        raise CheckpointError(f"No GPT-2 checkpoint was found and '{HUB_REPO}' could not be "
                              f"downloaded ({type(e).__name__}: {str(e)[:200]}). "
                              + HOW_TO_GET_ONE) from None


def locate() -> tuple[Path, str]:
    """Where the checkpoint comes from: (path of model.safetensors, source name)."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return _weights_file(Path(env).expanduser()), ENV_VAR
    return _from_hub()


@functools.lru_cache(maxsize=4)
def _load(path: Path, source: str) -> Checkpoint:
    tensors = read_tensors(path)
    validate(tensors, path)
    return Checkpoint(tensors=tensors, path=path, source=source)


def load_checkpoint() -> Checkpoint:
    """Locate, read and check GPT-2 small; loaded once per process and path."""
    path, source = locate()
    return _load(path.resolve(), source)
