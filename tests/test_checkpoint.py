"""The loader accepts GPT-2 small as released (full or attention-only), bit for bit; it accepts
other GPT-2-shaped weights only when the reader opts in, and the rehearsal stand-in only in a
rehearsal; everything else is refused with one readable message (no library traceback)."""

import contextlib
import hashlib
import json
import os
import re
import socket
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from attention_book import checkpoint as ck
from attention_book.checkpoint import CheckpointError, expected_shapes, load_checkpoint
from attention_book.checkpoint import fingerprints as fp
from attention_book.checkpoint import hub as ck_hub
from book_tools import standin

# A reader's first run with no checkpoint and no network: the loader's message, at once.
OFFLINE_START = """\
import sys
from attention_book.checkpoint import CheckpointError, load_checkpoint
try:
    load_checkpoint()
except CheckpointError as e:
    print(e)
else:
    sys.exit("a checkpoint was loaded")
"""
SHARED_FINGERPRINTS = Path(os.environ.get(ck.ENV_VAR, "/nonexistent")) / "fingerprints.json"


@pytest.fixture(autouse=True)
def _own_verdict_cache(monkeypatch, tmp_path):
    """Every test gets an empty verdict cache of its own; no opt-ins unless it sets them."""
    monkeypatch.setenv(ck.CACHE_VAR, str(tmp_path / "verdicts"))
    monkeypatch.delenv(ck.ALLOW_MODIFIED_VAR, raising=False)
    monkeypatch.delenv(ck.REHEARSAL_VAR, raising=False)


@contextlib.contextmanager
def refused(pattern: str):
    """Expect one CheckpointError matching pattern, shown as its message alone."""
    with pytest.raises(CheckpointError) as info:
        yield info
    message = str(info.value)
    assert re.search(pattern, message, re.S), message
    rendered = "\n".join(info.value._render_traceback_())
    assert message in rendered
    assert "Traceback" not in rendered and not re.search(r'File "|line \d+|\.py\b', rendered)
    people = re.sub(r"(/[\w.\-]+)+", "<path>", message)  # numbers a person reads: no 12345678
    assert not re.search(r"\d{5,}|\d\.\d{4,}", people), people
    assert "GPT2_CHECKPOINT" in message or "Download" in message or "download" in message


def _offline(checkpoint) -> dict:
    return {k: v for k, v in checkpoint.tensors.items() if k not in ck.OPTIONAL}


# ------------------------------------------------------------ the real checkpoint


def test_real_checkpoint_is_gpt2_small(checkpoint):
    shapes = expected_shapes()
    assert checkpoint.tensors["h.0.attn.c_attn.weight"].shape == (768, 2304)
    for name, t in checkpoint.tensors.items():
        assert t.shape == shapes[name] and t.dtype == np.float32
    assert np.allclose(checkpoint.tensors["wpe.weight"][0, :6], ck.WPE_FINGERPRINT, atol=5e-5)
    assert set(checkpoint.missing) == set(shapes) - set(checkpoint.tensors)
    assert checkpoint.provenance == ck.OFFICIAL and checkpoint.weights_note == ""
    assert not checkpoint.identity.differing and not checkpoint.identity.synthetic
    first = checkpoint.describe().splitlines()[0]
    assert first.startswith("official GPT-2 small")
    assert f"bit for bit ({len(checkpoint.tensors)} of 148 present" in first \
        or "the complete model.safetensors" in first
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


@pytest.mark.slow  # a copy of the checkpoint
def test_writing_into_a_tensor_never_changes_the_file(point_to, checkpoint, write_tensors):
    path = point_to(write_tensors(_offline(checkpoint)))
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    loaded = load_checkpoint()
    loaded.tensors["wpe.weight"][0, 0] = 123.0  # copy-on-write: this process only
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


# ------------------------------------------------------------ files that are not checkpoints


def test_missing_path(point_to, tmp_path):
    point_to(tmp_path / "nowhere")
    with refused("does not exist.*GPT2_CHECKPOINT"):
        load_checkpoint()


def test_broken_symlink(point_to, tmp_path):
    (tmp_path / "model.safetensors").symlink_to(tmp_path / "gone.safetensors")
    point_to(tmp_path / "model.safetensors")
    with refused("broken symbolic link"):
        load_checkpoint()


def test_folder_without_checkpoint(point_to, tmp_path):
    point_to(tmp_path)
    with refused("folder without a model.safetensors"):
        load_checkpoint()


