"""Find, check and load the GPT-2 small checkpoint, and say what it is, bit for bit.

Resolution order: the path in ``GPT2_CHECKPOINT`` (a ``model.safetensors`` file or a
folder holding one), then the Hugging Face cache, then a download of
``openai-community/gpt2`` from the Hub, both at the pinned revision ``HUB_REVISION``.
Every problem ends in a ``CheckpointError`` whose message names the problem and what to
do about it; in a notebook it shows as that message alone, without a library traceback.

Identity. Every tensor read is checked against the package's table of fingerprints of
OpenAI's release (``gpt2_small_fingerprints.json``): sha256 of the float32 bytes for the
123 attention, LayerNorm and position tensors; the only offline records of the others (a
git blob sha1 of each MLP weight matrix, a crc32 of ``wte``). The complete official
``model.safetensors`` is recognised by its size and sha256. The outcome, ``provenance``:

- ``OFFICIAL``: every tensor present is OpenAI's, bit for bit;
- ``MODIFIED``: some tensors differ and the reader opted in with
  ``ATTENTION_BOOK_ALLOW_MODIFIED=1`` (without it: a ``CheckpointError`` naming every
  tensor that differs); every page and the ledger then say so, and no claim is reported
  as verified on GPT-2;
- ``STANDIN``: the rehearsal stand-in of ``attention_book.standin`` (official tensors plus
  the package's own synthetic ``wte`` and MLP weights, recognised by their sha256),
  accepted only in a rehearsal (``ATTENTION_BOOK_REHEARSAL=1``) and never GPT-2.

Hashing costs about 0.15 s for the offline checkpoint and 1 s for the full one, so the
verdict is cached in the user's cache folder, keyed on the file's resolved path, size,
mtime, ctime and inode and on the table (``ATTENTION_BOOK_CACHE`` moves the folder;
``ATTENTION_BOOK_CACHE=off`` turns the cache off).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .schema import GPT2_SMALL, is_mlp_weight, tensor_shapes

HUB_REPO = "openai-community/gpt2"
HUB_REVISION = "607a30d783dfa663caf39e06633721c8d4cfcd7e"  # the commit the table describes
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILES = ("vocab.json", "merges.txt")
ENV_VAR = "GPT2_CHECKPOINT"
ALLOW_MODIFIED_VAR = "ATTENTION_BOOK_ALLOW_MODIFIED"
REHEARSAL_VAR = "ATTENTION_BOOK_REHEARSAL"
CACHE_VAR = "ATTENTION_BOOK_CACHE"
TABLE_FILE = Path(__file__).with_name("gpt2_small_fingerprints.json")
VERDICT_FORMAT = 1  # bump when what a cached verdict holds changes


# First values of wpe[0] in GPT-2 small, to 4 decimals: tells "another model" from "a
# modified GPT-2" in messages (the identity itself is decided by the fingerprints).
WPE_FINGERPRINT = np.array([-0.0188, -0.1974, 0.0040, 0.0113, 0.0638, -0.1050], np.float32)

HOW_TO_GET_ONE = (
    "Set GPT2_CHECKPOINT to a GPT-2 small model.safetensors (or the folder holding it), "
    f"or run once with network access so that '{HUB_REPO}' is downloaded into the "
    "Hugging Face cache."
)
HOW_TO_OPT_IN = (
    f"To run the book on these weights anyway (a fine-tuned or ablated GPT-2 you want to "
    f"study), set {ALLOW_MODIFIED_VAR}=1: every chapter and the claims ledger then say "
    "'modified weights: not GPT-2 small as released', and no claim is reported as verified "
    "on GPT-2."
)

OFFICIAL, MODIFIED, STANDIN = "official", "modified", "stand-in"
WEIGHTS_NOTES = {
    OFFICIAL: "",
    MODIFIED: "modified weights: not GPT-2 small as released",
    STANDIN: "stand-in for a rehearsal: real attention tensors with synthetic token "
             "embeddings and MLP weights, never GPT-2",
}
# What one tensor is, by its fingerprint.
T_OFFICIAL, T_STANDIN, T_DIFFERS = "official", "stand-in", "differs"


class CheckpointError(RuntimeError):
    """A checkpoint is missing, unreadable, damaged or not GPT-2 small."""

    def _render_traceback_(self) -> list[str]:  # IPython: the message, no traceback
        return [f"\x1b[1;31mCheckpointError\x1b[0m: {self}"]


def expected_shapes() -> dict[str, tuple[int, ...]]:
    """Every tensor of GPT-2 small with its shape, under Hugging Face key names."""
    return tensor_shapes(GPT2_SMALL)


MLP_WEIGHTS = tuple(k for k in expected_shapes() if is_mlp_weight(k))
OPTIONAL = frozenset(("wte.weight", *MLP_WEIGHTS))
# Causal-mask buffers that some exports carry; they are not parameters.
IGNORED = re.compile(r"^h\.\d+\.attn\.(bias|masked_bias)$")


# ---------------------------------------------------------------- fingerprints

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
    return ("b_Q", "b_K", "b_V") if name.endswith("bias") else ("W_Q", "W_K", "W_V")


def thirds(t: np.ndarray) -> list[np.ndarray]:
    """The Q, K and V parts of a fused c_attn weight [768, 2304] or bias [2304]."""
    return np.split(t, 3, axis=-1)


@functools.lru_cache(maxsize=1)
def fingerprint_table() -> dict:
    """The package's table: official fingerprints, c_attn thirds, the stand-in's hashes."""
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

    @property
    def notes(self) -> dict[str, str]:
        """What differs within a modified c_attn, by tensor name, for messages."""
        return {k: _thirds_note(k, v) for k, v in self.thirds.items() if _thirds_note(k, v)}

    @property
    def differing(self) -> list[str]:
        return _ordered(k for k, v in self.tensors.items() if v == T_DIFFERS)

    @property
    def synthetic(self) -> list[str]:
        return _ordered(k for k, v in self.tensors.items() if v == T_STANDIN)

    @property
    def official(self) -> list[str]:
        return _ordered(k for k, v in self.tensors.items() if v == T_OFFICIAL)

    @property
    def is_complete_standin(self) -> bool:
        standin = set(fingerprint_table()["standin"]["tensors"])
        return (set(self.synthetic) == standin and not self.differing
                and len(self.tensors) == len(expected_shapes()))


def _ordered(names: Iterable[str]) -> list[str]:
    order = {k: i for i, k in enumerate(expected_shapes())}
    return sorted(names, key=lambda k: order.get(k, len(order)))


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


def _thirds_note(name: str, info: dict) -> str:
    """'W_K differs and equals W_Q; W_Q and W_V match'."""
    labels, differ = thirds_labels(name), info["differ"]
    if not differ:
        return ""
    if len(differ) == 3:
        return f"{labels[0]}, {labels[1]} and {labels[2]} all differ"
    same = [lab for lab in labels if lab not in differ]
    text = f"{' and '.join(differ)} differ{'s' if len(differ) == 1 else ''}"
    copies = [f"{lab} equals {other}" for lab, other in info["copies"].items()]
    if len(differ) == 1 and copies:
        text += f" and equals {info['copies'][differ[0]]}"
    elif copies:
        text += ", " + ", ".join(copies)
    return text + f"; {' and '.join(same)} match{'es' if len(same) == 1 else ''}"


def _cache_dir() -> Path | None:
    env = os.environ.get(CACHE_VAR, "").strip()
    if env.lower() in ("off", "0", "none"):
        return None
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attention_book" / "verdicts"


def _cache_key(path: Path) -> dict:
    st = path.stat()
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns, "inode": st.st_ino,
            "table": fingerprint_table()["table_sha256"], "format": VERDICT_FORMAT}


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
    return Identity(data["tensors"], data["whole_file"], data["thirds"])


def _store_identity(key: dict, identity: Identity) -> None:
    file = _cache_file(key)
    if file is None:
        return
    data = {"key": key, "tensors": identity.tensors, "whole_file": identity.whole_file,
            "thirds": identity.thirds}
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(file)
    except OSError:  # a read-only cache costs time, never correctness
        pass


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 24):
            h.update(chunk)
    return h.hexdigest()


def _compute_identity(path: Path, tensors: dict[str, np.ndarray]) -> Identity:
    table = fingerprint_table()
    official = table["official_file"]
    if path.stat().st_size == official["bytes"] and _file_sha256(path) == official["sha256"]:
        return Identity({k: T_OFFICIAL for k in tensors}, whole_file=True)
    standin = table["standin"]["tensors"]
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
    return Identity(verdicts, thirds=which)


def identify(path: Path, tensors: dict[str, np.ndarray]) -> Identity:
    """Compare every tensor with the official fingerprints (the verdict cached per file)."""
    key = _cache_key(path)
    cached = _cached_identity(key)
    if cached is not None and cached.tensors.keys() == tensors.keys():
        return cached
    identity = _compute_identity(path, tensors)
    _store_identity(key, identity)
    return identity


# ---------------------------------------------------------------- messages

def _size(n: int) -> str:
    """A byte count as a person reads it: 117 MB, 5.0 MB, 400 bytes."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            v = n / scale
            return f"{v:.0f} {unit}" if v >= 10 else f"{v:.1f} {unit}"
    return f"{n} bytes"


