"""What a head moves against what its map shows: the contributions rebuild each head's write,
the cases are where the map's favourite moves little, and equal value norms leave none."""

import numpy as np
import pytest

from attention_book import induction_toy as kit
from attention_book import moved_norms as mv
from attention_book.constructed import random_gpt2
from attention_book.gpt2 import Config


@pytest.fixture(scope="module")
def crowd():
    model = kit.build(kit.crowd())
    ids = np.array([0, 3, 5, 7, 9, 3, 5, 7, 9])
    return mv.map_and_moved(model, model.run(model.embed(ids)))


def test_the_contributions_rebuild_the_write_only_with_the_value_bias():
    m = random_gpt2(Config(n_layer=2, n_head=2, d_model=8, n_ctx=16), n_vocab=20, seed=0)
    forward = m.run(m.embed([1, 2, 3, 4]))
    assert mv.map_and_moved(m, forward).gap < 1e-5
    assert mv.map_and_moved(m, forward, value_bias=False).gap > 1e-2


def test_sinks_are_cases_and_planted_heads_are_not(crowd):
    per_head = crowd.cases.sum((-1, -2))
    rows = crowd.alpha.shape[-1] - 1
    assert per_head[0, 1] == per_head[1, 3] == rows     # BOS sinks, every query row
    assert per_head[0, 2] == per_head[1, 1] == 0         # the planted heads
    assert np.allclose(crowd.shares.sum(-1)[crowd.moved.sum(-1) > 0], 1)


def test_equal_value_norms_leave_no_case(crowd):
    flat = mv.equal_value_norms(crowd.alpha, crowd.moved)
    assert not mv.high_alpha_low_share(crowd.alpha, flat).any()


def test_a_share_is_the_row_normalised_moved_norm():
    assert mv.moved_shares(np.array([0.09, 0.2]))[0] == pytest.approx(9 / 29)
    assert (mv.moved_shares(np.zeros(3)) == 0).all()