def test_empty_file(point_to, tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"")
    point_to(tmp_path)
    with refused("empty or truncated"):
        load_checkpoint()


@pytest.mark.slow  # a copy of the checkpoint
def test_truncated_file(point_to, tmp_path, checkpoint):
    with checkpoint.path.open("rb") as f:
        (tmp_path / "model.safetensors").write_bytes(f.read(5_000_000))
    point_to(tmp_path)
    with refused(r"truncated.*5\.0 MB.*Download it again"):
        load_checkpoint()


@pytest.mark.slow  # a copy of the checkpoint
def test_cut_by_one_byte_shows_exact_sizes(point_to, tmp_path, checkpoint, write_tensors):
    path = write_tensors(_offline(checkpoint))
    data = path.read_bytes()
    path.write_bytes(data[:-1])
    point_to(path)
    with refused(f"truncated.*{len(data) - 1:,} bytes.*{len(data):,} bytes"):
        load_checkpoint()


def test_not_safetensors_at_all(point_to, tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"<html>404 Not Found</html>" * 10)
    point_to(tmp_path)
    with refused("not a safetensors file.*<html>404 Not Found"):
        load_checkpoint()


def test_git_lfs_pointer(point_to, tmp_path):
    (tmp_path / "model.safetensors").write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:248dfc39\nsize 548105171\n")
    point_to(tmp_path)
    with refused("Git LFS pointer.*git lfs pull"):
        load_checkpoint()


@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.slow  # a copy of the checkpoint
@pytest.mark.parametrize("start, what", [(b"PK\x03\x04", "zip archive.*PyTorch"),
                                         (b"\x80\x02}q\x00", "Python pickle"),
                                         (b"\xde\xad\xbe\xef" * 4, "binary data without")])
def test_pytorch_or_other_binary_file(point_to, tmp_path, start, what):
    (tmp_path / "model.safetensors").write_bytes(start + bytes(4000))
    point_to(tmp_path)
    with refused("not a safetensors file.*" + what):
        load_checkpoint()


def test_header_that_lies(point_to, tmp_path):
    header = json.dumps({"wpe.weight": {"dtype": "F32", "shape": [1024, 768],
                                        "data_offsets": [0, 400]}}).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 400)
    point_to(tmp_path)
    with refused("header says tensor 'wpe.weight'.*corrupt"):
        load_checkpoint()


@pytest.mark.parametrize("header", [
    [1, 2, 3],
    {"wpe.weight": {"shape": [2], "data_offsets": [0, 8]}},
    {"wpe.weight": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}},
    {"wpe.weight": "F32"},
])
def test_corrupt_header(point_to, tmp_path, header):
    raw = json.dumps(header).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * 8)
    point_to(tmp_path)
    with refused("corrupt safetensors header"):
        load_checkpoint()


def test_tensors_not_laid_end_to_end_are_refused(point_to, tmp_path):
    """The tensors are mapped where the library says their data lie, end to end: a header
    with a gap before its tensor is the library's to refuse, and it does."""
    raw = json.dumps({"wpe.weight": {"dtype": "F32", "shape": [2],
                                     "data_offsets": [8, 16]}}).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * 16)
    point_to(tmp_path)
    with refused("corrupt safetensors header: invalid offset for tensor `wpe.weight`"):
        load_checkpoint()


def test_header_not_json(point_to, tmp_path):
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", 10) + b"{not json}" + b"\0" * 8)
    point_to(tmp_path)
    with refused("corrupt safetensors header: invalid JSON"):
        load_checkpoint()


# ------------------------------------------------------------ wrong model, wrong layout


def test_wrong_shape(point_to, write_tensors):
    point_to(write_tensors({"wpe.weight": np.zeros((512, 768), np.float32)}))
    with refused(r"'wpe.weight' has shape \(512, 768\)"):
        load_checkpoint()


def test_gpt2_medium_shapes(point_to, write_tensors):
    medium = {"wpe.weight": np.zeros((1024, 1024), np.float32),
              "ln_f.weight": np.zeros(1024, np.float32), "ln_f.bias": np.zeros(1024, np.float32)}
    point_to(write_tensors(medium))
    with refused(r"\(1024, 1024\), GPT-2 small needs \(1024, 768\) \(2 more tensors"):
        load_checkpoint()


def test_transposed_export(point_to, write_tensors, checkpoint):
    linear = _offline(checkpoint)
    linear["h.0.attn.c_attn.weight"] = np.ascontiguousarray(linear["h.0.attn.c_attn.weight"].T)
    point_to(write_tensors(linear))
    with refused(r"\(2304, 768\).*stored transposed"):
        load_checkpoint()


