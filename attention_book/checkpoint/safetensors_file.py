"""Read a safetensors file without trusting it, and refuse what is not GPT-2 small's tensors.

The header is parsed and checked here (not by the safetensors library) so that a truncated
file, a Git LFS pointer, a saved error page or a lying header each get a message that says
which one it is. The tensors are copy-on-write views of a memory map of the file (the
safetensors library's numpy reader copies every tensor into memory instead).
"""

from __future__ import annotations

import json
import mmap
import re
import struct
from pathlib import Path

import numpy as np

from .messages import HOW_TO_GET_ONE, CheckpointError, name_tensors, not_safetensors, two_sizes
from .names import IGNORED, OPTIONAL, STANDIN_KEY, expected_shapes, ordered

_ITEMSIZE = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8, "BOOL": 1, "U8": 1, "I8": 1,
             "I16": 2, "U16": 2, "I32": 4, "U32": 4, "I64": 8, "U64": 8}
_MAX_HEADER = 100_000_000
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


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


def _raw_header(path: Path) -> tuple[bytes, int]:
    """The header's JSON bytes and the file's size, after checking the length prefix."""
    nbytes = path.stat().st_size
    if nbytes < 8:
        raise CheckpointError(f"{path} is empty or truncated ({nbytes} bytes). "
                              "Download it again. " + HOW_TO_GET_ONE)
    try:
        with path.open("rb") as f:
            head = f.read(min(nbytes, 1 << 16))
            (n,) = struct.unpack("<Q", head[:8])
            if n > nbytes - 8 or n > _MAX_HEADER:
                if n < _MAX_HEADER and head[8:9] == b"{":
                    has, wants = two_sizes(nbytes, n + 8)
                    raise CheckpointError(
                        f"{path} is truncated: it has {has} and its safetensors header alone "
                        f"needs {wants}. Download it again. " + HOW_TO_GET_ONE)
                raise not_safetensors(path, head, nbytes)
            f.seek(8)
            return f.read(n), nbytes
    except OSError as e:
        raise CheckpointError(f"{path} cannot be read ({e.strerror or e}). "
                              + HOW_TO_GET_ONE) from None


def _parse_header(path: Path) -> tuple[dict, dict]:
    """(the tensor entries, the metadata) of a safetensors header, every entry checked."""
    raw, nbytes = _raw_header(path)
    try:
        header = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CheckpointError(f"{path} has an unreadable safetensors header (not JSON). "
                              "The file is corrupt or not safetensors. " + HOW_TO_GET_ONE) from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path} has a corrupt safetensors header (not a table of "
                              "tensors). " + HOW_TO_GET_ONE)
    metadata = header.pop("__metadata__", None)
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
    needed = 8 + len(raw) + max((info["data_offsets"][1] for info in header.values()), default=0)
    if needed > nbytes:
        has, wants = two_sizes(nbytes, needed)
        raise CheckpointError(f"{path} is truncated: it has {has} and its header describes "
                              f"{wants}. Download it again. " + HOW_TO_GET_ONE)
    return header, metadata if isinstance(metadata, dict) else {}


def read_metadata(path: Path) -> dict:
    """The free-form ``__metadata__`` of a safetensors file ({} when it has none)."""
    return _parse_header(path)[1]


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
    header, _ = _parse_header(path)
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
