"""The transparent GPT-2 against Hugging Face transformers as the reference implementation.

torch and transformers (about 4 s to import) are imported by the tests that use them, not at
collection: every xdist worker collects this module, one runs it."""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from attention_book.control import load_control
from attention_book.gpt2 import KVCache, NotAvailable, attention, load_gpt2


@pytest.fixture(scope="module")
def hf():
    """torch and the transformers classes the tests compare against."""
    import torch

    warnings.filterwarnings("ignore", message="IProgress not found")
    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.models.gpt2.modeling_gpt2 import GPT2Attention

    def eager_config(**kw) -> GPT2Config:
        cfg = GPT2Config(**kw)
        cfg._attn_implementation = "eager"
        return cfg

    def causal(T: int) -> torch.Tensor:
        return torch.full((T, T), torch.finfo(torch.float32).min).triu(1)[None, None]

    return SimpleNamespace(torch=torch, GPT2LMHeadModel=GPT2LMHeadModel,
                           GPT2Attention=GPT2Attention, eager_config=eager_config,
                           causal=causal)


@pytest.fixture(scope="module")
def model():
    return load_gpt2()


@pytest.fixture(scope="module")
def random_full(hf):
    """A randomly initialised full-size GPT-2 (tied wte, MLP): exercises the whole-model path.
    The book's random-init control (transformers' own initialisation of GPT2LMHeadModel,
    seed 0, cached by `make control`), as ours and loaded into transformers' model (built on
    the meta device: its own initialisation would only be overwritten)."""
    torch = hf.torch
    ours = load_control()
    with torch.device("meta"):
        ref = hf.GPT2LMHeadModel(hf.eager_config())
    ref.transformer.load_state_dict({k: torch.from_numpy(v) for k, v in ours.tensors.items()},
                                    assign=True)
    ref.tie_weights()
    assert ref.lm_head.weight is ref.transformer.wte.weight
    return ref.eval(), ours


@pytest.mark.parametrize("causal", [True, False])
def test_every_layer_matches_transformers(model, causal, hf):
    """Per layer on the real attention tensors, same inputs: patterns equal to 1e-5, outputs
    to 1e-5 of their scale (position 0's rows reach |out| ~ 1e3 in layer 11, where float32
    itself resolves only ~1e-4; relative differences measured are ~3e-7)."""
    torch = hf.torch
    x = model.run(model.position_rows(24), mlp=False).residuals  # realistic inputs per layer
    for i in range(12):
        ours = attention(model.layers[i], x[i], causal=causal)
        ref = hf.GPT2Attention(hf.eager_config(), layer_idx=i).eval()
        p = f"h.{i}.attn."
        ref.load_state_dict({k.removeprefix(p): torch.from_numpy(v)
                             for k, v in model.tensors.items() if k.startswith(p)})
        with torch.no_grad():
            out, pattern = ref(torch.from_numpy(ours.x_ln)[None],
                               attention_mask=hf.causal(24) if causal else None)
        expected = out[0].numpy()
        assert np.abs(expected - ours.out).max() < 1e-5 * np.abs(expected).max(), i
        assert np.abs(pattern[0].numpy() - ours.pattern).max() < 1e-5, i


def test_whole_model_logits_match_transformers(random_full, hf):
    torch = hf.torch
    ref, ours = random_full
    ids = np.random.default_rng(0).integers(0, 50257, 16)
    with torch.no_grad():
        expected = ref(torch.from_numpy(ids)[None]).logits[0].numpy()
    got = ours.logits(ids)
    assert got.shape == (16, 50257)
    assert np.abs(got - expected).max() < 1e-4


def test_kv_cache_decoding_equals_full_recomputation(random_full):
    _, ours = random_full
    ids = np.random.default_rng(1).integers(0, 50257, 10)
    full = ours.logits(ids)
    cache = KVCache()
    steps = [ours.logits(ids[:6], cache)] + [ours.logits(ids[t:t + 1], cache) for t in range(6, 10)]
    assert len(cache) == 10
    assert np.abs(np.concatenate(steps) - full).max() < 1e-4
    assert cache.nbytes == 2 * 12 * 12 * 64 * 10 * 4


def test_attention_path_with_cache(model):
    x = model.position_rows(12)
    full = model.run(x, mlp=False)
    cache = KVCache()
    first = model.run(x[:8], mlp=False, cache=cache)
    rest = model.run(x[8:], mlp=False, cache=cache)
    # float32 through 12 layers, |output| ~ 1e3; BLAS rounds differently for different shapes
    scale = np.abs(full.output).max()
    assert np.abs(np.concatenate([first.output, rest.output]) - full.output).max() < 1e-5 * scale
    for layer in range(12):
        k_scale = np.abs(full.traces[layer].k).max()
        assert np.abs(cache.keys[layer] - full.traces[layer].k).max() < 1e-5 * k_scale


def test_mask_matters(model):
    x = model.position_rows(8)
    causal = model.run(x, mlp=False, layers=1).output
    bidirectional = model.run(x, mlp=False, causal=False, layers=1).output
    # after one layer the last row saw every row either way; the first row did not
    assert np.abs(causal[-1] - bidirectional[-1]).max() < 1e-4
    assert np.abs(causal[0] - bidirectional[0]).max() > 1e-2


def test_partial_checkpoint_says_what_it_cannot_do(model):
    if model.has_wte and model.has_mlp:
        pytest.skip("full checkpoint: nothing is unavailable")
    with pytest.raises(NotAvailable, match="full GPT-2 checkpoint"):
        model.logits([464, 3797])
    with pytest.raises(NotAvailable):
        model.run(model.position_rows(3))  # mlp=True by default


@pytest.mark.parametrize("rows, message", [
    (np.zeros((5, 700), np.float32), r"shape \[T, 768\]"),
    (np.full((5, 768), np.nan, np.float32), "NaN"),
    (np.zeros((1025, 768), np.float32), "exceed the context"),
])
def test_bad_rows_are_refused(model, rows, message):
    with pytest.raises(ValueError, match=message):
        model.run(rows, mlp=False)


def test_bad_token_ids_are_refused(random_full):
    _, ours = random_full
    with pytest.raises(ValueError, match="token ids"):
        ours.embed([1, 50257])
