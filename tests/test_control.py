"""The random-init control: GPT-2 small's shapes and initialisation, untrained, seeded."""

import numpy as np
import pytest

from attention_book.checkpoint import expected_shapes
from attention_book.control import control_path, load_control


def test_the_control_has_every_gpt2_small_tensor_with_its_shape():
    model = load_control()
    shapes = {k: tuple(model.tensors[k].shape) for k in model.tensors}
    assert shapes == expected_shapes()
    assert model.has_wte and model.has_mlp


def test_the_control_is_gpt2s_initialisation_not_training():
    t = load_control().tensors
    w = t["h.3.attn.c_attn.weight"]
    assert abs(w.std() - 0.02) < 5e-4 and abs(w.mean()) < 5e-4
    # transformers scales the residual projections by 1 / sqrt(2 n_layer)
    assert abs(t["h.3.attn.c_proj.weight"].std() - 0.02 / np.sqrt(24)) < 2e-4
    assert not t["h.3.attn.c_attn.bias"].any() and (t["h.3.ln_1.weight"] == 1).all()


def test_the_cached_control_names_its_seed_and_transformers_version():
    from importlib.metadata import version

    name = control_path().name
    assert name == f"gpt2-small-init-seed0-transformers-{version('transformers')}.safetensors"


def test_the_memory_map_reads_what_safetensors_reads():
    from safetensors import safe_open

    from attention_book.control import mapped_tensors

    path = control_path()
    reference = safe_open(str(path), framework="np")
    mapped = mapped_tensors(path)
    assert set(mapped) == set(reference.keys()) and "wte.weight" in mapped
    for key in ("wte.weight", "h.0.attn.c_attn.bias", "h.11.mlp.c_proj.weight"):
        want = reference.get_tensor(key)
        assert mapped[key].dtype == want.dtype and np.array_equal(mapped[key], want)
    # copy-on-write: writing to an array changes neither the file nor a new map
    mapped["h.0.ln_1.bias"][0] = 7.0
    assert mapped_tensors(path)["h.0.ln_1.bias"][0] == reference.get_tensor("h.0.ln_1.bias")[0]


def test_a_damaged_cached_control_is_named_with_what_to_do(tmp_path):
    from attention_book.control import mapped_tensors

    bad = tmp_path / "permuted-seed0-0123.safetensors"
    bad.write_bytes(control_path().read_bytes()[:5000])  # cut short
    with pytest.raises(RuntimeError, match=r"cached control .*permuted-seed0-0123.*delete it"):
        mapped_tensors(bad)
