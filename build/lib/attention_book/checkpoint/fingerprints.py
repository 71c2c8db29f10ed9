"""What a checkpoint's tensors are, compared with OpenAI's release, bit for bit.

The package's table (``gpt2_small_fingerprints.json``) records the sha256 of the float32
bytes of the 123 attention, LayerNorm and position tensors, and the only offline records of
the others (a git blob sha1 of each MLP weight matrix, a crc32 of ``wte``); the complete
official ``model.safetensors`` is recognised by its size and sha256.

A tensor that is not official may be one of the rehearsal stand-in's synthetic tensors:
only ``wte`` or an MLP weight matrix, and only when it matches the sha256 that the file's
own metadata records for it (``names.STANDIN_KEY``). Whether such a file is accepted is the
loader's decision (only in a rehearsal), never this module's.

Hashing costs about 0.15 s for the offline checkpoint and 1 s for the full one, so the
verdict is cached in the user's cache folder, keyed on the file's resolved path, size,
mtime, ctime and inode, on the table and on the stand-in record (``ATTENTION_BOOK_CACHE``
moves the folder; ``ATTENTION_BOOK_CACHE=off`` turns the cache off).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .names import CACHE_VAR, OPTIONAL, ordered

TABLE_FILE = Path(__file__).resolve().parent.parent / "gpt2_small_fingerprints.json"
VERDICT_FORMAT = 2  # bump when what a cached verdict holds changes

# What one tensor is, by its fingerprint.
T_OFFICIAL, T_STANDIN, T_DIFFERS = "official", "stand-in", "differs"


def sha256_f32(t: np.ndarray) -> str:
    """sha256 of a tensor's float32 little-endian bytes in C order."""
    return hashlib.sha256(np.ascontiguousarray(t, "<f4")).hexdigest()


def git_blob_sha1_f32be(t: np.ndarray) -> str:
    """The git blob hash of a tensor's float32 big-endian bytes in C order."""
    b = np.ascontiguousarray(t, ">f4")
    h = hashlib.sha1(b"blob %d\0" % b.nbytes)
    h.update(b)
    return h.hexdigest()


def crc32_f32be(t: np.ndarray) -> str:
    """zlib's crc32 of a tensor's float32 big-endian bytes in C order, 8 hex digits."""
    return f"{zlib.crc32(np.ascontiguousarray(t, '>f4')) & 0xFFFFFFFF:08x}"


def thirds_labels(name: str) -> tuple[str, str, str]:
    """The names of a fused c_attn's three parts: W_Q, W_K, W_V (b_Q, b_K, b_V for the bias)."""
    return ("b_Q", "b_K", "b_V") if name.endswith("bias") else ("W_Q", "W_K", "W_V")


def thirds(t: np.ndarray) -> list[np.ndarray]:
    """The Q, K and V parts of a fused c_attn weight [768, 2304] or bias [2304]."""
    return np.split(t, 3, axis=-1)


@functools.lru_cache(maxsize=1)
def fingerprint_table() -> dict:
    """The package's table: official fingerprints and the sha256 of each c_attn's thirds."""
    raw = TABLE_FILE.read_bytes()
    table = json.loads(raw)
    table["table_sha256"] = hashlib.sha256(raw).hexdigest()
    return table


def _matches_official(name: str, t: np.ndarray, rec: dict) -> bool:
    if "sha256" in rec:
        return sha256_f32(t) == rec["sha256"]
    if "git_blob_sha1_f32be" in rec:
        return git_blob_sha1_f32be(t) == rec["git_blob_sha1_f32be"]
    if "crc32_f32be" in rec:
        return t.nbytes == rec["bytes"] and crc32_f32be(t) == rec["crc32_f32be"]
    raise KeyError(f"the fingerprint table has no usable record of {name}")