def _two_sizes(a: int, b: int) -> tuple[str, str]:
    """Two byte counts, rounded unless rounding would make them look equal."""
    if _size(a) != _size(b):
        return _size(a), _size(b)
    return f"{a:,} bytes", f"{b:,} bytes"


def _ranges(numbers: list[int]) -> str:
    """[0, 1, 2, 5] -> '0-2, 5'."""
    out, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            out.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ", ".join(out)


def name_tensors(names: Iterable[str], notes: dict[str, str] | None = None) -> str:
    """Every name, listed; more than 12 are grouped by layer ('h.{0-11}.ln_1.weight')."""
    names, notes = _ordered(names), notes or {}
    if len(names) <= 12:
        return ", ".join(n + (f" ({notes[n]})" if n in notes else "") for n in names)
    layers: dict[str, list[int]] = {}
    rest = []
    for n in names:
        m = re.match(r"h\.(\d+)\.(.+)$", n)
        if m:
            layers.setdefault(m.group(2), []).append(int(m.group(1)))
        else:
            rest.append(n)
    parts = rest + [f"h.{{{_ranges(sorted(ls))}}}.{suffix}" if len(ls) > 1
                    else f"h.{ls[0]}.{suffix}" for suffix, ls in layers.items()]
    return ", ".join(parts) + " (h.{a-b} stands for the layers a to b)"