def test_half_precision_copy_refused(point_to, write_tensors, checkpoint):
    point_to(write_tensors({"wpe.weight": checkpoint.tensors["wpe.weight"].astype(np.float16)}))
    with refused("stored as F16.*float32"):
        load_checkpoint()


def test_double_precision_copy_refused(point_to, write_tensors, checkpoint):
    point_to(write_tensors({"wpe.weight": checkpoint.tensors["wpe.weight"].astype(np.float64)}))
    with refused("stored as F64.*float32"):
        load_checkpoint()


def test_nan_values(point_to, write_tensors, checkpoint):
    damaged = _offline(checkpoint)
    damaged["wpe.weight"] = damaged["wpe.weight"].copy()
    damaged["wpe.weight"][3, 7] = np.nan
    point_to(write_tensors(damaged))
    with refused("'wpe.weight' holds 1 NaN or infinite values.*damaged"):
        load_checkpoint()


def test_nan_refused_even_with_the_opt_in(point_to, write_tensors, checkpoint, monkeypatch):
    damaged = _offline(checkpoint)
    for name in ("h.1.ln_2.bias", "ln_f.weight"):
        damaged[name] = damaged[name].copy()
        damaged[name][:2] = np.inf
    monkeypatch.setenv(ck.ALLOW_MODIFIED_VAR, "1")
    point_to(write_tensors(damaged))
    with refused(r"'ln_f.weight' \(2\), 'h.1.ln_2.bias' \(2\) hold NaN or infinite"):
        load_checkpoint()


def test_other_model_by_names(point_to, write_tensors):
    llama_like = {"model.layers.0.self_attn.q_proj.weight": np.zeros((8, 8), np.float32)}
    point_to(write_tensors(llama_like))
    with refused("another model"):
        load_checkpoint()


def test_required_tensor_missing(point_to, write_tensors, checkpoint):
    partial = {k: v for k, v in checkpoint.tensors.items() if k != "h.3.attn.c_proj.weight"}
    point_to(write_tensors(partial))
    with refused("1 required tensor is missing: h.3.attn.c_proj.weight"):
        load_checkpoint()


def test_same_tensor_twice(point_to, write_tensors, checkpoint):
    both = _offline(checkpoint)
    both["transformer.wpe.weight"] = both["wpe.weight"]
    point_to(write_tensors(both))
    with refused("holds 'wpe.weight' twice"):
        load_checkpoint()


def test_hf_key_prefix_and_mask_buffers_accepted(point_to, write_tensors, checkpoint):
    exported = {"transformer." + k: v for k, v in checkpoint.tensors.items()}
    exported["h.0.attn.bias"] = np.ones((1, 1, 4, 4), np.float32)
    point_to(write_tensors(exported))
    loaded = load_checkpoint()
    assert loaded.tensors.keys() == checkpoint.tensors.keys()
    assert loaded.provenance == ck.OFFICIAL


# ------------------------------------------------------------ right shapes, other weights


def test_other_model_with_gpt2_shapes(point_to, write_tensors, checkpoint):
    """Right names and shapes, every value different: refused, every tensor named."""
    rng = np.random.default_rng(0)
    fake = {k: rng.normal(0, 0.02, v.shape).astype(np.float32)
            for k, v in _offline(checkpoint).items()}
    point_to(write_tensors(fake))
    with refused(r"shapes but not its weights: 123 of 123 tensors differ.*wpe\.weight.*"
                 r"h\.\{0-11\}\.attn\.c_attn\.weight.*another model.*"
                 + ck.ALLOW_MODIFIED_VAR) as info:
        load_checkpoint()
    for suffix in ("ln_1.weight", "attn.c_proj.bias", "ln_2.bias", "mlp.c_fc.bias"):
        assert f"h.{{0-11}}.{suffix}" in str(info.value)


def test_modified_tensor_w_k_overwritten_with_w_q(point_to, write_tensors, checkpoint):
    """The issue's checkpoint: layer 5's W_K := W_Q. Named, with which third differs."""
    edited = _offline(checkpoint)
    c_attn = edited["h.5.attn.c_attn.weight"].copy()
    c_attn[:, 768:1536] = c_attn[:, 0:768]
    edited["h.5.attn.c_attn.weight"] = c_attn
    point_to(write_tensors(edited))
    with refused(r"1 of 123 tensors differs from OpenAI's release, bit for bit: "
                 r"h\.5\.attn\.c_attn\.weight \(W_K differs and equals W_Q; "
                 r"W_Q and W_V match\)\..*modified copy.*"
                 + ck.ALLOW_MODIFIED_VAR + "=1"):
        load_checkpoint()


