"""The book's torch counter (attention_book.torch_counts.OpCounter) counts FLOPs as torch's
own FlopCounterMode does, on the layers chapters 08b and 09 count, and records what the
code reads."""

import pytest

torch = pytest.importorskip("torch")
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402

from attention_book.torch_counts import (  # noqa: E402
    OpCounter,
    fused_attention_layer,
    layer_flops,
)


def meta(*shape):
    return torch.empty(*shape, device="meta")


def grouped_step(q, k, v, bias):
    """08b's grouped-query attention: baddbmm with the mask, softmax, mixing."""
    n_q, t_q, d = q.shape
    n_kv, _, _ = k.shape
    g = n_q // n_kv
    scores = torch.baddbmm(bias.repeat(g, 1), q.reshape(n_kv, g * t_q, d),
                           k.transpose(1, 2), alpha=d ** -0.5)
    return (torch.softmax(scores, -1) @ v).reshape(n_q, t_q, d)


def both_counts(run):
    with OpCounter() as ours:
        run()
    with FlopCounterMode(display=False) as theirs:
        run()
    return ours.flops, theirs.get_total_flops()


@pytest.mark.parametrize("n_head", [1, 3, 12, 96])
def test_fused_layer_counted_as_flop_counter_mode(n_head):
    d, n = 96, 40
    shapes = [(d, 3 * d), (3 * d,), (d, d), (d,)]
    ours, theirs = both_counts(lambda: fused_attention_layer(
        meta(n, d), *(meta(*s) for s in shapes), n_head=n_head))
    assert ours == theirs > 0
    # the products: fused projection, scores, mixing, output (2 mkn each)
    assert ours == 2 * n * d * 3 * d + 2 * 2 * n * n * d + 2 * n * d * d


@pytest.mark.parametrize(("n_q", "n_kv", "t_q", "t_k"), [(12, 12, 1, 50), (8, 2, 7, 7)])
def test_grouped_step_counted_as_flop_counter_mode(n_q, n_kv, t_q, t_k):
    d = 16
    args = meta(n_q, t_q, d), meta(n_kv, t_k, d), meta(n_kv, t_k, d), meta(t_q, t_k)
    ours, theirs = both_counts(lambda: grouped_step(*args))
    assert ours == theirs == 2 * 2 * n_q * t_q * t_k * d


def test_a_product_counts_two_per_multiply_add():
    with OpCounter() as counter:
        torch.ones(3, 5) @ torch.ones(5, 7)
    assert counter.flops == 2 * 3 * 5 * 7


def test_reads_are_the_tensors_an_operation_computed_from():
    used, unused = torch.ones(4, 4), torch.ones(4, 4)
    with OpCounter() as counter:
        view = used.T                 # a view reads nothing
        assert not counter.read(used)
        (view @ view).sum()
    assert counter.read(used) and not counter.read(unused)
    assert counter.flops == 2 * 4 * 4 * 4


def test_layer_flops_counts_the_fused_layer_and_refuses_a_split_that_does_not_divide():
    assert layer_flops(4, 8, 10, 32) == 2 * 10 * 32 * 96 + 2 * 2 * 10 * 10 * 32 + \
        2 * 10 * 32 * 32
    with pytest.raises(ValueError, match="do not split the width"):
        fused_attention_layer(meta(10, 32), meta(32, 96), meta(96), meta(32, 32),
                              meta(32), n_head=5)