@dataclass(frozen=True)
class Identity:
    """What a checkpoint's tensors are, compared with OpenAI's release."""

    tensors: dict[str, str]  # name -> T_OFFICIAL, T_STANDIN or T_DIFFERS
    whole_file: bool = False  # the complete official model.safetensors, by size and sha256
    thirds: dict[str, dict] = field(default_factory=dict)  # c_attn name -> which thirds differ
    declared: tuple[str, ...] = ()  # the tensors the file's stand-in record names

    @property
    def differing(self) -> list[str]:
        return ordered(k for k, v in self.tensors.items() if v == T_DIFFERS)

    @property
    def synthetic(self) -> list[str]:
        return ordered(k for k, v in self.tensors.items() if v == T_STANDIN)

    @property
    def official(self) -> list[str]:
        return ordered(k for k, v in self.tensors.items() if v == T_OFFICIAL)


def _compare_thirds(name: str, t: np.ndarray, rec: dict) -> dict | None:
    """Which of W_Q, W_K, W_V (or b_Q, b_K, b_V) of a modified c_attn differ, and which of
    those are copies of another third."""
    if "thirds" not in rec:
        return None
    labels, parts = thirds_labels(name), thirds(t)
    differ = [i for i, lab in enumerate(labels) if sha256_f32(parts[i]) != rec["thirds"][lab]]
    copies = {labels[i]: labels[j] for i in differ for j in range(3)
              if j != i and np.array_equal(parts[i], parts[j])}
    return {"differ": [labels[i] for i in differ], "copies": copies}


# ---------------------------------------------------------------- the verdict cache

def _cache_dir() -> Path | None:
    env = os.environ.get(CACHE_VAR, "").strip()
    if env.lower() in ("off", "0", "none"):
        return None
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attention_book" / "verdicts"


def _cache_key(path: Path, standin: Mapping[str, str]) -> dict:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns, "inode": st.st_ino,
            "table": fingerprint_table()["table_sha256"], "format": VERDICT_FORMAT,
            "standin": dict(sorted(standin.items()))}


def _cache_file(key: dict) -> Path | None:
    folder = _cache_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]
    return folder / f"{digest}.json"


def _cached_identity(key: dict) -> Identity | None:
    file = _cache_file(key)
    try:
        data = json.loads(file.read_text()) if file else None
    except (OSError, ValueError):
        return None
    if not data or data.get("key") != key:
        return None
    return Identity(data["tensors"], data["whole_file"], data["thirds"], tuple(data["declared"]))


def _store_identity(key: dict, identity: Identity) -> None:
    file = _cache_file(key)
    if file is None:
        return
    data = {"key": key, "tensors": identity.tensors, "whole_file": identity.whole_file,
            "thirds": identity.thirds, "declared": list(identity.declared)}
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(file)
    except OSError:  # a read-only cache costs time, never correctness
        pass


# ---------------------------------------------------------------- identity

def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 24):
            h.update(chunk)
    return h.hexdigest()


def _compute_identity(path: Path, tensors: Mapping[str, np.ndarray],
                      standin: Mapping[str, str]) -> Identity:
    table = fingerprint_table()
    official = table["official_file"]
    if path.stat().st_size == official["bytes"] and _file_sha256(path) == official["sha256"]:
        return Identity({k: T_OFFICIAL for k in tensors}, whole_file=True)
    # A stand-in replaces only what the offline checkpoint lacks: wte and the MLP weights.
    standin = {k: v for k, v in standin.items() if k in OPTIONAL}
    verdicts, which = {}, {}
    for name, t in tensors.items():
        rec = table["tensors"][name]
        if _matches_official(name, t, rec):
            verdicts[name] = T_OFFICIAL
        elif name in standin and sha256_f32(t) == standin[name]:
            verdicts[name] = T_STANDIN
        else:
            verdicts[name] = T_DIFFERS
            if (info := _compare_thirds(name, t, rec)) is not None:
                which[name] = info
    return Identity(verdicts, thirds=which, declared=tuple(ordered(standin)))


def identify(path: Path, tensors: Mapping[str, np.ndarray],
             standin: Mapping[str, str] | None = None) -> Identity:
    """Compare every tensor with the official fingerprints (the verdict cached per file).

    ``standin``: the sha256 the file's metadata records for its synthetic tensors, if any
    (``safetensors_file.standin_record``)."""
    standin = standin or {}
    key = _cache_key(path, standin)
    cached = _cached_identity(key)
    if cached is not None and cached.tensors.keys() == tensors.keys():
        return cached
    identity = _compute_identity(path, tensors, standin)
    _store_identity(key, identity)
    return identity
