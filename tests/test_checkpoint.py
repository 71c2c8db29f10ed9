"""The loader accepts GPT-2 small (full or attention-only) and refuses everything else clearly."""

import json
import struct

import numpy as np
import pytest

from attention_book import checkpoint as ck
from attention_book.checkpoint import CheckpointError, expected_shapes, load_checkpoint


def test_real_checkpoint_is_gpt2_small(checkpoint):
    shapes = expected_shapes()
    assert checkpoint.tensors["h.0.attn.c_attn.weight"].shape == (768, 2304)
    for name, t in checkpoint.tensors.items():
        assert t.shape == shapes[name] and t.dtype == np.float32
    assert np.allclose(checkpoint.tensors["wpe.weight"][0, :6], ck.WPE_FINGERPRINT, atol=5e-5)
    assert set(checkpoint.missing) == set(shapes) - set(checkpoint.tensors)
    if not checkpoint.is_full:
        assert "missing" in checkpoint.describe()
        assert checkpoint.missing == sorted(ck.OPTIONAL)


def test_loaded_once_per_process(checkpoint):
    assert load_checkpoint() is checkpoint


def test_folder_or_file_both_work(point_to, checkpoint):
    point_to(checkpoint.path)
    assert load_checkpoint().tensors.keys() == checkpoint.tensors.keys()
    point_to(checkpoint.path.parent)
    assert load_checkpoint().path == checkpoint.path


def test_missing_path(point_to, tmp_path):
    point_to(tmp_path / "nowhere")
    with pytest.raises(CheckpointError, match="does not exist.*GPT2_CHECKPOINT"):
        load_checkpoint()


def test_folder_without_checkpoint(point_to, tmp_path):
    point_to(tmp_path)
    with pytest.raises(CheckpointError, match="folder without a model.safetensors"):
        load_checkpoint()


def test_empty_file(point_to, tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"")
    point_to(tmp_path)
    with pytest.raises(CheckpointError, match="empty or truncated"):
        load_checkpoint()


def test_truncated_file(point_to, tmp_path, checkpoint):
    with checkpoint.path.open("rb") as f:
        (tmp_path / "model.safetensors").write_bytes(f.read(5_000_000))
    point_to(tmp_path)
    with pytest.raises(CheckpointError, match="truncated.*Download it again"):
        load_checkpoint()


def test_not_safetensors_at_all(point_to, tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"<html>404 Not Found</html>" * 10)
    point_to(tmp_path)
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        load_checkpoint()


def test_header_that_lies(point_to, tmp_path):
    header = json.dumps({"wpe.weight": {"dtype": "F32", "shape": [1024, 768],
                                        "data_offsets": [0, 400]}}).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 400)
    point_to(tmp_path)
    with pytest.raises(CheckpointError, match="header says tensor 'wpe.weight'.*corrupt"):
        load_checkpoint()


def test_wrong_shape(point_to, write_tensors):
    point_to(write_tensors({"wpe.weight": np.zeros((512, 768), np.float32)}))
    with pytest.raises(CheckpointError, match=r"'wpe.weight' has shape \(512, 768\)"):
        load_checkpoint()


def test_nan_values(point_to, write_tensors, checkpoint):
    wpe = checkpoint.tensors["wpe.weight"].copy()
    wpe[3, 7] = np.nan
    point_to(write_tensors({"wpe.weight": wpe}))
    with pytest.raises(CheckpointError, match="1 NaN or infinite values"):
        load_checkpoint()


def test_other_model_by_names(point_to, write_tensors):
    llama_like = {"model.layers.0.self_attn.q_proj.weight": np.zeros((8, 8), np.float32)}
    point_to(write_tensors(llama_like))
    with pytest.raises(CheckpointError, match="another model"):
        load_checkpoint()


def test_other_model_with_gpt2_shapes(point_to, write_tensors, checkpoint):
    """Right names and shapes, wrong values: refused by the fingerprint, not half-used."""
    fake = dict(checkpoint.tensors)
    fake["wpe.weight"] = np.random.default_rng(0).normal(0, 0.02, (1024, 768)).astype(np.float32)
    point_to(write_tensors(fake))
    with pytest.raises(CheckpointError, match="shapes but not its weights"):
        load_checkpoint()


def test_required_tensor_missing(point_to, write_tensors, checkpoint):
    partial = {k: v for k, v in checkpoint.tensors.items() if k != "h.3.attn.c_proj.weight"}
    point_to(write_tensors(partial))
    with pytest.raises(CheckpointError, match="1 required tensors are missing"):
        load_checkpoint()


def test_hf_key_prefix_and_mask_buffers_accepted(point_to, write_tensors, checkpoint):
    exported = {"transformer." + k: v for k, v in checkpoint.tensors.items()}
    exported["h.0.attn.bias"] = np.ones((1, 1, 4, 4), np.float32)
    point_to(write_tensors(exported))
    assert load_checkpoint().tensors.keys() == checkpoint.tensors.keys()


def _no_env(monkeypatch):
    monkeypatch.delenv(ck.ENV_VAR, raising=False)
    ck._load.cache_clear()


def test_no_checkpoint_and_no_network(monkeypatch, tmp_path):
    """The real Hub client, offline, with an empty cache: one clear message."""
    _no_env(monkeypatch)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    import huggingface_hub.constants as hc
    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(hc, "HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(CheckpointError, match="could not be downloaded.*Set GPT2_CHECKPOINT"):
        load_checkpoint()


def test_hugging_face_cache_is_used(monkeypatch, checkpoint):
    import huggingface_hub as hub

    _no_env(monkeypatch)
    monkeypatch.setattr(hub, "try_to_load_from_cache", lambda repo, name: str(checkpoint.path))
    monkeypatch.setattr(hub, "hf_hub_download", lambda *a, **k: pytest.fail("no download"))
    loaded = load_checkpoint()
    assert loaded.source == "Hugging Face cache" and loaded.path == checkpoint.path.resolve()
    ck._load.cache_clear()


def test_hub_download_when_not_cached(monkeypatch, checkpoint):
    import huggingface_hub as hub

    _no_env(monkeypatch)
    fetched = []
    monkeypatch.setattr(hub, "try_to_load_from_cache", lambda repo, name: None)

    def download(repo, name):
        fetched.append((repo, name))
        return str(checkpoint.path) if name == "model.safetensors" else "unused"

    monkeypatch.setattr(hub, "hf_hub_download", download)
    assert load_checkpoint().source == "Hugging Face Hub"
    assert ("openai-community/gpt2", "model.safetensors") in fetched
    assert {n for _, n in fetched} >= {"vocab.json", "merges.txt"}
    ck._load.cache_clear()


def test_half_precision_copy_refused(point_to, write_tensors, checkpoint):
    point_to(write_tensors({"wpe.weight": checkpoint.tensors["wpe.weight"].astype(np.float16)}))
    with pytest.raises(CheckpointError, match="stored as F16.*float32"):
        load_checkpoint()


def test_says_which_claims_it_can_serve(checkpoint):
    assert checkpoint.can_serve("L1") and checkpoint.can_serve("N1")
    assert checkpoint.can_serve("I2") == checkpoint.can_serve("M2") == checkpoint.is_full
    if not checkpoint.is_full:
        assert "claims that need them: L4, Q6, I2, M1, M2" in checkpoint.describe()
