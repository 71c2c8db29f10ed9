"""Chapter 08's usage maps (attention_book.usage_maps): on a random layer they match the
prediction; a saturated softmax reads keys no nudge can move (the generic part fails, the
identity part holds)."""

import numpy as np

from attention_book.constructed import random_gpt2
from attention_book.gpt2 import attention
from attention_book.schema import Config
from attention_book.usage_maps import (
    attend,
    moved_unread,
    predicted,
    read_unmoved,
    usage_maps,
)

CONFIG = Config(n_layer=1, n_head=2, d_model=16, n_ctx=16)


def test_attend_is_the_books_attention():
    m = random_gpt2(CONFIG, n_vocab=20, seed=0)
    tr = attention(m.layers[0], m.position_rows(7))
    assert np.array_equal(attend(tr.q, tr.k, tr.v), tr.z)


def test_maps_match_the_prediction_and_the_other_mask_does_not():
    m = random_gpt2(CONFIG, n_vocab=20, seed=0)
    maps = usage_maps(attention(m.layers[0], m.position_rows(7)))
    want = predicted(7)
    assert moved_unread(maps, want) == read_unmoved(maps, want) == 0
    assert moved_unread(maps, want, True) > 0 and read_unmoved(maps, want, True) > 0


def test_a_saturated_softmax_moves_no_bit_where_a_key_is_read():
    m = random_gpt2(CONFIG, n_vocab=20, seed=0)
    tr = attention(m.layers[0], m.position_rows(7))
    tr.q, tr.k = tr.q * 1e4, tr.k * 1e4  # scores far beyond float32's exp
    maps = usage_maps(tr)
    want = predicted(7)
    assert moved_unread(maps, want) == 0 and read_unmoved(maps, want) > 0
