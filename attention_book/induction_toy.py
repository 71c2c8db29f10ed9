"""A small GPT-2 whose heads are written by hand, where every right answer is known.

Chapter 10 builds its induction circuit here and tests its measuring tools on it. The
residual stream is a row of named blocks of one-hot features (``BLOCKS``), each stored
twice, as +u and -u: a row [u, -u] has mean zero whatever it holds, so LayerNorm (gain 1,
bias 0) only rescales it. Every row carries the same number of unit features at a given
layer (token and position at layer 0, one more after each layer's note), so that factor
is the same for every row and each head's weights are divided by it.

A head is given by its two circuits (``Head``): QK *matches*, "a query with feature a looks
for keys with feature b", and OV *copies*, "copy feature a of the row attended to into
feature b here". Each match and each copy takes one coordinate of the head's space.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gpt2 import GPT2, Config

V, N_POS, N_SCRATCH, BOS = 16, 24, 8, 0   # vocabulary (token 0 plays BOS), positions
BLOCKS = {"tok": V, "pos": N_POS, "prev": V, "out": V, "scratch": N_SCRATCH}
START = dict(zip(BLOCKS, np.cumsum([0, *BLOCKS.values()])[:-1].tolist(), strict=True))
F = sum(BLOCKS.values())  # 80 features
D = 2 * F                 # the residual stream: every feature as +u and -u
GAP = 16.0                # logit margin of a match, after 1/sqrt(d_head)
LETTERS = "·ABCDEFGHIJKLMNO"  # token 0 (BOS) shown as ·


def feat(block: str, k: int | np.ndarray) -> int | np.ndarray:
    """The index of feature ``k`` of ``block`` (``feat("tok", 3)``: token 3 is here)."""
    if block not in BLOCKS:
        raise ValueError(f"no block {block!r}; the blocks are {list(BLOCKS)}")
    return START[block] + k


@dataclass(frozen=True)
class Head:
    """A hand-made head: ``match`` holds (query feature, key feature, weight) triples (its
    QK circuit), ``copy`` holds (source feature, destination feature, weight) triples (OV)."""

    match: tuple[tuple[int, int, float], ...] = ()
    copy: tuple[tuple[int, int, float], ...] = ()


def previous_token(offset: int = 1) -> Head:
    """Attend ``offset`` positions back; copy the token found there into
    ``prev``."""
    return Head(match=tuple((feat("pos", i), feat("pos", i - offset), 1)
                            for i in range(offset, N_POS)),
                copy=tuple((feat("tok", t), feat("prev", t), 1)
                           for t in range(V)))


def induction() -> Head:
    """Match the current token with the ``prev`` note of earlier rows; copy
    that row's token into ``out``."""
    return Head(match=tuple((feat("tok", t), feat("prev", t), 1)
                            for t in range(V)),
                copy=tuple((feat("tok", t), feat("out", t), 1)
                           for t in range(V)))


def find_the_earlier_a() -> Head:
    """The one head that comes closest to induction: match the current token with its
    earlier occurrence (not itself) and copy the token found there into ``out``."""
    return Head(match=tuple((feat("tok", t), feat("tok", t), 1) for t in range(V)) +
                tuple((feat("pos", i), feat("pos", i), -1) for i in range(N_POS)),
                copy=tuple((feat("tok", t), feat("out", t), 1) for t in range(V)))


EMPTY = Head()
# Distractors write a little into `scratch`, which nobody reads.
_TO_SCRATCH = tuple((feat("tok", t), feat("scratch", t % N_SCRATCH), 0.3)
                    for t in range(V) if t != BOS)
SELF = Head(tuple((feat("pos", i), feat("pos", i), 1) for i in range(N_POS)), _TO_SCRATCH)
SINK = Head(tuple((feat("pos", i), feat("tok", BOS), 1) for i in range(N_POS)), _TO_SCRATCH)
TWO_BACK = Head(previous_token(2).match, _TO_SCRATCH)
DUPLICATE = Head(find_the_earlier_a().match, _TO_SCRATCH)
PLANTED_PREV, PLANTED_IND = (0, 2), (1, 1)


def crowd() -> list[list[Head]]:
    """Four heads per layer: the planted previous-token head at 0.2 and induction head at
    1.1 among distractors (chapter 10 lists what each one does)."""
    return [[SELF, SINK, previous_token(), TWO_BACK],
            [DUPLICATE, induction(), EMPTY, SINK]]


