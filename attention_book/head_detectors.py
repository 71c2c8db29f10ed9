"""Find heads by what their attention patterns do on a probe input.

The probe for induction is a BOS token followed by random tokens repeated twice,
``[BOS, r_1 .. r_n, r_1 .. r_n]``. Position ``i`` of the second copy holds the token of
position ``i - n``; an induction head attends from ``i`` to ``i - n + 1``, the token that
followed the first occurrence. A previous-token head attends from ``i`` to ``i - 1``.
Scores are mean attention weights, so they lie in [0, 1] and compare across models.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gpt2 import GPT2, attention

# A head counts as doing a job when, on average, the majority of its attention mass goes
# to the one position that job designates.
THRESHOLD = 0.5


def repeated_random_tokens(rng: np.random.Generator, vocab: int | np.ndarray, n_random: int,
                           bos: int, n_seq: int = 1) -> np.ndarray:
    """[n_seq, 1 + 2 n_random] ids: BOS, then n_random distinct random tokens, twice.

    ``vocab`` is the vocabulary size or an array of the ids to draw from; BOS is never
    drawn. Tokens are distinct within a sequence, so every token of the second copy has
    exactly one earlier occurrence and the induction target is unambiguous.
    """
    pool = np.arange(vocab) if np.isscalar(vocab) else np.asarray(vocab)
    pool = pool[pool != bos]
    if n_random > len(pool):
        raise ValueError(f"cannot draw {n_random} distinct tokens from {len(pool)}")
    out = np.empty((n_seq, 1 + 2 * n_random), dtype=np.int64)
    out[:, 0] = bos
    for s in range(n_seq):
        r = rng.choice(pool, size=n_random, replace=False)
        out[s, 1:] = np.concatenate([r, r])
    return out


def attention_patterns(model: GPT2, ids: np.ndarray, mlp: bool = True) -> np.ndarray:
    """[n_layer, n_head, T, T] patterns of the whole model (embedding, attention, MLP)
    on one sequence of token ids. Needs the model's token embeddings, and its MLP
    weights unless ``mlp=False``. The last layer's attention reads the rows the layers
    before it wrote; its MLP, which no pattern reads, is not run."""
    last = model.config.n_layer - 1
    forward = model.run(model.embed(ids), mlp=mlp, layers=last)
    final = attention(model.layers[last], forward.output, eps=model.config.eps)
    return np.stack([tr.pattern for tr in (*forward.traces, final)])


def induction_scores(patterns: np.ndarray, n_random: int) -> np.ndarray:
    """Mean attention from each position i of the second copy to i - n_random + 1.

    ``patterns`` is [..., T, T] with T = 1 + 2 n_random; the result drops the last two axes.
    """
    T = patterns.shape[-1]
    if T != 1 + 2 * n_random:
        raise ValueError(f"patterns of length {T} do not fit BOS + 2 x {n_random} tokens")
    i = np.arange(n_random + 1, T)
    return patterns[..., i, i - n_random + 1].mean(-1)


def previous_token_scores(patterns: np.ndarray) -> np.ndarray:
    """Mean attention from each position i >= 1 to i - 1, over [..., T, T] patterns."""
    i = np.arange(1, patterns.shape[-1])
    return patterns[..., i, i - 1].mean(-1)


def first_token_mass(patterns: np.ndarray, start: int = 1) -> np.ndarray:
    """Mean attention on position 0 from the query positions i >= start."""
    return patterns[..., start:, 0].mean(-1)


def uniform_first_token_mass(T: int, start: int = 1) -> float:
    """What ``first_token_mass`` gives for a head spreading evenly over i + 1 positions."""
    return float(np.mean(1.0 / (np.arange(start, T) + 1)))


def detect(scores: np.ndarray, threshold: float = THRESHOLD) -> list[tuple[int, int]]:
    """Heads (layer, head) whose score exceeds the threshold, in layer-head order."""
    return [(int(layer), int(head)) for layer, head in np.argwhere(scores > threshold)]


@dataclass(frozen=True)
class HeadScores:
    """Induction and previous-token scores of every head, averaged over sequences."""

    induction: np.ndarray  # [n_layer, n_head]
    previous: np.ndarray   # [n_layer, n_head]
    n_seq: int
    n_random: int

    def induction_heads(self, threshold: float = THRESHOLD) -> list[tuple[int, int]]:
        return detect(self.induction, threshold)

    def previous_token_heads(self, threshold: float = THRESHOLD) -> list[tuple[int, int]]:
        return detect(self.previous, threshold)


def score_heads(model: GPT2, ids: np.ndarray, mlp: bool = True) -> HeadScores:
    """Run the model on each probe sequence (rows of ``ids``) and score every head."""
    ids = np.atleast_2d(ids)
    n_random = (ids.shape[1] - 1) // 2
    ind, prev = [], []
    for seq in ids:
        p = attention_patterns(model, seq, mlp=mlp)
        ind.append(induction_scores(p, n_random))
        prev.append(previous_token_scores(p))
    return HeadScores(np.mean(ind, 0), np.mean(prev, 0), len(ids), n_random)


def probe_scores(model: GPT2, bos: int, n_random: int, n_seq: int, seed: int = 0
                 ) -> HeadScores:
    """Every head of ``model`` scored on ``n_seq`` seeded probes of BOS and ``n_random``
    random tokens (drawn from its whole vocabulary) twice."""
    ids = repeated_random_tokens(np.random.default_rng(seed),
                                 model.tensors["wte.weight"].shape[0], n_random, bos, n_seq)
    return score_heads(model, ids)


def pessimistic_rank(scores: np.ndarray, head: tuple[int, int]) -> int:
    """The head's rank by score, 1 the strict best; a tie counts against the head."""
    return int((scores >= scores[head]).sum())


def worst_ranks(scores: HeadScores, induction_heads: list[tuple[int, int]],
                previous_heads: list[tuple[int, int]]) -> tuple[int, int]:
    """The worst rank of the listed induction heads by induction score, and of the listed
    previous-token heads by previous-token score."""
    return (max(pessimistic_rank(scores.induction, h) for h in induction_heads),
            max(pessimistic_rank(scores.previous, h) for h in previous_heads))


def name(head: tuple[int, int]) -> str:
    """``(5, 1)`` -> ``"5.1"``."""
    return f"{head[0]}.{head[1]}"
