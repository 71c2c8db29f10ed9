"""Every layer's scores on one case's rows, computed once per case (chapters 03a, 03b).

- ``score_traces``: the attention trace of each of the 12 layers on the rows it reads,
  with the value path left out (``lens_edits.without_values``): queries, keys, scores
  and pattern as the book's ``attention`` computes them, no head writes;
- ``separate_scores``: the real scores q_i . k_j, [n_layer, n_head, T, T];
- ``shared_scores``: the scores q_i . q_j of a shared lens (W_K and b_K replaced by the
  head's own W_Q and b_Q), [n_layer, n_head, T, T].
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .gpt2 import attention
from .lens_edits import without_values

if TYPE_CHECKING:
    from .gpt2 import AttentionTrace
    from .subjects import Case


def score_traces(case: Case) -> list[AttentionTrace]:
    """The trace of every layer on ``case.layer_input(layer)``, value path left out; or,
    when the case runs the model forward (``Case.runs_forward``), the traces of that run,
    whose queries, keys, scores and pattern are the same numbers."""
    def compute(c: Case) -> list[AttentionTrace]:
        if c.runs_forward:
            return [c.trace(layer) for layer in range(c.model.config.n_layer)]
        return [attention(without_values(w), c.layer_input(layer), eps=c.model.config.eps)
                for layer, w in enumerate(c.model.layers)]
    return case.memo("score traces", compute)


def separate_scores(case: Case) -> np.ndarray:
    """[n_layer, n_head, T, T] raw scores q_i . k_j of every head."""
    return case.memo("separate scores", lambda c: np.stack(
        [t.scores for t in score_traces(c)]))


def shared_scores(case: Case) -> np.ndarray:
    """[n_layer, n_head, T, T] scores q_i . q_j of every head's query lens shared."""
    return case.memo("shared scores", lambda c: np.stack(
        [t.q @ np.swapaxes(t.q, -1, -2) for t in score_traces(c)]))
