"""Where the checkpoint is: the path in ``GPT2_CHECKPOINT`` (a ``model.safetensors`` file or
a folder holding one), else the Hugging Face cache, else a download from the Hub."""

from __future__ import annotations

import os
from pathlib import Path

from .hub import from_hub
from .messages import HOW_TO_GET_ONE, CheckpointError
from .names import ENV_VAR, WEIGHTS_FILE


def weights_file(p: Path) -> Path:
    """The model.safetensors that a path names (the file itself, or in the folder)."""
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


def locate() -> tuple[Path, str]:
    """Where the checkpoint comes from: (path of model.safetensors, source name)."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return weights_file(Path(env).expanduser()), ENV_VAR
    return from_hub()
