"""The rehearsal stand-in: a full-shaped checkpoint that is never GPT-2.

The offline checkpoint lacks GPT-2 small's token embeddings (``wte``) and its 24 MLP
weight matrices, so the chapters' full-checkpoint branches (real tokens through the whole
model: L4, Q6, I2, M1, M2, S4 and V3 on token rows) cannot run on it. The stand-in lets
them run: the 123 real attention, LayerNorm and position tensors, bit for bit, plus
*synthetic* ``wte`` and MLP weights drawn here from a fixed seed at GPT-2's
initialisation scale (normal, std 0.02; the MLP's output projection 0.02 / sqrt(24), as
GPT-2 scales residual projections), so that a forward pass stays numerically sane.

The loader (``attention_book.checkpoint``) recognises the synthetic tensors by their
sha256, recorded in the package's fingerprint table, so only what this module generates
is a stand-in. It marks the checkpoint ``STANDIN``, refuses it outside a rehearsal
(``ATTENTION_BOOK_REHEARSAL=1``), and every page and ledger entry written on it says it is
not GPT-2. ``book_tools.rehearsal`` builds it under ``_build/standin`` (git-ignored) with
symbolic links to the real folder's tokenizer files, and runs every chapter on it.

Usage (maintainers):
    python -m attention_book.standin build [OUT_DIR]
    python -m attention_book.standin table SHARED_FINGERPRINTS_JSON
        rewrites the package's fingerprint table from the shared record of the official
        tensors, the official offline tensors (GPT2_CHECKPOINT) and this module's seed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

from . import checkpoint as ck
from .schema import GPT2_SMALL

SEED = 20_190_214  # GPT-2's release date; any fixed number would do
SYNTHETIC = ("wte.weight", *ck.MLP_WEIGHTS)  # what the offline checkpoint lacks
METADATA = {"what": "attention_book rehearsal stand-in: real attention tensors, synthetic "
                    "wte and MLP weights; NOT GPT-2 small", "seed": str(SEED)}


def std_of(name: str) -> float:
    """GPT-2's initialisation scale: 0.02, and 0.02 / sqrt(2 n_layer) for residual writes."""
    return 0.02 / math.sqrt(2 * GPT2_SMALL.n_layer) if name.endswith("mlp.c_proj.weight") else 0.02


def synthetic(name: str) -> np.ndarray:
    """One synthetic tensor, the same on every machine: its own generator, seeded by name."""
    rng = np.random.default_rng([SEED, SYNTHETIC.index(name)])
    shape = ck.expected_shapes()[name]
    return rng.standard_normal(shape, dtype=np.float32) * np.float32(std_of(name))


def synthetic_fingerprints() -> dict[str, str]:
    """sha256 of every synthetic tensor, as the package's table records them."""
    return {name: ck.sha256_f32(synthetic(name)) for name in SYNTHETIC}


def default_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "_build" / "standin"


def _is_current_standin(path: Path) -> bool:
    try:
        identity = ck.identify(path, ck.read_tensors(path))
    except ck.CheckpointError:
        return False
    return identity.is_complete_standin


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


def build(out: Path | None = None, source: Path | None = None) -> Path:
    """Write the stand-in folder (model.safetensors + links to the tokenizer files).

    ``source``: a GPT-2 small checkpoint (file or folder; default: the one the book
    locates). Its tensors other than wte and the MLP weights must be official, bit for bit.
    An existing stand-in is kept when it is current. Returns the folder.
    """
    out = out or default_dir()
    out.mkdir(parents=True, exist_ok=True)
    target = out / ck.WEIGHTS_FILE
    src = ck._weights_file(source) if source is not None else ck.locate()[0]
    src = Path(os.path.abspath(src))  # symbolic links kept: the tokenizer is beside it
    _link_tokenizer(src.parent, out)
    if target.is_file() and _is_current_standin(target):
        return out
    tensors = ck.read_tensors(src)
    ck.validate(tensors, src)
    identity = ck.identify(src, tensors)
    real = {k: v for k, v in tensors.items() if k not in SYNTHETIC}
    not_official = sorted(k for k in real if identity.tensors[k] != ck.T_OFFICIAL)
    if not_official:
        raise ck.CheckpointError(f"{src}: the stand-in is built from GPT-2 small's official "
                                 f"tensors, and these differ: {ck.name_tensors(not_official)}.")
    from safetensors.numpy import save_file

    real.update({name: synthetic(name) for name in SYNTHETIC})
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    save_file({k: real[k] for k in ck.expected_shapes()}, str(tmp), metadata=METADATA)
    tmp.replace(target)  # atomic: a reader never sees half a file
    if not _is_current_standin(target):  # hashes it once; the loader's verdict is cached
        raise ck.CheckpointError(f"{target} was written but is not recognised as the stand-in: "
                                 "the fingerprint table and attention_book.standin disagree "
                                 "(python -m attention_book.standin table ...).")
    return out


def write_table(shared: Path, table: Path = ck.TABLE_FILE) -> dict:
    """The package's fingerprint table, from the shared record of the official tensors.

    Official records are copied from ``shared``. The thirds of every ``c_attn`` (W_Q, W_K,
    W_V and their biases) are hashed from the offline tensors (GPT2_CHECKPOINT), after each
    whole tensor is checked against the shared sha256, so that an error can say which third
    of a modified c_attn differs. The stand-in's tensors are hashed from this module.
    """
    record = json.loads(shared.read_text())
    path = ck.locate()[0]
    tensors = ck.read_tensors(path)
    entries = {}
    for name, info in record["tensors"].items():
        entry = {k: v for k, v in info.items() if k != "row0_first10_4dp"}
        if name in tensors and name.endswith(("c_attn.weight", "c_attn.bias")):
            t = tensors[name]
            if ck.sha256_f32(t) != info["sha256"]:
                raise ValueError(f"{path}: {name} is not the official tensor")
            entry["thirds"] = {label: ck.sha256_f32(third)
                               for label, third in zip(ck.thirds_labels(name), ck.thirds(t),
                                                       strict=True)}
        entries[name] = entry
    data = {
        "about": "GPT-2 small (124M) as OpenAI released it, tensor by tensor, Hugging Face key "
                 "names and [in, out] layout, from the project's shared record: sha256 of the "
                 "float32 little-endian bytes in C order; for the MLP weight matrices the git "
                 "blob sha1 of the float32 big-endian bytes; for wte the crc32 of its float32 "
                 "big-endian bytes and their count. 'thirds': sha256 of W_Q, W_K, W_V (or "
                 "their biases) within c_attn. 'standin': sha256 of the synthetic tensors of "
                 "attention_book.standin, which are never GPT-2.",
        "official_file": record["official_file"],
        "tensors": entries,
        "standin": {"seed": SEED, "tensors": synthetic_fingerprints()},
    }
    table.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    return data


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("out", nargs="?", type=Path)
    t = sub.add_parser("table")
    t.add_argument("shared", type=Path)
    args = ap.parse_args(argv)
    if args.command == "build":
        print(build(args.out))
    else:
        write_table(args.shared)
        print(ck.TABLE_FILE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