def _differs_message(path: Path, identity: Identity, tensors: dict[str, np.ndarray]) -> str:
    differ = identity.differing
    n = len(tensors)
    wpe_far = ("wpe.weight" in differ and not np.allclose(
        tensors["wpe.weight"][0, :len(WPE_FINGERPRINT)], WPE_FINGERPRINT, atol=5e-5))
    verb = "differs" if len(differ) == 1 else "differ"
    lines = [f"{path} has GPT-2 small's shapes but not its weights: {len(differ)} of {n} "
             f"tensors {verb} from OpenAI's release, bit for bit: "
             f"{name_tensors(differ, identity.notes)}."]
    if wpe_far or len(differ) == n:
        lines.append("It is another model with GPT-2 small's shapes, or GPT-2 retrained; "
                     "the book's findings are about GPT-2 small as released.")
    else:
        lines.append("It is a modified copy (fine-tuned, ablated, edited or damaged): the book "
                     "reports facts about GPT-2 small as released and will not present these "
                     "weights as GPT-2.")
    if set(differ) & set(fingerprint_table()["standin"]["tensors"]):
        lines.append("(The book's rehearsal stand-in is recognised only by the exact tensors "
                     "attention_book.standin generates.)")
    lines.append("For GPT-2 small itself: " + HOW_TO_GET_ONE[0].lower() + HOW_TO_GET_ONE[1:])
    lines.append(HOW_TO_OPT_IN)
    return "\n".join(lines)


def _standin_message(path: Path) -> str:
    return (f"{path} is the book's rehearsal stand-in (GPT-2 small's attention tensors with "
            "synthetic token embeddings and MLP weights from attention_book.standin): it is "
            "never GPT-2, and only the rehearsal (make rehearsal, which sets "
            f"{REHEARSAL_VAR}=1) runs on it. " + HOW_TO_GET_ONE)


# ---------------------------------------------------------------- the checkpoint

