"""Exercises of chapter 09, Heads partition the model."""

from __future__ import annotations

from fractions import Fraction

from grading.registry import exercise
from grading.tolerance import relative_gap


def _layer_params(d: int, n_heads: int, width: int) -> int:
    """Parameters of an attention layer: 3 lenses, W_O, 3 biases per head, b_O."""
    return 4 * d * n_heads * width + 3 * n_heads * width + d


def _medium() -> tuple[int, int, int]:
    return (_layer_params(1024, 16, 64), _layer_params(1024, 1, 1024),
            _layer_params(1024, 16, 128))


@exercise("ex-h1-medium", difficulty="warm-up", minutes=10,
          hint="Count every matrix and bias of the layer, per head and shared. Which "
               "counts depend on the number of heads and their width separately?",
          reference=_medium,
          wrong=lambda: (4 * 1024**2, 4 * 1024**2, 8 * 1024**2))
def _(answer) -> str | None:
    got = tuple(int(v) for v in answer)
    if len(got) != 3:
        return "give three counts: 16 x 64, 1 x 1024 and 16 x 128, in order."
    want = _medium()
    if got[0] != got[1]:
        return ("the first two counts differ, but 16 heads of 64 and one head "
                "of 1024 have the same total width.")
    if got[0] == 4 * 1024**2 or got[2] == 8 * 1024**2:
        return "the weight matrices are right, but the biases are missing."
    if got[0] != want[0]:
        return "the count for 16 heads of 64 is off."
    if got[2] != want[2]:
        return "the count for 16 heads of 128 is off."
    return None


@exercise("ex-h2-three", difficulty="standard", minutes=15,
          hint="The three weights come from one softmax row, which sums to 1. How much "
               "can a head give a position when it aims at that one alone?",
          reference=lambda: (1 / 3, 3), wrong=lambda: (0.5, 2), float32=True)
def _(answer) -> str | None:
    most_each, heads = answer
    most_each = float(most_each)
    # 1.5%: a supremum read off a softmax at a large finite scale lies just below it;
    # the neighbouring bounds (1/2, 1/4) are 25% and more away
    if relative_gap(most_each, 0.5) < 0.015:
        return ("one half is the bound for two positions; here one row is "
                "shared by three.")
    if relative_gap(most_each, 1 / 3) > 0.015:
        return (f"{most_each:.4f} is not the most each of three positions "
                "can receive from one softmax row.")
    if int(heads) != heads or int(heads) != 3:
        return (f"{heads} heads is not the number needed to deliver more than "
                "0.9 of each of the three messages.")
    return None


@exercise("ex-h3-share", difficulty="warm-up", minutes=5,
          hint="Do the heads of such a model differ in how many weights they hold?",
          reference=lambda: 38 / 48, wrong=lambda: 10 / 48, float32=True)
def _(answer) -> str | None:
    share = float(answer)
    if not 0 <= share <= 1:
        return "a share lies between 0 and 1."
    # an exact fraction: 1e-3 of it covers any rounding; the neighbours (37/48, 39/48)
    # are 2.6% away
    if relative_gap(share, float(Fraction(10, 48))) < 1e-3:
        return "that is the share of the heads that were kept, not pruned."
    if relative_gap(share, float(Fraction(38, 48))) > 1e-3:
        return f"{share:.3f} is not the share held by the 38 pruned heads."
    return None