def test_several_modified_tensors_all_named(point_to, write_tensors, checkpoint):
    edited = _offline(checkpoint)
    changes = {"h.2.ln_1.weight": lambda t: t * 1.01,                      # rescaled
               "h.7.attn.c_proj.bias": lambda t: np.zeros_like(t),         # ablated
               "h.9.attn.c_attn.bias": lambda t: np.r_[t[:1536], -t[1536:]],  # b_V flipped
               "wpe.weight": lambda t: np.nextafter(t, np.inf),            # one ulp
               "h.11.mlp.c_proj.bias": lambda t: t[::-1]}
    for name, change in changes.items():
        edited[name] = np.ascontiguousarray(change(edited[name]), np.float32)
    point_to(write_tensors(edited))
    with refused("5 of 123 tensors differ") as info:
        load_checkpoint()
    message = str(info.value)
    for name in changes:
        assert name in message
    assert "h.9.attn.c_attn.bias (b_V differs; b_Q and b_K match)" in message
    unchanged = [k for k in edited if k not in changes]
    assert not any(re.search(rf"(?<![\w.]){re.escape(k)}\b", message) for k in unchanged)


def test_many_modified_tensors_grouped_by_layer(point_to, write_tensors, checkpoint):
    edited = _offline(checkpoint)
    for i in range(12):
        edited[f"h.{i}.ln_1.weight"] = edited[f"h.{i}.ln_1.weight"] * 0.5
    for i in (0, 1, 2, 6):
        edited[f"h.{i}.ln_2.bias"] = edited[f"h.{i}.ln_2.bias"] + 1.0
    point_to(write_tensors(edited))
    with refused(r"16 of 123 tensors differ.*h\.\{0-11\}\.ln_1\.weight, "
                 r"h\.\{0-2, 6\}\.ln_2\.bias"):
        load_checkpoint()


def test_opt_in_accepts_modified_weights_and_marks_them(point_to, write_tensors, checkpoint,
                                                        monkeypatch, tmp_path):
    from attention_book import ledger as lg
    from attention_book.subjects import SUBJECTS, Case
    from attention_book.verify import IDENTITY, Check, below, evaluate

    edited = _offline(checkpoint)
    c_attn = edited["h.5.attn.c_attn.weight"].copy()
    c_attn[:, 768:1536] = c_attn[:, 0:768]
    edited["h.5.attn.c_attn.weight"] = c_attn
    monkeypatch.setenv(ck.ALLOW_MODIFIED_VAR, "1")
    point_to(write_tensors(edited))
    loaded = load_checkpoint()
    assert loaded.provenance == ck.MODIFIED and not loaded.is_standin
    assert loaded.weights_note == "modified weights: not GPT-2 small as released"
    first = loaded.describe().splitlines()[0]
    assert first.startswith("modified weights: not GPT-2 small as released")
    assert "h.5.attn.c_attn.weight" in first
    monkeypatch.setenv(lg.LEDGER_DIR_VAR, str(tmp_path / "ledger"))
    book = lg.Ledger("book/99_modified", loaded.weights_note)
    check = Check("L3", "max error", lambda c: 0.0, below(1e-5, why="w"), IDENTITY,
                  counterfactuals={"off": lambda c: 1.0})
    verdict = evaluate(check, [Case(s, None, None) for s in SUBJECTS])
    book.add_verdict(verdict, list(verdict.problems))
    rec = book.record("L3")
    assert rec.status == lg.MODIFIED and rec.weights == loaded.weights_note


def test_opt_in_with_official_weights_is_still_official(point_to, checkpoint, monkeypatch):
    monkeypatch.setenv(ck.ALLOW_MODIFIED_VAR, "1")
    point_to(checkpoint.path)
    assert load_checkpoint().provenance == ck.OFFICIAL


# ------------------------------------------------------------ the rehearsal stand-in


@pytest.fixture(scope="module")
def synthetic_wte():
    return standin.synthetic("wte.weight")


