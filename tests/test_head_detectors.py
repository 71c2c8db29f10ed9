"""The head detectors on models whose heads are planted by hand, so the answer is known."""

import numpy as np
import pytest

from attention_book import head_detectors as hd
from attention_book.gpt2 import GPT2, Config

V, N = 12, 16             # vocabulary (0 is BOS) and positions of the test model
TOK, POS, PREV = 0, V, V + N
F = 2 * V + N             # features; the residual stream holds [u, -u] so LayerNorm only rescales
D = 2 * F
MARGIN = 20.0             # logit margin of a planted match


def _head(match=(), copy=()):
    return {"match": list(match), "copy": list(copy)}


PREVIOUS = _head(match=[(POS + i, POS + i - 1) for i in range(1, N)],
                 copy=[(TOK + t, PREV + t) for t in range(V)])
INDUCTION = _head(match=[(TOK + t, PREV + t) for t in range(V)])          # a pattern is enough
SELF = _head(match=[(POS + i, POS + i) for i in range(N)])
TWO_BACK = _head(match=[(POS + i, POS + i - 2) for i in range(2, N)])
BOS_SINK = _head(match=[(POS + i, TOK + 0) for i in range(N)])
DUPLICATE = _head(match=[(TOK + t, TOK + t) for t in range(V)])  # includes itself: split weight
EMPTY = _head()


def planted_model(layers: list[list[dict]]) -> GPT2:
    """A GPT2 whose heads attend as their match lists say (one head coordinate per match)."""
    n_head = len(layers[0])
    d_head = D // n_head
    t = {"wte.weight": np.zeros((V, D)), "wpe.weight": np.zeros((N, D))}
    t["wte.weight"][np.arange(V), TOK + np.arange(V)] = 1
    t["wpe.weight"][np.arange(N), POS + np.arange(N)] = 1
    for k in ("wte.weight", "wpe.weight"):
        t[k][:, F:] = -t[k][:, :F]
    for layer, heads in enumerate(layers):
        scale = F / (2 + layer)          # squared LayerNorm factor of a row with 2 + layer units
        W, O = np.zeros((D, 3 * D)), np.zeros((D, D))
        for h, spec in enumerate(heads):
            for c, (fq, fk) in enumerate(spec["match"]):
                W[fq, h * d_head + c] = MARGIN * np.sqrt(d_head) / scale
                W[fk, D + h * d_head + c] = 1.0
            for c, (fs, fd) in enumerate(spec["copy"]):
                W[fs, 2 * D + h * d_head + c] = 1.0
                O[h * d_head + c, fd] = 1 / np.sqrt(scale)
                O[h * d_head + c, F + fd] = -1 / np.sqrt(scale)
        p = f"h.{layer}."
        t |= {p + "ln_1.weight": np.ones(D), p + "ln_1.bias": np.zeros(D),
              p + "attn.c_attn.weight": W, p + "attn.c_attn.bias": np.zeros(3 * D),
              p + "attn.c_proj.weight": O, p + "attn.c_proj.bias": np.zeros(D),
              p + "ln_2.weight": np.ones(D), p + "ln_2.bias": np.zeros(D),
              p + "mlp.c_fc.weight": np.zeros((D, 2)), p + "mlp.c_fc.bias": np.zeros(2),
              p + "mlp.c_proj.weight": np.zeros((2, D)), p + "mlp.c_proj.bias": np.zeros(D)}
    tensors = {k: v.astype(np.float32) for k, v in t.items()}
    return GPT2(tensors, Config(n_layer=len(layers), n_head=n_head, d_model=D, n_ctx=N))


CROWD = [[SELF, PREVIOUS, TWO_BACK, BOS_SINK], [INDUCTION, DUPLICATE, EMPTY, BOS_SINK]]


@pytest.fixture(scope="module")
def probe() -> np.ndarray:
    return hd.repeated_random_tokens(np.random.default_rng(0), V, 7, bos=0, n_seq=6)


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
    scores = hd.score_heads(planted_model(CROWD), probe)
    assert scores.induction_heads() == [(1, 0)]
    assert scores.previous_token_heads() == [(0, 1)]


def test_minimal_circuit(probe):
    scores = hd.score_heads(planted_model([[PREVIOUS], [INDUCTION]]), probe)
    assert scores.induction_heads() == [(1, 0)] and scores.previous_token_heads() == [(0, 0)]


def test_removing_the_previous_token_head_loses_both(probe):
    crowd = [list(layer) for layer in CROWD]
    crowd[0][1] = EMPTY
    scores = hd.score_heads(planted_model(crowd), probe)
    assert scores.induction_heads() == [] and scores.previous_token_heads() == []


def test_removing_the_induction_head_is_flagged(probe):
    crowd = [list(layer) for layer in CROWD]
    crowd[1][0] = EMPTY
    scores = hd.score_heads(planted_model(crowd), probe)
    assert scores.induction_heads() == [] and scores.previous_token_heads() == [(0, 1)]


def test_first_token_mass_finds_the_sinks(probe):
    patterns = hd.attention_patterns(planted_model(CROWD), probe[0])
    mass = hd.first_token_mass(patterns)
    assert hd.detect(mass) == [(0, 3), (1, 3)]
    assert mass[1, 2] == pytest.approx(hd.uniform_first_token_mass(probe.shape[1]), abs=1e-6)
