"""Read a safetensors file through the safetensors library, and refuse what is not GPT-2
small's tensors.

The library parses and validates the header: every entry, and that the tensors' data lie
end to end and fill the file. When it refuses a file, ``_refusal`` tells the reader which
kind of file it is: empty, truncated, a Git LFS pointer, an archive or a pickle, a saved
error page, or a header that is corrupt (naming the tensor whose entry is wrong). The
tensors are copy-on-write views of a memory map of the file, laid out in the order of their
offsets as the library checked them (its numpy reader would copy every tensor into memory:
each chapter would pay that for the checkpoint and its three controls).
"""

from __future__ import annotations

import json
import mmap
import re
import struct
from pathlib import Path

import numpy as np
from safetensors import SafetensorError, safe_open

from .messages import HOW_TO_GET_ONE, CheckpointError, name_tensors, not_safetensors, two_sizes
from .names import IGNORED, OPTIONAL, STANDIN_KEY, expected_shapes, ordered

_ITEMSIZE = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2,
             "I16": 2, "U16": 2, "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}
_MAX_HEADER = 100_000_000
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _open(path: Path) -> tuple[list[tuple[str, str, list[int]]], dict, int]:
    """(name, dtype, shape) of every tensor in the order of its data, the free-form
    metadata, and the offset where the data start."""
    try:
        with safe_open(str(path), framework="np") as f:
            entries = [(n, (s := f.get_slice(n)).get_dtype(), s.get_shape())
                       for n in f.offset_keys()]
            metadata = f.metadata() or {}
        with path.open("rb") as f:
            (header_bytes,) = struct.unpack("<Q", f.read(8))
    except SafetensorError as e:
        raise _refusal(path, str(e)) from None
    except OSError as e:
        raise CheckpointError(f"{path} cannot be read ({e.strerror or e}). "
                              + HOW_TO_GET_ONE) from None
    return entries, metadata, 8 + header_bytes


def _refusal(path: Path, reason: str) -> CheckpointError:
    """What a file the library cannot read is, tensor by tensor where its header says."""
    nbytes = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(1 << 16)
    if nbytes < 8:
        return CheckpointError(f"{path} is empty or truncated ({nbytes} bytes). "
                               "Download it again. " + HOW_TO_GET_ONE)
    (n,) = struct.unpack("<Q", head[:8])
    if n + 8 > nbytes or n >= _MAX_HEADER:
        if n >= _MAX_HEADER or head[8:9] != b"{":
            return not_safetensors(path, head, nbytes)
        has, wants = two_sizes(nbytes, n + 8)
        return CheckpointError(f"{path} is truncated: it has {has} and its safetensors header "
                               f"alone needs {wants}. Download it again. " + HOW_TO_GET_ONE)
    try:
        with path.open("rb") as f:
            header = json.loads(f.read(n + 8)[8:])
        entries = {k: v for k, v in header.items() if k != "__metadata__"}
    except (ValueError, AttributeError):  # not JSON, not an object
        entries = {}
    ends = [v["data_offsets"][1] for v in entries.values()
            if isinstance(v, dict) and isinstance(v.get("data_offsets"), list)]
    if 8 + n + max(ends, default=0) > nbytes:
        has, wants = two_sizes(nbytes, 8 + n + max(ends))
        return CheckpointError(f"{path} is truncated: it has {has} and its header describes "
                               f"{wants}. Download it again. " + HOW_TO_GET_ONE)
    why = _wrong_entry(entries) or re.sub(  # (the library's words, without its JSON position)
        r" at line \d+ column \d+$", "", reason.removeprefix("Error while deserializing header: "))
    return CheckpointError(f"{path} has a corrupt safetensors header: {why}. The file is "
                           "corrupt or not safetensors; download it again. " + HOW_TO_GET_ONE)


def _wrong_entry(entries: dict) -> str | None:
    """The first entry that is not a dtype, a shape and the bytes they need."""
    for name, info in entries.items():
        try:
            start, end = info["data_offsets"]
            want = int(np.prod(info["shape"], dtype=np.int64)) * _ITEMSIZE[info["dtype"]]
            if end < start:
                raise ValueError
        except (TypeError, KeyError, ValueError):
            return f"the entry of tensor '{name}' is not a dtype, a shape and two data offsets"
        if end - start != want:
            return (f"the header says tensor '{name}' has shape {info['shape']} ({want:,} "
                    f"bytes) but gives it {end - start:,} bytes")
    return None


