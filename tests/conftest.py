"""Shared fixtures: the real (possibly partial) GPT-2 checkpoint and writers of bad files."""

import os
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from attention_book.checkpoint import load_checkpoint

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def checkpoint():
    """The checkpoint the chapters use; the test command requires one (see README)."""
    return load_checkpoint()


@pytest.fixture
def point_to(monkeypatch):
    """Point GPT2_CHECKPOINT at a path for one test, bypassing the per-process cache."""
    from attention_book import checkpoint as ck

    def _point(path: Path):
        monkeypatch.setenv(ck.ENV_VAR, str(path))
        ck._load.cache_clear()
        return path

    yield _point
    ck._load.cache_clear()


@pytest.fixture
def write_tensors(tmp_path):
    """Write a dict of numpy arrays as model.safetensors in a fresh folder."""

    def _write(tensors: dict[str, np.ndarray], name: str = "model.safetensors") -> Path:
        path = tmp_path / name
        save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(path))
        return path

    return _write


@pytest.fixture
def claims_spec() -> Path:
    """The content specification beside the repository; skips where this machine lacks it."""
    ckpt = os.environ.get("GPT2_CHECKPOINT")
    candidates = [REPO.parent / "shared" / "CLAIMS.md"]
    if ckpt:
        candidates.append(Path(ckpt).resolve().parent / "CLAIMS.md")
    spec = next((p for p in candidates if p.is_file()), None)
    if spec is None:
        pytest.skip("the content specification (shared/CLAIMS.md) is not on this machine")
    return spec
