"""Exercises of chapter 09, Heads partition the model."""

from __future__ import annotations

from grading.registry import exercise
from grading.tolerance import relative_gap


def _layer_params(d: int, n_heads: int, width: int, biases: bool = True) -> int:
    """Parameters of an attention layer: 3 lenses, W_O, 3 biases per head, b_O."""
    return 4 * d * n_heads * width + (3 * n_heads * width + d if biases else 0)


def _medium(biases: bool = True) -> tuple[int, int, int]:
    return tuple(_layer_params(1024, h, w, biases) for h, w in ((16, 64), (1, 1024), (16, 128)))


def _one_head_with_three_biases() -> tuple[int, int, int]:
    """A slip: the single wide head given three bias numbers, not three bias vectors."""
    right = _medium()
    return right[0], 4 * 1024 * 1024 + 3 + 1024, right[2]


@exercise("ex-h1-medium", difficulty="warm-up", minutes=10, reference=_medium,
          mistakes={"no-biases": lambda: _medium(biases=False),
                    "widths-differ": _one_head_with_three_biases})
def _(got: tuple[int, int, int]) -> str | None:
    want = _medium()
    for name, g, w in zip(("16 heads of 64", "one head of 1024", "16 heads of 128"), got, want,
                          strict=True):
        if g != w:
            return f"the count for {name} is off."
    return None


@exercise("ex-h2-three", difficulty="standard", minutes=15, float32=True,
          reference=lambda: (1 / 3, 3), mistakes={"two-positions": lambda: (0.5, 2)})
def _(answer: tuple[float, int]) -> str | None:
    most_each, heads = answer
    # 1.5%: a supremum read off a softmax at a large finite scale lies just below it;
    # the neighbouring bounds (1/2, 1/4) are 25% and more away
    if relative_gap(most_each, 1 / 3) > 0.015:
        return (f"{most_each:.4f} is not the most each of three positions "
                "can receive from one softmax row.")
    if heads != 3:
        return (f"{heads} heads is not the number needed to deliver more than "
                "0.9 of each of the three messages.")
    return None


@exercise("ex-h3-share", difficulty="warm-up", minutes=5, float32=True,
          reference=lambda: 38 / 48, mistakes={"kept-share": lambda: 10 / 48})
def _(share: float) -> str | None:
    # an exact fraction: 1e-3 of it covers any rounding; the neighbours (37/48, 39/48)
    # are 2.6% away
    if relative_gap(share, 38 / 48) > 1e-3:
        return f"{share:.3f} is not the share held by the 38 pruned heads."
    return None
