"""The head atlas's numbers (attention_book.head_atlas): the OV copying score through the
64 x 64 reduction is the one of the token-to-token circuit, and every field is there for
every head."""

from types import SimpleNamespace

import numpy as np

from attention_book.control import load_control
from attention_book.head_atlas import FIELDS, copying_scores, net_metrics


def test_the_copying_score_through_the_small_product_is_the_full_circuits():
    rng = np.random.default_rng(0)
    n_head, d_model, d_head, n_vocab = 3, 16, 4, 40
    w = SimpleNamespace(W_V=rng.standard_normal((n_head, d_model, d_head)),
                        W_O=rng.standard_normal((n_head, d_head, d_model)))
    W_E = rng.standard_normal((n_vocab, d_model))
    got = copying_scores(w, W_E.T @ W_E)
    for h in range(n_head):
        lam = np.linalg.eigvals(W_E @ w.W_V[h] @ w.W_O[h] @ W_E.T)  # 40 x 40, rank 4
        # (float64 rounding: the 36 zero eigenvalues come out near 1e-13 of the others)
        np.testing.assert_allclose(got[h], lam.real.sum() / np.abs(lam).sum(), rtol=1e-9)


def test_every_head_of_the_control_has_every_field():
    heads, rows = net_metrics(load_control(), tokens=False)
    assert len(heads) == 144 and "position rows" in rows
    for name, entry in heads.items():
        assert set(entry) == set(FIELDS), name
        assert len(entry["qk_singular_values"]) == 64 and entry["ov_copying_score"] is None
        assert 0 <= entry["antisymmetric_share"] <= 1
