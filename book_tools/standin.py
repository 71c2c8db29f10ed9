"""The rehearsal stand-in: a full-shaped checkpoint that is never GPT-2.

The offline checkpoint lacks ``wte`` and the MLP weights, so the chapters' full-checkpoint
branches cannot run on it. The stand-in has the real attention, LayerNorm and position
tensors, bit for bit, and *synthetic* ``wte`` and MLP weights drawn from a fixed seed at
GPT-2's initialisation scale, each one's sha256 recorded in the safetensors metadata
(``attention_book.checkpoint.STANDIN_KEY``). The loader accepts a synthetic tensor only as
recorded and only there, refuses the stand-in outside a rehearsal, and says on every page
and ledger entry that it is not GPT-2; it never imports this module.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from attention_book import checkpoint as ck
from attention_book.schema import GPT2_SMALL

SEED = 20_190_214  # GPT-2's release date; any fixed number would do
SYNTHETIC = ("wte.weight", *ck.MLP_WEIGHTS)  # what the offline checkpoint lacks
ABOUT = {"what": "attention_book rehearsal stand-in: real attention tensors, synthetic "
                 "wte and MLP weights; NOT GPT-2 small", "seed": str(SEED)}
REPO = Path(__file__).resolve().parent.parent


def std_of(name: str) -> float:
    """GPT-2's initialisation scale: 0.02, and 0.02 / sqrt(2 n_layer) for residual writes."""
    return 0.02 / math.sqrt(2 * GPT2_SMALL.n_layer) if name.endswith("mlp.c_proj.weight") else 0.02


def synthetic(name: str) -> np.ndarray:
    """One synthetic tensor, the same on every machine: its own generator, seeded by name."""
    rng = np.random.default_rng([SEED, SYNTHETIC.index(name)])
    shape = ck.expected_shapes()[name]
    return rng.standard_normal(shape, dtype=np.float32) * np.float32(std_of(name))


def metadata(synthetic_tensors: Mapping[str, np.ndarray]) -> dict[str, str]:
    """What the stand-in is, its seed, and each synthetic tensor's sha256 (for the loader)."""
    record = {name: ck.sha256_f32(t) for name, t in synthetic_tensors.items()}
    return {**ABOUT, ck.STANDIN_KEY: json.dumps(record, sort_keys=True)}


def is_current_standin(path: Path) -> bool:
    """Whether path is a complete stand-in of this seed: every synthetic tensor as recorded,
    every other tensor official."""
    try:
        found = ck.read_metadata(path)
        tensors = ck.read_tensors(path)
        identity = ck.identify(path, tensors, ck.standin_record(path, found))
    except ck.CheckpointError:
        return False
    return (found.get("seed") == ABOUT["seed"] and set(identity.synthetic) == set(SYNTHETIC)
            and not identity.differing and len(tensors) == len(ck.expected_shapes()))


def _link_tokenizer(source_dir: Path, out: Path) -> None:
    """Symbolic links to the real tokenizer files: never copies of them."""
    for names in (("encoder.json", "vocab.bpe"), ("vocab.json", "merges.txt")):
        if all((source_dir / n).is_file() for n in names):
            if source_dir.resolve() == out.resolve():
                return
            for n in names:
                target, link = (source_dir / n).resolve(), out / n
                if link.is_symlink() or link.exists():
                    link.unlink()
                link.symlink_to(target)
            return
    raise ck.CheckpointError(f"No GPT-2 tokenizer files beside {source_dir} (encoder.json and "
                             "vocab.bpe, or vocab.json and merges.txt): the stand-in links to "
                             "them and cannot be built without them.")


def _official_tensors(src: Path) -> dict[str, np.ndarray]:
    """The tensors of src other than the synthetic ones, each checked to be official."""
    tensors = ck.read_tensors(src)
    ck.validate(tensors, src)
    identity = ck.identify(src, tensors)
    real = {k: v for k, v in tensors.items() if k not in SYNTHETIC}
    not_official = sorted(k for k in real if identity.tensors[k] != ck.T_OFFICIAL)
    if not_official:
        raise ck.CheckpointError(f"{src}: the stand-in is built from GPT-2 small's official "
                                 f"tensors, and these differ: {ck.name_tensors(not_official)}.")
    return real


def build(out: Path | None = None, source: Path | None = None) -> Path:
    """The stand-in folder (model.safetensors, links to the tokenizer files), made from
    ``source`` (default: the checkpoint the book locates), or kept when current."""
    from safetensors.numpy import save_file

    out = out or REPO / "_build" / "standin"
    out.mkdir(parents=True, exist_ok=True)
    target = out / ck.WEIGHTS_FILE
    src = ck.weights_file(source) if source is not None else ck.locate()[0]
    src = Path(os.path.abspath(src))  # symbolic links kept: the tokenizer is beside it
    _link_tokenizer(src.parent, out)
    if target.is_file() and is_current_standin(target):
        return out
    tensors = _official_tensors(src)
    made = {name: synthetic(name) for name in SYNTHETIC}
    tensors.update(made)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    save_file({k: tensors[k] for k in ck.expected_shapes()}, str(tmp), metadata=metadata(made))
    tmp.replace(target)  # atomic: a reader never sees half a file
    if not is_current_standin(target):  # hashes it once; the loader's verdict is cached
        raise ck.CheckpointError(f"{target} was written but the loader does not recognise it "
                                 "as the stand-in: book_tools.standin and "
                                 "attention_book.checkpoint disagree on how it is recorded.")
    return out