def read_metadata(path: Path) -> dict:
    """The free-form ``__metadata__`` of a safetensors file ({} when it has none)."""
    return _open(path)[1]


def standin_record(path: Path, metadata: dict) -> dict[str, str]:
    """The sha256 that a rehearsal stand-in records for its synthetic tensors ({} for any
    other file). Only a record: whether the tensors match it is for the fingerprints."""
    if STANDIN_KEY not in metadata:
        return {}
    try:
        record = json.loads(metadata[STANDIN_KEY])
    except (TypeError, json.JSONDecodeError):
        record = None
    if not isinstance(record, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and _SHA256.match(v)
            for k, v in record.items()):
        raise CheckpointError(f"{path}: its safetensors metadata has an unreadable stand-in "
                              f"record ({STANDIN_KEY}): not a table of tensor names and "
                              "sha256. If it is the rehearsal stand-in, make rehearsal builds "
                              "it again. " + HOW_TO_GET_ONE)
    return record


def read_tensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file as a float32 numpy array, keys normalised.

    The arrays are copy-on-write views of a memory map of the file: reading costs nothing
    until a tensor is used, two processes share the pages, and writing into an array
    changes this process's copy only, never the file."""
    entries, _, offset = _open(path)
    try:
        with path.open("rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError) as e:
        raise CheckpointError(f"{path} cannot be read ({e}). " + HOW_TO_GET_ONE) from None
    tensors, raw_names = {}, {}
    for raw, dtype, shape in entries:
        key, count, start = raw.removeprefix("transformer."), int(np.prod(shape)), offset
        offset += count * _ITEMSIZE.get(dtype, 0)
        if IGNORED.match(key):
            continue
        if dtype != "F32":
            raise CheckpointError(f"{path}: tensor '{raw}' is stored as {dtype}; GPT-2 small's "
                                  "weights are float32 (F32), and the book's tolerances assume "
                                  "them. Use the original float32 checkpoint. " + HOW_TO_GET_ONE)
        if key in tensors:
            raise CheckpointError(f"{path} holds '{key}' twice (as '{raw_names[key]}' and "
                                  f"'{raw}'): which one is GPT-2's cannot be told. "
                                  + HOW_TO_GET_ONE)
        tensors[key] = np.frombuffer(mapped, "<f4", count, start).reshape(shape)
        raw_names[key] = raw
    return tensors


def validate(tensors: dict[str, np.ndarray], path: Path) -> None:
    """Refuse anything that is not (a subset of) GPT-2 small's tensors with its shapes."""
    shapes = expected_shapes()
    unknown = ordered(set(tensors) - set(shapes))
    if unknown:
        raise CheckpointError(f"{path} holds {len(unknown)} tensors GPT-2 small does not have "
                              f"(first: {', '.join(unknown[:3])}); it is another model. "
                              + HOW_TO_GET_ONE)
    wrong = [k for k in ordered(tensors) if tensors[k].shape != shapes[k]]
    if wrong:
        name, got, want = wrong[0], tuple(tensors[wrong[0]].shape), shapes[wrong[0]]
        hint = (" It is stored transposed ([out, in], as torch.nn.Linear does); GPT-2's "
                "Conv1D layers store [in, out]." if got == want[::-1] and got != want else "")
        more = f" ({len(wrong) - 1} more tensors have other shapes too)" if len(wrong) > 1 else ""
        raise CheckpointError(f"{path}: tensor '{name}' has shape {got}, GPT-2 small needs "
                              f"{want}{more}.{hint} This is not a GPT-2 small checkpoint. "
                              + HOW_TO_GET_ONE)
    required = ordered(set(shapes) - OPTIONAL - tensors.keys())
    if required:
        verb = "tensor is" if len(required) == 1 else "tensors are"
        raise CheckpointError(f"{path} does not hold GPT-2 small: {len(required)} required "
                              f"{verb} missing: {name_tensors(required)}. " + HOW_TO_GET_ONE)


def check_finite(tensors: dict[str, np.ndarray], names: list[str], path: Path) -> None:
    """Refuse NaN or infinite values in the named tensors (a damaged file)."""
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