@dataclass(frozen=True)
class Checkpoint:
    """The tensors of GPT-2 small that a checkpoint holds, checked and named."""

    tensors: dict[str, np.ndarray]
    path: Path
    source: str  # "GPT2_CHECKPOINT", "Hugging Face cache" or "Hugging Face Hub"
    provenance: str = OFFICIAL  # OFFICIAL, MODIFIED (opted in) or STANDIN (rehearsal)
    identity: Identity | None = None  # None: not compared with the fingerprints

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

    def found(self) -> str:
        """What the weights are, in one sentence: the first thing every chapter prints."""
        total, n = len(expected_shapes()), len(self.tensors)
        ident = self.identity
        if ident is None:
            return f"GPT-2 small checkpoint, not compared with the official fingerprints ({n} " \
                   f"of {total} tensors present)"
        if self.provenance == MODIFIED:
            k = len(ident.differing)
            return (f"{WEIGHTS_NOTES[MODIFIED]} ({ALLOW_MODIFIED_VAR}=1): {k} of {n} tensors "
                    f"{'differs' if k == 1 else 'differ'} from OpenAI's release: "
                    f"{name_tensors(ident.differing, ident.notes)}")
        if self.provenance == STANDIN:
            return (f"{WEIGHTS_NOTES[STANDIN]}: {len(ident.official)} official GPT-2 small "
                    f"tensors, bit for bit, and {len(ident.synthetic)} synthetic ones "
                    "(attention_book.standin); nothing measured on it is a fact about GPT-2")
        if ident.whole_file:
            table = fingerprint_table()["official_file"]
            return (f"official GPT-2 small, bit for bit: the complete {WEIGHTS_FILE} of "
                    f"{table['hub_repo']} (revision {table['revision'][:7]}, "
                    f"{_size(table['bytes'])}, sha256 {table['sha256'][:12]}...), "
                    f"{n} of {total} tensors")
        how = "sha256"
        if set(self.tensors) & OPTIONAL:
            how = "sha256; wte by its crc32, the MLP weight matrices by their git blob sha1"
        return (f"official GPT-2 small tensors, bit for bit ({n} of {total} present; "
                f"checked by {how})")

    def describe(self) -> str:
        n = sum(t.size for t in self.tensors.values())
        kind = "full" if self.is_full else "partial (attention tensors only)"
        lines = [self.found(),
                 f"checkpoint: {kind}, {len(self.tensors)} tensors, {n:,} parameters, "
                 f"from {self.source} ({self.path})"]
        if not self.is_full:
            lack = [what for what, absent in (("the token embeddings (wte)", not self.has_wte),
                                              ("the MLP weight matrices",
                                               not self.has_mlp_weights)) if absent]
            lines.append(f"missing: {' and '.join(lack)}: the claims that need them are not "
                         "verified in this build")
        return "\n".join(lines)


# ---------------------------------------------------------------- reading

_ITEMSIZE = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8, "BOOL": 1, "U8": 1, "I8": 1,
             "I16": 2, "U16": 2, "I32": 4, "U32": 4, "I64": 8, "U64": 8}


def _not_safetensors(path: Path, head: bytes, size: int) -> CheckpointError:
    """Why a file whose first 8 bytes are not a plausible header length is not one."""
    if head.startswith(b"version https://git-lfs"):
        what = (f"a Git LFS pointer ({_size(size)}), not the weights it points to: fetch the "
                "file itself (git lfs pull) or download it again")
    elif head.startswith(b"PK\x03\x04"):
        what = ("a zip archive (a PyTorch .bin or .pt checkpoint?): use the "
                f"{WEIGHTS_FILE} of the same model")
    elif head.startswith(b"\x80"):
        what = "a Python pickle (an old PyTorch checkpoint?)"
    elif head[:64].isascii() and head[:64].strip():
        text = " ".join(head[:40].decode("ascii", "replace").split())
        what = f"text beginning with '{text}' (an error page saved in its place?)"
    else:
        what = "binary data without a safetensors header, or a file cut short"
    return CheckpointError(f"{path} is not a safetensors file: it is {what}. " + HOW_TO_GET_ONE)


