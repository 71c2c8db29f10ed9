"""The hand-built model of chapter 10: LayerNorm only rescales its rows, and the two heads
complete what they must and nothing else."""

import numpy as np
import pytest

from attention_book import head_detectors as hd
from attention_book import induction_toy as kit
from attention_book.gpt2 import layer_norm


@pytest.fixture(scope="module")
def batch():
    return hd.repeated_random_tokens(np.random.default_rng(1), kit.V, 10, kit.BOS, n_seq=8)


def test_layernorm_only_rescales_a_mirrored_row():
    toy = kit.build([[kit.previous_token()], [kit.induction()]])
    x = toy.embed([3, 5, 7])
    assert np.allclose(x.mean(-1), 0)
    normed = layer_norm(x, np.ones(kit.D), np.zeros(kit.D))
    assert np.allclose(normed, x * np.sqrt(kit.F / 2), rtol=1e-3, atol=1e-3)  # two units


def test_the_circuit_completes_the_second_copy_only(batch):
    toy = kit.build([[kit.previous_token()], [kit.induction()]])
    assert kit.accuracy(toy, batch, 10) == (0.0, 1.0)


@pytest.mark.parametrize("layers", [
    [[kit.EMPTY], [kit.induction()]],                 # no note
    [[kit.find_the_earlier_a()]],                       # one head: finds A, copies A
])
def test_what_breaks_the_circuit(batch, layers):
    assert kit.accuracy(kit.build(layers), batch, 10)[1] < 0.2


def test_a_note_two_back_predicts_the_token_after_next(batch):
    skip = kit.build([[kit.previous_token(offset=2)], [kit.induction()]])
    assert kit.accuracy(skip, batch, 10, ahead=2)[1] == 1.0
    assert kit.accuracy(skip, batch, 10, ahead=1)[1] < 0.2


def test_bad_layouts_are_refused_with_what_to_do():
    with pytest.raises(ValueError, match="same number of heads"):
        kit.build([[kit.EMPTY], [kit.EMPTY, kit.EMPTY]])
    with pytest.raises(ValueError, match="coordinates"):
        kit.build([[kit.previous_token()] * 8])          # 20 coordinates per head
    with pytest.raises(ValueError, match="no block"):
        kit.feat("note", 1)
    assert kit.spell([0, 1, 2]) == "· A B"
