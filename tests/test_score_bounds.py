"""attention_book.score_bounds: the self-score rule of a shared lens and the asymmetry
of scores in units of float32's rounding bound."""

import numpy as np
import pytest

from attention_book.score_bounds import (
    asymmetry_over_rounding,
    bound_slacks,
    self_score_rule_breaks,
)

U32 = float(np.finfo(np.float32).eps) / 2


def test_a_shared_lens_never_breaks_the_self_score_rule_and_separate_lenses_do():
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 6, 30, 8))
    assert self_score_rule_breaks(q @ np.swapaxes(q, -1, -2)) == 0
    assert self_score_rule_breaks(q @ np.swapaxes(k, -1, -2)) > 0
    assert (bound_slacks(q @ np.swapaxes(q, -1, -2))[1] >= -1e-12).all()


def test_rows_whose_self_scores_never_lead_leave_nothing_to_test():
    falling = np.diag(np.arange(5.0, 0.0, -1.0))
    with pytest.raises(ValueError, match="nothing to test"):
        self_score_rule_breaks(falling)


def test_asymmetry_is_measured_in_units_of_the_rounding_bound():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((2, 3, 20, 64)).astype(np.float32)
    tied = q @ np.swapaxes(q, -1, -2)
    assert asymmetry_over_rounding(tied, q, q, U32).max() == 0.0
    assert asymmetry_over_rounding(q @ np.swapaxes(k, -1, -2), q, k, U32).min() > 1e3
    # a perturbation at the size of rounding stays below 1
    noisy = tied + 1e-8 * np.triu(rng.standard_normal(tied.shape), 1)
    assert asymmetry_over_rounding(noisy, q, q, U32).max() < 1


def test_witness_rows_break_both_bounds_for_separate_lenses_and_not_for_a_shared_one():
    from attention_book.constructed import random_gpt2_tensors
    from attention_book.gpt2 import GPT2, Config
    from attention_book.lens_edits import shared_key_lens
    from attention_book.score_bounds import witness_violations

    cfg = Config(n_layer=2, n_head=3, d_model=24, n_ctx=16)
    model = GPT2(random_gpt2_tensors(cfg, seed=4), cfg)
    separate, shared = witness_violations(model), witness_violations(shared_key_lens(model))
    assert separate.shape == (2, 2, 3) and separate.min() > 1e-3
    assert np.abs(shared).max() < 1e-12