def _check_entry(path: Path, name: str, info: object) -> tuple[str, list[int], list[int]]:
    bad = CheckpointError(f"{path} has a corrupt safetensors header: the entry of tensor "
                          f"'{name}' is not a dtype, a shape and two data offsets. "
                          "Download it again. " + HOW_TO_GET_ONE)
    if not isinstance(info, dict):
        raise bad
    dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    def ints(xs, n=None):
        return (isinstance(xs, list) and (n is None or len(xs) == n)
                and all(isinstance(x, int) and x >= 0 for x in xs))
    if not isinstance(dtype, str) or not ints(shape) or not ints(offsets, 2) \
            or offsets[0] > offsets[1]:
        raise bad
    return dtype, shape, offsets


def _read_header(path: Path) -> dict:
    """Parse and sanity-check a safetensors header without trusting it."""
    size = path.stat().st_size
    if size < 8:
        raise CheckpointError(f"{path} is empty or truncated ({size} bytes). "
                              "Download it again. " + HOW_TO_GET_ONE)
    try:
        with path.open("rb") as f:
            head = f.read(min(size, 1 << 16))
            (n,) = struct.unpack("<Q", head[:8])
            if n > size - 8 or n > 100_000_000:
                if n < 100_000_000 and head[8:9] == b"{":
                    has, wants = _two_sizes(size, n + 8)
                    raise CheckpointError(
                        f"{path} is truncated: it has {has} and its safetensors header alone "
                        f"needs {wants}. Download it again. " + HOW_TO_GET_ONE)
                raise _not_safetensors(path, head, size)
            f.seek(8)
            raw = f.read(n)
    except OSError as e:
        raise CheckpointError(f"{path} cannot be read ({e.strerror or e}). "
                              + HOW_TO_GET_ONE) from None
    try:
        header = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CheckpointError(f"{path} has an unreadable safetensors header (not JSON). "
                              "The file is corrupt or not safetensors. " + HOW_TO_GET_ONE) from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path} has a corrupt safetensors header (not a table of "
                              "tensors). " + HOW_TO_GET_ONE)
    header.pop("__metadata__", None)
    for name, info in header.items():
        dtype, shape, (start, end) = _check_entry(path, name, info)
        if dtype != "F32" and not IGNORED.match(name.removeprefix("transformer.")):
            raise CheckpointError(f"{path}: tensor '{name}' is stored as {dtype}; GPT-2 "
                                  "small's weights are float32 (F32), and the book's tolerances "
                                  "assume them. Use the original float32 checkpoint. "
                                  + HOW_TO_GET_ONE)
        want = int(np.prod(shape, dtype=np.int64)) * _ITEMSIZE.get(dtype, 1)
        if end - start != want:
            raise CheckpointError(f"{path}: the header says tensor '{name}' has shape "
                                  f"{shape} ({want:,} bytes) but gives it "
                                  f"{end - start:,} bytes. The file is corrupt. " + HOW_TO_GET_ONE)
    needed = 8 + n + max((info["data_offsets"][1] for info in header.values()), default=0)
    if needed > size:
        has, wants = _two_sizes(size, needed)
        raise CheckpointError(f"{path} is truncated: it has {has} and its header describes "
                              f"{wants}. Download it again. " + HOW_TO_GET_ONE)
    return header