@pytest.fixture
def write_standin(tmp_path, synthetic_wte):
    """Write tensors as model.safetensors with the stand-in's record of its synthetic wte
    (the tensors written may differ from what the record says)."""

    def _write(tensors: dict[str, np.ndarray], record=None) -> Path:
        path = tmp_path / "model.safetensors"
        record = record if record is not None else standin.metadata({"wte.weight": synthetic_wte})
        save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(path),
                  metadata=record)
        return path

    return _write


def test_standin_recognised_only_in_a_rehearsal(point_to, write_standin, checkpoint,
                                                synthetic_wte, monkeypatch, tmp_path):
    from attention_book.chapter import Chapter
    from attention_book.ledger import FAILED, Ledger

    point_to(write_standin({**_offline(checkpoint), "wte.weight": synthetic_wte}))
    with refused("rehearsal stand-in.*never GPT-2.*make rehearsal"):
        load_checkpoint()
    monkeypatch.setenv(ck.ALLOW_MODIFIED_VAR, "1")  # the opt-in is for modified GPT-2 only
    ck._load.cache_clear()
    with refused("rehearsal stand-in.*never GPT-2.*make rehearsal"):
        load_checkpoint()
    monkeypatch.delenv(ck.ALLOW_MODIFIED_VAR)
    monkeypatch.setenv(ck.REHEARSAL_VAR, "1")
    ck._load.cache_clear()
    loaded = load_checkpoint()
    assert loaded.is_standin and loaded.provenance == ck.STANDIN
    assert loaded.identity.synthetic == ["wte.weight"] and len(loaded.identity.official) == 123
    assert loaded.describe().startswith("stand-in for a rehearsal")
    monkeypatch.setenv("ATTENTION_BOOK_LEDGER_DIR", str(tmp_path / "ledger"))
    ch = Chapter("book/99_standin", loaded, None, Ledger("book/99_standin",
                                                         loaded.weights_note))
    ch.require("Q6", False, "asymmetry 0.001 on the stand-in")  # recorded, not raised
    assert ch.record("Q6", evidence=("numeric",)).status == FAILED


def test_synthetic_wte_that_is_not_ours_is_refused(point_to, write_standin, checkpoint,
                                                    synthetic_wte, monkeypatch):
    monkeypatch.setenv(ck.REHEARSAL_VAR, "1")
    imitation = synthetic_wte.copy()
    imitation[1000, 5] += np.float32(1e-3)  # one value off: not what its record says
    point_to(write_standin({**_offline(checkpoint), "wte.weight": imitation}))
    with refused(r"1 of 124 tensors differs.*: wte\.weight\..*says it is the book's "
                 r"rehearsal stand-in.*stand-in is recognised only by the exact tensors"):
        load_checkpoint()


def test_synthetic_wte_without_a_record_is_a_modified_copy(point_to, write_tensors, checkpoint,
                                                            synthetic_wte, monkeypatch):
    """The stand-in's exact wte, but no record in the file: not a stand-in, even in a
    rehearsal; only the opt-in for modified weights accepts it, as modified."""
    monkeypatch.setenv(ck.REHEARSAL_VAR, "1")
    point_to(write_tensors({**_offline(checkpoint), "wte.weight": synthetic_wte}))
    with refused(r"1 of 124 tensors differs.*: wte\.weight\."):
        load_checkpoint()
    monkeypatch.setenv(ck.ALLOW_MODIFIED_VAR, "1")
    ck._load.cache_clear()
    assert load_checkpoint().provenance == ck.MODIFIED


def test_standin_with_a_modified_real_tensor_is_refused(point_to, write_standin, checkpoint,
                                                        synthetic_wte, monkeypatch):
    monkeypatch.setenv(ck.REHEARSAL_VAR, "1")
    tensors = {**_offline(checkpoint), "wte.weight": synthetic_wte}
    tensors["ln_f.bias"] = tensors["ln_f.bias"] + 0.5
    point_to(write_standin(tensors))
    with refused("1 of 124 tensors differs.*: ln_f.bias"):
        load_checkpoint()


def test_a_record_never_covers_an_attention_tensor(point_to, write_standin, checkpoint,
                                                   monkeypatch):
    """A file that records the sha256 of its own modified W_K is still refused in a
    rehearsal: a stand-in's synthetic tensors are wte and the MLP weights, nothing else."""
    monkeypatch.setenv(ck.REHEARSAL_VAR, "1")
    edited = _offline(checkpoint)
    c_attn = edited["h.5.attn.c_attn.weight"].copy()
    c_attn[:, 768:1536] = c_attn[:, 0:768]
    edited["h.5.attn.c_attn.weight"] = c_attn
    point_to(write_standin(edited, standin.metadata({"h.5.attn.c_attn.weight": c_attn})))
    with refused(r"1 of 123 tensors differs.*h\.5\.attn\.c_attn\.weight \(W_K differs"):
        load_checkpoint()