def write_head(W: np.ndarray, O: np.ndarray, head: Head, col: int, d_head: int,
               scale: float) -> None:
    """Write one head into c_attn (W: W_Q, W_K, W_V side by side) and c_proj (O), from
    column ``col``; ``scale`` is LayerNorm's factor at this layer."""
    if max(len(head.match), len(head.copy)) > d_head:
        raise ValueError(f"the head needs more than its {d_head} coordinates")
    for c, (fq, fk, wt) in enumerate(head.match):
        W[fq, col + c] = wt * GAP * np.sqrt(d_head) / scale**2      # W_Q
        W[fk, D + col + c] = 1.0                                    # W_K
    for c, (fs, fd, wt) in enumerate(head.copy):
        W[fs, 2 * D + col + c] = 1.0                                # W_V
        O[col + c, fd], O[col + c, F + fd] = wt / scale, -wt / scale  # W_O, mirrored


def _embeddings() -> dict[str, np.ndarray]:
    t = {"wte.weight": np.zeros((V, D)), "wpe.weight": np.zeros((N_POS, D))}
    t["wte.weight"][np.arange(V), feat("tok", np.arange(V))] = 1
    t["wpe.weight"][np.arange(N_POS), feat("pos", np.arange(N_POS))] = 1
    for name in t:
        t[name][:, F:] = -t[name][:, :F]                        # x = [u, -u]
    return t


def _layer(layer: int, heads: list[Head]) -> dict[str, np.ndarray]:
    d_head = D // len(heads)
    scale = np.sqrt(F / (2 + layer))    # LayerNorm's factor: 2 + layer unit features
    W, O = np.zeros((D, 3 * D)), np.zeros((D, D))
    for h, head in enumerate(heads):
        write_head(W, O, head, h * d_head, d_head, scale)
    p = f"h.{layer}."
    # an MLP that is present and adds exactly zero: the full model's code path runs
    return {p + "ln_1.weight": np.ones(D), p + "ln_1.bias": np.zeros(D),
            p + "attn.c_attn.weight": W, p + "attn.c_attn.bias": np.zeros(3 * D),
            p + "attn.c_proj.weight": O, p + "attn.c_proj.bias": np.zeros(D),
            p + "ln_2.weight": np.ones(D), p + "ln_2.bias": np.zeros(D),
            p + "mlp.c_fc.weight": np.zeros((D, 1)), p + "mlp.c_fc.bias": np.zeros(1),
            p + "mlp.c_proj.weight": np.zeros((1, D)), p + "mlp.c_proj.bias": np.zeros(D)}


def build(layers: list[list[Head]]) -> GPT2:
    """A ``GPT2`` from hand-made heads (a list of layers, the same count of heads in
    each), with token embeddings and a zero MLP: a complete model."""
    if not layers or len({len(heads) for heads in layers}) != 1:
        raise ValueError("give one or more layers with the same number of heads in each")
    t = _embeddings()
    for layer, heads in enumerate(layers):
        t |= _layer(layer, heads)
    tensors = {k: v.astype(np.float32) for k, v in t.items()}
    return GPT2(tensors, Config(n_layer=len(layers), n_head=len(layers[0]), d_model=D,
                                n_ctx=N_POS))


def without(layers: list[list[Head]], where: tuple[int, int]) -> GPT2:
    """The model with head ``where`` (layer, head) replaced by an empty head."""
    changed = [list(heads) for heads in layers]
    changed[where[0]][where[1]] = EMPTY
    return build(changed)


def predictions(model: GPT2, ids: np.ndarray) -> np.ndarray:
    """The model's next-token guess at every row: the largest entry of its ``out`` block."""
    final = model.run(model.embed(ids)).output
    return final[:, feat("out", 0):feat("out", V)].argmax(1)


def accuracy(model: GPT2, batch: np.ndarray, n_random: int, ahead: int = 1
             ) -> tuple[float, float]:
    """The share of right guesses of the token ``ahead`` positions on, in the first copy
    (nothing has repeated yet) and in the second (every guess is determined), over
    sequences of BOS and ``n_random`` tokens twice."""
    first, second = [], []
    for ids in batch:
        hit = predictions(model, ids)[:-ahead] == ids[ahead:]
        first.append(hit[1:n_random].mean())
        second.append(hit[n_random + ahead:].mean())
    return float(np.mean(first)), float(np.mean(second))


def spell(ids: np.ndarray) -> str:
    """Token ids as letters."""
    return " ".join(LETTERS[t] for t in ids)
