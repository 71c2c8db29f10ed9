"""The random-init control: GPT-2 small's shapes and initialisation, untrained, seeded."""

import numpy as np

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