def test_unreadable_standin_record_is_refused(point_to, write_standin, checkpoint):
    point_to(write_standin(_offline(checkpoint), {ck.STANDIN_KEY: '{"wte.weight": "abc"}'}))
    with refused("unreadable stand-in record.*make rehearsal"):
        load_checkpoint()


def test_standin_tensors_are_seeded_at_gpt2_scale():
    name = "h.3.mlp.c_proj.weight"
    t = standin.synthetic(name)
    assert np.array_equal(t, standin.synthetic(name)) and t.shape == expected_shapes()[name]
    # 2.4 million draws: the sample std is within 0.1 % of the scale GPT-2 initialises with.
    assert abs(t.std() / (0.02 / np.sqrt(24)) - 1) < 1e-3
    record = json.loads(standin.metadata({name: t})[ck.STANDIN_KEY])
    assert record == {name: hashlib.sha256(t.astype("<f4").tobytes()).hexdigest()}


# ------------------------------------------------------------ fingerprints and the verdict cache


def test_table_matches_the_shared_record():
    table = ck.fingerprint_table()
    assert table["official_file"]["revision"] == ck.HUB_REVISION
    assert len(table["tensors"]) == len(expected_shapes())
    if not SHARED_FINGERPRINTS.is_file():
        pytest.skip("the shared fingerprints.json is not beside the checkpoint here")
    shared = json.loads(SHARED_FINGERPRINTS.read_text())
    assert table["official_file"] == shared["official_file"]
    for name, rec in shared["tensors"].items():
        for key in ("shape", "sha256", "git_blob_sha1_f32be", "crc32_f32be", "bytes"):
            assert table["tensors"][name].get(key) == rec.get(key), (name, key)


def test_the_tables_thirds_are_those_of_the_official_tensors(checkpoint):
    """The sha256 of W_Q, W_K, W_V (and their biases) within every c_attn, which name the
    third that differs in a modified copy, are the official tensors' thirds."""
    fused = [k for k in checkpoint.tensors if k.endswith(("c_attn.weight", "c_attn.bias"))]
    assert len(fused) == 24
    for name in fused:
        assert checkpoint.identity.tensors[name] == ck.T_OFFICIAL
        thirds = dict(zip(ck.thirds_labels(name),
                          map(ck.sha256_f32, ck.thirds(checkpoint.tensors[name])), strict=True))
        assert ck.fingerprint_table()["tensors"][name]["thirds"] == thirds, name


def test_table_knows_nothing_of_the_standin():
    """The stand-in is build tooling: its tensors are recognised by the file's own record."""
    assert set(ck.fingerprint_table()) == {"about", "official_file", "tensors", "table_sha256"}


def test_fingerprint_formulas_are_the_shared_records():
    """As fingerprints.json defines them, computed here independently of the loader."""
    t = np.random.default_rng(1).normal(size=(7, 5)).astype(np.float32)
    be = t.astype(">f4").tobytes()
    assert ck.sha256_f32(t) == hashlib.sha256(t.astype("<f4").tobytes()).hexdigest()
    assert ck.git_blob_sha1_f32be(t) == hashlib.sha1(b"blob %d\0" % len(be) + be).hexdigest()
    assert ck.crc32_f32be(t) == f"{zlib.crc32(be):08x}"


def test_mlp_and_wte_checked_against_their_records(monkeypatch):
    """A full checkpoint's wte and MLP matrices: official by git blob sha1 / crc32, or not."""
    rng = np.random.default_rng(2)
    mlp, wte = rng.normal(size=(4, 6)).astype(np.float32), rng.normal(size=(3, 4)).astype(
        np.float32)
    rec_mlp = {"git_blob_sha1_f32be": ck.git_blob_sha1_f32be(mlp)}
    rec_wte = {"crc32_f32be": ck.crc32_f32be(wte), "bytes": wte.nbytes}
    assert fp._matches_official("h.0.mlp.c_fc.weight", mlp, rec_mlp)
    assert fp._matches_official("wte.weight", wte, rec_wte)
    assert not fp._matches_official("h.0.mlp.c_fc.weight", mlp * 2, rec_mlp)
    assert not fp._matches_official("wte.weight", wte[:2], rec_wte)