def read_tensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file as a float32 numpy array, keys normalised.

    The arrays are copy-on-write views of a memory map of the file: reading costs nothing
    until a tensor is used, two processes share the pages, and writing into an array
    changes this process's copy only, never the file."""
    import mmap

    header = _read_header(path)
    try:
        with path.open("rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError) as e:
        raise CheckpointError(f"{path} cannot be read ({e}). " + HOW_TO_GET_ONE) from None
    tensors, raw_names = {}, {}
    for raw, info in header.items():
        key = raw.removeprefix("transformer.")
        if IGNORED.match(key):
            continue
        if key in tensors:
            raise CheckpointError(f"{path} holds '{key}' twice (as '{raw_names[key]}' and "
                                  f"'{raw}'): which one is GPT-2's cannot be told. "
                                  + HOW_TO_GET_ONE)
        start = 8 + n + info["data_offsets"][0]
        t = np.frombuffer(mapped, "<f4", int(np.prod(info["shape"], dtype=np.int64)), start)
        tensors[key], raw_names[key] = t.reshape(info["shape"]), raw
    return tensors


def validate(tensors: dict[str, np.ndarray], path: Path) -> None:
    """Refuse anything that is not (a subset of) GPT-2 small's tensors with its shapes."""
    shapes = expected_shapes()
    unknown = _ordered(set(tensors) - set(shapes))
    if unknown:
        raise CheckpointError(f"{path} holds {len(unknown)} tensors GPT-2 small does not have "
                              f"(first: {', '.join(unknown[:3])}); it is another model. "
                              + HOW_TO_GET_ONE)
    wrong = [k for k in _ordered(tensors) if tensors[k].shape != shapes[k]]
    if wrong:
        name, got, want = wrong[0], tuple(tensors[wrong[0]].shape), shapes[wrong[0]]
        hint = (" It is stored transposed ([out, in], as torch.nn.Linear does); GPT-2's "
                "Conv1D layers store [in, out]." if got == want[::-1] and got != want else "")
        more = f" ({len(wrong) - 1} more tensors have other shapes too)" if len(wrong) > 1 else ""
        raise CheckpointError(f"{path}: tensor '{name}' has shape {got}, GPT-2 small needs "
                              f"{want}{more}.{hint} This is not a GPT-2 small checkpoint. "
                              + HOW_TO_GET_ONE)
    required = _ordered(set(shapes) - OPTIONAL - tensors.keys())
    if required:
        verb = "tensor is" if len(required) == 1 else "tensors are"
        raise CheckpointError(f"{path} does not hold GPT-2 small: {len(required)} required "
                              f"{verb} missing: {name_tensors(required)}. " + HOW_TO_GET_ONE)


def _check_finite(tensors: dict[str, np.ndarray], names: list[str], path: Path) -> None:
    bad = {k: int((~np.isfinite(tensors[k])).sum()) for k in names}
    bad = {k: v for k, v in bad.items() if v}
    if not bad:
        return
    if len(bad) == 1:
        (k, v), = bad.items()
        where = f"tensor '{k}' holds {v:,} NaN or infinite values"
    else:
        where = ("tensors " + ", ".join(f"'{k}' ({v:,})" for k, v in bad.items())
                 + " hold NaN or infinite values")
    raise CheckpointError(f"{path}: {where}. The file is damaged; download it again. "
                          + HOW_TO_GET_ONE)


def _weights_file(p: Path) -> Path:
    if p.is_symlink() and not p.exists():
        raise CheckpointError(f"{ENV_VAR}={p} is a broken symbolic link (to "
                              f"{os.readlink(p)}). " + HOW_TO_GET_ONE)
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

    cached = hub.try_to_load_from_cache(HUB_REPO, WEIGHTS_FILE, revision=HUB_REVISION)
    if isinstance(cached, str):
        return Path(cached), "Hugging Face cache"
    try:
        for name in TOKENIZER_FILES:
            hub.hf_hub_download(HUB_REPO, name, revision=HUB_REVISION)
        path = hub.hf_hub_download(HUB_REPO, WEIGHTS_FILE, revision=HUB_REVISION)
        return Path(path), "Hugging Face Hub"
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


def _flag(var: str) -> bool:
    return os.environ.get(var, "").strip().lower() in ("1", "true", "yes")


@functools.lru_cache(maxsize=4)
def _load(path: Path, source: str, allow_modified: bool = False,
          rehearsal: bool = False) -> Checkpoint:
    tensors = read_tensors(path)
    validate(tensors, path)
    identity = identify(path, tensors)
    _check_finite(tensors, identity.differing, path)
    if identity.differing:
        if not allow_modified:
            raise CheckpointError(_differs_message(path, identity, tensors))
        provenance = MODIFIED
    elif identity.synthetic:
        if not rehearsal:
            raise CheckpointError(_standin_message(path))
        provenance = STANDIN
    else:
        provenance = OFFICIAL
    return Checkpoint(tensors=tensors, path=path, source=source, provenance=provenance,
                      identity=identity)


def load_checkpoint() -> Checkpoint:
    """Locate, read and check GPT-2 small; loaded once per process and path."""
    path, source = locate()
    # Absolute, symbolic links kept: the tokenizer files are looked for beside this path
    # (in the Hugging Face cache the weights file links to a blob with a hashed name).
    path = Path(os.path.abspath(path))
    return _load(path, source, _flag(ALLOW_MODIFIED_VAR), _flag(REHEARSAL_VAR))
