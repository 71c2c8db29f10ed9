import numpy as np

from attention_book.checkpoint import expected_shapes
from attention_book.constructed import attention_shapes, random_gpt2, random_gpt2_tensors
from attention_book.gpt2 import Config, attention


def test_gpt2_small_config_gives_every_tensor_with_its_shape():
    small = Config(n_layer=1)
    t = random_gpt2_tensors(small, seed=0)
    want = {k: v for k, v in expected_shapes().items() if not k.startswith("h.") or
            k.startswith("h.0.")}
    assert {k: v.shape for k, v in t.items()} == want


def test_seeded_and_complete():
    cfg = Config(n_layer=2, n_head=2, d_model=8, n_ctx=16)
    a, b = random_gpt2(cfg, n_vocab=20, seed=3), random_gpt2(cfg, n_vocab=20, seed=3)
    assert a.has_wte and a.has_mlp
    assert np.array_equal(a.logits([1, 2, 3]), b.logits([1, 2, 3]))
    assert not np.array_equal(a.logits([1, 2, 3]), random_gpt2(cfg, 20, seed=4).logits([1, 2, 3]))


def test_attention_shapes_gqa_and_mha():
    gqa = attention_shapes(8192, 64, 8, 128)
    assert gqa["W_Q"] == gqa["W_O"][::-1] == (8192, 8192) and gqa["W_K"] == (8192, 1024)
    assert attention_shapes(768, 12, 12, 64) == {k: (768, 768) for k in gqa}


def test_under_gqa_only_w_k_and_w_v_shrink_by_h_over_g():
    """The checklist's GQA column (chapter 11): Llama 2 70B's layout against the same model
    with one key-value head per query head."""
    gqa, mha = attention_shapes(8192, 64, 8, 128), attention_shapes(8192, 64, 64, 128)
    factor = {w: np.prod(mha[w]) / np.prod(gqa[w]) for w in gqa}
    assert factor == {"W_Q": 1, "W_K": 64 / 8, "W_V": 64 / 8, "W_O": 1}


def test_layer_input_is_the_real_stream_only_for_token_rows_with_mlp():
    from attention_book.subjects import Case, InputSet

    m = random_gpt2(Config(n_layer=3, n_head=2, d_model=8, n_ctx=16), n_vocab=20, seed=0)
    tokens = Case("m", InputSet("A", "tokens", (0, 1, 2), (1, 2, 3), ("a", "b", "c")), m)
    positions = Case("m", InputSet("B", "positions", (0, 1, 2)), m)
    assert np.array_equal(tokens.layer_input(0), m.embed([1, 2, 3]))
    assert "residuals" not in tokens._traces  # layer 0 reads the rows: no forward run
    assert not np.allclose(tokens.layer_input(1), tokens.x)
    assert np.array_equal(tokens.layer_input(2), m.run(m.embed([1, 2, 3])).residuals[2])
    assert all(np.array_equal(positions.layer_input(i), m.position_rows(3))
               for i in range(3))
    # the run that gave the stream gave each layer's trace: kept, equal to a fresh one
    fresh = attention(m.layers[2], tokens.layer_input(2), eps=m.config.eps)
    assert all(np.array_equal(getattr(tokens.trace(2), f), getattr(fresh, f))
               for f in ("scores", "pattern", "head_writes", "out"))
    assert tokens.runs_forward and not positions.runs_forward


def test_score_traces_are_the_forward_runs_when_the_case_makes_one():
    from attention_book.head_scores import score_traces
    from attention_book.lens_edits import without_values
    from attention_book.subjects import Case, InputSet

    m = random_gpt2(Config(n_layer=2, n_head=2, d_model=8, n_ctx=16), n_vocab=20, seed=2)
    tokens = Case("m", InputSet("A", "tokens", (0, 1, 2), (1, 2, 3), ("a", "b", "c")), m)
    assert all(t is tokens.trace(i) for i, t in enumerate(score_traces(tokens)))
    for i, t in enumerate(score_traces(tokens)):  # the same numbers as without values
        alone = attention(without_values(m.layers[i]), tokens.layer_input(i), eps=m.config.eps)
        assert all(np.array_equal(getattr(t, f), getattr(alone, f))
                   for f in ("q", "k", "scores", "pattern"))


def test_a_traces_value_path_is_values_then_written():
    from attention_book.gpt2 import values, written

    m = random_gpt2(Config(n_layer=1, n_head=2, d_model=8, n_ctx=16), n_vocab=20, seed=1)
    tr = attention(m.layers[0], m.position_rows(5), eps=m.config.eps)
    head_writes, out = written(m.layers[0], tr.z)
    assert np.array_equal(values(m.layers[0], tr.x_ln), tr.v)
    assert np.array_equal(head_writes, tr.head_writes) and np.array_equal(out, tr.out)