def test_complete_official_file_recognised_by_size_and_sha256(point_to, checkpoint, monkeypatch):
    """Pretend the offline file is the official one: recognised whole, hashed once."""
    table = dict(ck.fingerprint_table())
    data = checkpoint.path.read_bytes()
    table["official_file"] = {**table["official_file"], "bytes": len(data),
                              "sha256": hashlib.sha256(data).hexdigest()}
    monkeypatch.setattr(fp, "fingerprint_table", lambda: table)
    hashed = []
    real = fp._file_sha256
    monkeypatch.setattr(fp, "_file_sha256", lambda p: hashed.append(p) or real(p))
    point_to(checkpoint.path)
    loaded = load_checkpoint()
    assert loaded.identity.whole_file and loaded.provenance == ck.OFFICIAL
    assert "the complete model.safetensors of openai-community/gpt2" in loaded.describe()
    ck._load.cache_clear()
    assert load_checkpoint().identity.whole_file and len(hashed) == 1  # the cached verdict


def test_verdict_cached_and_invalidated_by_a_change(point_to, write_tensors, checkpoint,
                                                    monkeypatch):
    point_to(write_tensors(_offline(checkpoint)))
    calls = []
    real = fp.sha256_f32
    monkeypatch.setattr(fp, "sha256_f32", lambda t: calls.append(1) or real(t))
    assert load_checkpoint().provenance == ck.OFFICIAL and len(calls) == 123
    ck._load.cache_clear()
    assert load_checkpoint().provenance == ck.OFFICIAL and len(calls) == 123  # from the cache
    tensors = _offline(checkpoint)
    tensors["ln_f.bias"] = tensors["ln_f.bias"] + 1
    write_tensors(tensors)  # the same path, new content
    ck._load.cache_clear()
    with refused("1 of 123 tensors differs.*ln_f.bias"):
        load_checkpoint()


def test_verdict_cache_can_be_turned_off(point_to, checkpoint, monkeypatch):
    monkeypatch.setenv(ck.CACHE_VAR, "off")
    point_to(checkpoint.path)
    assert load_checkpoint().provenance == ck.OFFICIAL


# ------------------------------------------------------------ the Hub, pinned


def _no_env(monkeypatch):
    monkeypatch.delenv(ck.ENV_VAR, raising=False)
    ck._load.cache_clear()


def _hub_reachable(monkeypatch):
    """As if the network reached the Hub (this machine may have none)."""
    import huggingface_hub.constants as hc

    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(ck_hub, "network_problem", lambda endpoint: None)


def test_no_checkpoint_and_no_network(monkeypatch, tmp_path):
    """The real Hub client, offline, with an empty cache: one clear message."""
    _no_env(monkeypatch)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    import huggingface_hub.constants as hc
    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(hc, "HF_HUB_CACHE", str(tmp_path / "hub"))
    with refused("could not be downloaded.*Set GPT2_CHECKPOINT"):
        load_checkpoint()


def test_hugging_face_cache_is_used_at_the_pinned_revision(monkeypatch, checkpoint):
    import huggingface_hub as hub

    _no_env(monkeypatch)
    asked = []

    def cached(repo, name, revision=None):
        asked.append(revision)
        return str(checkpoint.path)

    monkeypatch.setattr(hub, "try_to_load_from_cache", cached)
    monkeypatch.setattr(hub, "hf_hub_download", lambda *a, **k: pytest.fail("no download"))
    loaded = load_checkpoint()
    assert loaded.source == "Hugging Face cache" and loaded.path == checkpoint.path
    assert asked == [ck.HUB_REVISION]
    ck._load.cache_clear()


def test_hub_download_when_not_cached_pins_the_revision(monkeypatch, checkpoint):
    import huggingface_hub as hub

    _no_env(monkeypatch)
    fetched = []
    monkeypatch.setattr(hub, "try_to_load_from_cache", lambda repo, name, revision=None: None)

    def download(repo, name, *, revision=None):
        fetched.append((repo, name, revision))
        return str(checkpoint.path) if name == "model.safetensors" else "unused"

    monkeypatch.setattr(hub, "hf_hub_download", download)
    _hub_reachable(monkeypatch)
    assert load_checkpoint().source == "Hugging Face Hub"
    assert ("openai-community/gpt2", "model.safetensors", ck.HUB_REVISION) in fetched
    assert {n for _, n, _ in fetched} >= {"vocab.json", "merges.txt"}
    assert {r for _, _, r in fetched} == {ck.HUB_REVISION}
    ck._load.cache_clear()


