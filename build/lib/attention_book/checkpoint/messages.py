"""What the loader tells a person: ``CheckpointError`` and the texts that name a problem, the
tensors involved and what to do, with numbers as a person reads them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from .fingerprints import Identity, thirds_labels
from .names import (
    ALLOW_MODIFIED_VAR,
    ENV_VAR,
    HUB_REPO,
    MODIFIED,
    OFFICIAL,
    REHEARSAL_VAR,
    STANDIN,
    WEIGHTS_FILE,
    ordered,
)

# First values of wpe[0] in GPT-2 small, to 4 decimals: tells "another model" from "a
# modified GPT-2" in messages (the identity itself is decided by the fingerprints).
WPE_FINGERPRINT = np.array([-0.0188, -0.1974, 0.0040, 0.0113, 0.0638, -0.1050], np.float32)

HOW_TO_GET_ONE = (
    f"Set {ENV_VAR} to a GPT-2 small model.safetensors (or the folder holding it), "
    f"or run once with network access so that '{HUB_REPO}' is downloaded into the "
    "Hugging Face cache."
)
HOW_TO_OPT_IN = (
    f"To run the book on these weights anyway (a fine-tuned or ablated GPT-2 you want to "
    f"study), set {ALLOW_MODIFIED_VAR}=1: every chapter and the claims ledger then say "
    "'modified weights: not GPT-2 small as released', and no claim is reported as verified "
    "on GPT-2."
)

WEIGHTS_NOTES = {
    OFFICIAL: "",
    MODIFIED: "modified weights: not GPT-2 small as released",
    STANDIN: "stand-in for a rehearsal: real attention tensors with synthetic token "
             "embeddings and MLP weights, never GPT-2",
}


class CheckpointError(RuntimeError):
    """A checkpoint is missing, unreadable, damaged or not GPT-2 small."""

    def _render_traceback_(self) -> list[str]:  # IPython: the message, no traceback
        return [f"\x1b[1;31mCheckpointError\x1b[0m: {self}"]


# ---------------------------------------------------------------- numbers and names

def size(n: int) -> str:
    """A byte count as a person reads it: 117 MB, 5.0 MB, 400 bytes."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            v = n / scale
            return f"{v:.0f} {unit}" if v >= 10 else f"{v:.1f} {unit}"
    return f"{n} bytes"


def two_sizes(a: int, b: int) -> tuple[str, str]:
    """Two byte counts, rounded unless rounding would make them look equal."""
    if size(a) != size(b):
        return size(a), size(b)
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


def name_tensors(names: Iterable[str], notes: Mapping[str, str] | None = None) -> str:
    """Every name, listed; more than 12 are grouped by layer ('h.{0-11}.ln_1.weight')."""
    names, notes = ordered(names), notes or {}
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


def thirds_notes(identity: Identity) -> dict[str, str]:
    """What differs within each modified c_attn, by tensor name."""
    notes = {k: _thirds_note(k, v) for k, v in identity.thirds.items()}
    return {k: v for k, v in notes.items() if v}


def modified_list(identity: Identity) -> str:
    """The tensors that differ from OpenAI's release, named, with what differs in a c_attn."""
    return name_tensors(identity.differing, thirds_notes(identity))


# ---------------------------------------------------------------- refusals

def not_safetensors(path: Path, head: bytes, nbytes: int) -> CheckpointError:
    """Why a file whose first 8 bytes are not a plausible header length is not one."""
    if head.startswith(b"version https://git-lfs"):
        what = (f"a Git LFS pointer ({size(nbytes)}), not the weights it points to: fetch the "
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


def differs_message(path: Path, identity: Identity, tensors: Mapping[str, np.ndarray]) -> str:
    """GPT-2 small's shapes, not its weights: every differing tensor named, what to do."""
    differ = identity.differing
    n = len(tensors)
    wpe_far = ("wpe.weight" in differ and not np.allclose(
        tensors["wpe.weight"][0, :len(WPE_FINGERPRINT)], WPE_FINGERPRINT, atol=5e-5))
    verb = "differs" if len(differ) == 1 else "differ"
    lines = [f"{path} has GPT-2 small's shapes but not its weights: {len(differ)} of {n} "
             f"tensors {verb} from OpenAI's release, bit for bit: {modified_list(identity)}."]
    if wpe_far or len(differ) == n:
        lines.append("It is another model with GPT-2 small's shapes, or GPT-2 retrained; "
                     "the book's findings are about GPT-2 small as released.")
    else:
        lines.append("It is a modified copy (fine-tuned, ablated, edited or damaged): the book "
                     "reports facts about GPT-2 small as released and will not present these "
                     "weights as GPT-2.")
    if unmatched := [k for k in identity.declared if k in differ]:
        lines.append(f"(This file says it is the book's rehearsal stand-in, but its "
                     f"{name_tensors(unmatched)} do not match the sha256 it records: the "
                     "stand-in is recognised only by the exact tensors book_tools.standin "
                     "writes. make rehearsal builds it again.)")
    lines.append("For GPT-2 small itself: " + HOW_TO_GET_ONE[0].lower() + HOW_TO_GET_ONE[1:])
    lines.append(HOW_TO_OPT_IN)
    return "\n".join(lines)


def standin_message(path: Path) -> str:
    """The stand-in, outside a rehearsal."""
    return (f"{path} is the book's rehearsal stand-in (GPT-2 small's attention tensors with "
            "synthetic token embeddings and MLP weights from book_tools.standin): it is "
            "never GPT-2, and only the rehearsal (make rehearsal, which sets "
            f"{REHEARSAL_VAR}=1) runs on it. " + HOW_TO_GET_ONE)


def no_download(reason: str) -> CheckpointError:
    """Nothing in GPT2_CHECKPOINT or the cache, and the Hub cannot be reached."""
    return CheckpointError(f"No GPT-2 checkpoint was found and '{HUB_REPO}' could not be "
                           f"downloaded: {reason}. " + HOW_TO_GET_ONE)
