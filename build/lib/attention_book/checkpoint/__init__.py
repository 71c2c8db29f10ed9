"""Find, check and load the GPT-2 small checkpoint, and say what it is, bit for bit.

Resolution order (``location``): the path in ``GPT2_CHECKPOINT`` (a ``model.safetensors``
file or a folder holding one), then the Hugging Face cache, then a download of
``openai-community/gpt2`` from the Hub (``hub``), both at the pinned revision
``HUB_REVISION``. The file is read through the safetensors library (``safetensors_file``) and every
tensor is compared with the package's table of OpenAI's release (``fingerprints``). Every
problem ends in a ``CheckpointError`` whose message names the problem and what to do about
it (``messages``); in a notebook it shows as that message alone, without a traceback.

The outcome, ``provenance``:

- ``OFFICIAL``: every tensor present is OpenAI's, bit for bit;
- ``MODIFIED``: some tensors differ and the reader opted in with
  ``ATTENTION_BOOK_ALLOW_MODIFIED=1`` (without it: a ``CheckpointError`` naming every
  tensor that differs); every page and the ledger then say so, and no claim is reported
  as verified on GPT-2;
- ``STANDIN``: the rehearsal stand-in that ``book_tools.standin`` writes (official tensors
  plus synthetic ``wte`` and MLP weights, each matching the sha256 that the file's metadata
  records for it), accepted only in a rehearsal (``ATTENTION_BOOK_REHEARSAL=1``) and never
  GPT-2.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import fingerprints as fp
from .fingerprints import (
    T_DIFFERS,
    T_OFFICIAL,
    T_STANDIN,
    TABLE_FILE,
    Identity,
    crc32_f32be,
    fingerprint_table,
    git_blob_sha1_f32be,
    identify,
    sha256_f32,
    thirds,
    thirds_labels,
)
from .location import locate, weights_file
from .messages import (
    HOW_TO_GET_ONE,
    HOW_TO_OPT_IN,
    WEIGHTS_NOTES,
    WPE_FINGERPRINT,
    CheckpointError,
    differs_message,
    modified_list,
    name_tensors,
    size,
    standin_message,
)
from .names import (
    ALLOW_MODIFIED_VAR,
    CACHE_VAR,
    ENV_VAR,
    HUB_REPO,
    HUB_REVISION,
    MLP_WEIGHTS,
    MODIFIED,
    OFFICIAL,
    OPTIONAL,
    REHEARSAL_VAR,
    STANDIN,
    STANDIN_KEY,
    TOKENIZER_FILES,
    WEIGHTS_FILE,
    expected_shapes,
    flag,
)
from .safetensors_file import (
    check_finite,
    read_metadata,
    read_tensors,
    standin_record,
    validate,
)

__all__ = [
    "ALLOW_MODIFIED_VAR", "CACHE_VAR", "ENV_VAR", "HOW_TO_GET_ONE", "HOW_TO_OPT_IN", "HUB_REPO",
    "HUB_REVISION", "MLP_WEIGHTS", "MODIFIED", "OFFICIAL", "OPTIONAL", "REHEARSAL_VAR",
    "STANDIN", "STANDIN_KEY", "TABLE_FILE", "TOKENIZER_FILES", "T_DIFFERS", "T_OFFICIAL",
    "T_STANDIN", "WEIGHTS_FILE", "WEIGHTS_NOTES", "WPE_FINGERPRINT", "Checkpoint",
    "CheckpointError", "Identity", "crc32_f32be", "expected_shapes", "fingerprint_table",
    "git_blob_sha1_f32be", "identify", "load_checkpoint", "locate", "name_tensors",
    "read_metadata", "read_tensors", "sha256_f32", "standin_record", "thirds", "thirds_labels",
    "validate", "weights_file",
]


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
                    f"{modified_list(ident)}")
        if self.provenance == STANDIN:
            return (f"{WEIGHTS_NOTES[STANDIN]}: {len(ident.official)} official GPT-2 small "
                    f"tensors, bit for bit, and {len(ident.synthetic)} synthetic ones "
                    "(book_tools.standin); nothing measured on it is a fact about GPT-2")
        if ident.whole_file:
            table = fp.fingerprint_table()["official_file"]
            return (f"official GPT-2 small, bit for bit: the complete {WEIGHTS_FILE} of "
                    f"{table['hub_repo']} (revision {table['revision'][:7]}, "
                    f"{size(table['bytes'])}, sha256 {table['sha256'][:12]}...), "
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


def _provenance(path: Path, identity: Identity, tensors: dict[str, np.ndarray],
                allow_modified: bool, rehearsal: bool) -> str:
    """OFFICIAL, MODIFIED or STANDIN, or the CheckpointError that says why it is none."""
    if identity.differing:
        if not allow_modified:
            raise CheckpointError(differs_message(path, identity, tensors))
        return MODIFIED
    if identity.synthetic:
        if not rehearsal:
            raise CheckpointError(standin_message(path))
        return STANDIN
    return OFFICIAL


@functools.lru_cache(maxsize=4)
def _load(path: Path, source: str, allow_modified: bool = False,
          rehearsal: bool = False) -> Checkpoint:
    tensors = read_tensors(path)
    validate(tensors, path)
    identity = fp.identify(path, tensors, standin_record(path, read_metadata(path)))
    check_finite(tensors, identity.differing, path)
    provenance = _provenance(path, identity, tensors, allow_modified, rehearsal)
    return Checkpoint(tensors=tensors, path=path, source=source, provenance=provenance,
                      identity=identity)


def load_checkpoint() -> Checkpoint:
    """Locate, read and check GPT-2 small; loaded once per process and path."""
    path, source = locate()
    # Absolute, symbolic links kept: the tokenizer files are looked for beside this path
    # (in the Hugging Face cache the weights file links to a blob with a hashed name).
    path = Path(os.path.abspath(path))
    return _load(path, source, flag(ALLOW_MODIFIED_VAR), flag(REHEARSAL_VAR))