# ------------------------------------------------------------ no network: the message at once



def _closed_port() -> int:
    """A local TCP port that nothing listens on (it was free a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("case", ["name does not resolve", "connection refused",
                                  "HF_HUB_OFFLINE"])
def test_no_checkpoint_no_network_says_so_at_once(tmp_path, case):
    """A fresh process, as a reader starts one: the message, and no Hub retries."""
    hf = {"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_CACHE", "HF_HOME", "HF_ENDPOINT"}
    env = {k: v for k, v in os.environ.items()  # no checkpoint, cache or proxy
           if k not in hf | {ck.ENV_VAR} and not k.lower().endswith("_proxy")}
    env |= {"HF_HOME": str(tmp_path / "hf"), ck.CACHE_VAR: "off"}
    if case == "name does not resolve":  # unresolvable on any machine (RFC 2606)
        env["HF_ENDPOINT"], reason = "http://nonexistent.invalid", (
            r"no network is reachable: the name nonexistent\.invalid does not resolve")
    elif case == "connection refused":
        env["HF_ENDPOINT"], reason = f"http://127.0.0.1:{_closed_port()}", (
            r"no network is reachable: no connection to 127\.0\.0\.1 port \d+ "
            r"\(Connection refused\)")
    else:
        env["HF_HUB_OFFLINE"], reason = "1", "HF_HUB_OFFLINE is set"
    proc = subprocess.run([sys.executable, "-c", OFFLINE_START], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    message = proc.stdout
    assert re.search("could not be downloaded: " + reason, message), message
    assert "Set GPT2_CHECKPOINT" in message and "run once with network access" in message
    assert not re.search(r"(?i)retry|retrying|thrown while requesting", proc.stderr)
    assert proc.stderr == "", proc.stderr


def test_network_problem_is_none_when_a_connection_opens():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        assert ck_hub.network_problem(f"http://127.0.0.1:{port}") is None


def test_network_problem_checks_the_proxy_the_environment_names(monkeypatch):
    """Behind a proxy the Hub's name may not resolve locally: the proxy is what must answer."""
    port = _closed_port()
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    problem = ck_hub.network_problem("http://hub.invalid")
    assert problem and f"127.0.0.1 port {port} (the proxy for hub.invalid)" in problem
    monkeypatch.setenv("NO_PROXY", "hub.invalid")
    assert "the name hub.invalid does not resolve" in ck_hub.network_problem("http://hub.invalid")


def test_a_resolver_that_never_answers_is_given_up(monkeypatch):
    """getaddrinfo has no timeout of its own: the preflight stops waiting for it."""
    import threading
    import time

    answer = threading.Event()
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: answer.wait(30) and [])
    start = time.perf_counter()
    try:
        problem = ck_hub.network_problem("https://huggingface.co", timeout=0.3)
    finally:
        answer.set()
    # gave up rather than waited: the resolver would have answered only after 30 s
    assert time.perf_counter() - start < 10
    assert problem == ("no network is reachable: the name huggingface.co does not resolve "
                       "(no answer within 0.3 s)")


def test_no_network_means_no_hub_client_call(monkeypatch, tmp_path):
    import huggingface_hub as hub
    import huggingface_hub.constants as hc

    _no_env(monkeypatch)
    monkeypatch.setattr(hc, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hc, "ENDPOINT", "http://nonexistent.invalid")
    monkeypatch.setattr(hub, "try_to_load_from_cache", lambda repo, name, revision=None: None)
    monkeypatch.setattr(hub, "hf_hub_download", lambda *a, **k: pytest.fail("Hub contacted"))
    with refused("could not be downloaded: no network is reachable"):
        load_checkpoint()


# ------------------------------------------------------------ what the reader sees


def test_notebook_shows_the_message_without_a_traceback(point_to, tmp_path, capsys):
    """In IPython (a chapter's kernel) the error is its message, no library frames."""
    from IPython.core.interactiveshell import InteractiveShell

    point_to(tmp_path / "nowhere")
    shell = InteractiveShell.instance()
    try:
        shell.run_cell("from attention_book.gpt2 import load_gpt2\nload_gpt2.cache_clear()\n"
                       "load_gpt2()")
    finally:
        InteractiveShell.clear_instance()
    out = capsys.readouterr().out
    assert "CheckpointError" in out and "does not exist" in out
    assert "Traceback" not in out and "attention_book/checkpoint" not in out and "File " not in out
