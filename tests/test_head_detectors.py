"""The head detectors on models whose heads are planted by hand (attention_book.induction_toy),
so the answer is known."""

import numpy as np
import pytest

from attention_book import head_detectors as hd
from attention_book import induction_toy as kit

CROWD = kit.crowd()   # previous-token head at 0.2, induction head at 1.1, six distractors
PREV, IND = kit.PLANTED_PREV, kit.PLANTED_IND


@pytest.fixture(scope="module")
def probe() -> np.ndarray:
    return hd.repeated_random_tokens(np.random.default_rng(0), kit.V, 7, bos=kit.BOS, n_seq=6)


def test_probe_is_bos_then_distinct_tokens_twice(probe):
    assert probe.shape == (6, 15)
    assert (probe[:, 0] == 0).all()
    assert (probe[:, 1:8] == probe[:, 8:]).all()
    assert all(len(set(row[1:8])) == 7 and 0 not in row[1:] for row in probe)


def test_scores_of_ideal_patterns():
    n, T = 5, 11
    stripe = np.zeros((T, T))
    stripe[np.arange(T), np.arange(T)] = 1
    for i in range(n + 1, T):
        stripe[i] = 0
        stripe[i, i - n + 1] = 1
    sub = np.eye(T, k=-1)
    sub[0, 0] = 1
    assert hd.induction_scores(stripe, n) == pytest.approx(1.0)
    assert hd.previous_token_scores(sub) == pytest.approx(1.0)
    assert hd.induction_scores(sub, n) == pytest.approx(0.0)
    uniform = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
    assert hd.first_token_mass(uniform) == pytest.approx(hd.uniform_first_token_mass(T))
    with pytest.raises(ValueError):
        hd.induction_scores(stripe, n + 1)


def test_detects_exactly_the_planted_heads(probe):
    scores = hd.score_heads(kit.build(CROWD), probe)
    assert scores.induction_heads() == [IND]
    assert scores.previous_token_heads() == [PREV]


def test_minimal_circuit(probe):
    scores = hd.score_heads(kit.build([[kit.previous_token()], [kit.induction()]]), probe)
    assert scores.induction_heads() == [(1, 0)] and scores.previous_token_heads() == [(0, 0)]


def test_removing_the_previous_token_head_loses_both(probe):
    scores = hd.score_heads(kit.without(CROWD, PREV), probe)
    assert scores.induction_heads() == [] and scores.previous_token_heads() == []


def test_removing_the_induction_head_is_flagged(probe):
    scores = hd.score_heads(kit.without(CROWD, IND), probe)
    assert scores.induction_heads() == [] and scores.previous_token_heads() == [PREV]


def test_first_token_mass_finds_the_sinks(probe):
    patterns = hd.attention_patterns(kit.build(CROWD), probe[0])
    mass = hd.first_token_mass(patterns)
    assert hd.detect(mass) == [(0, 1), (1, 3)]
    assert mass[1, 2] == pytest.approx(hd.uniform_first_token_mass(probe.shape[1]), abs=1e-6)


def test_ranks_are_pessimistic_and_the_planted_heads_rank_first():
    scores = np.array([[0.9, 0.5], [0.5, 0.1]])
    assert hd.pessimistic_rank(scores, (0, 0)) == 1
    assert hd.pessimistic_rank(scores, (0, 1)) == hd.pessimistic_rank(scores, (1, 0)) == 3
    planted = hd.probe_scores(kit.build(CROWD), kit.BOS, 7, 3)
    assert hd.worst_ranks(planted, [IND], [PREV]) == (1, 1)
    removed = hd.probe_scores(kit.without(CROWD, IND), kit.BOS, 7, 3)
    assert hd.worst_ranks(removed, [IND], [PREV])[0] > 1
