"""Residual rows to run GPT-2 on: real tokens when the full checkpoint is present,
otherwise real position embeddings (genuine GPT-2 inputs, but no tokens), labelled."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .checkpoint import load_checkpoint
from .gpt2 import GPT2
from .tokenizer import load_tokenizer

SENTENCE = ("When Mary and John went to the store, John gave a drink to Mary "
            "because she was thirsty.")


@dataclass(frozen=True)
class Rows:
    """Residual rows entering layer 0, with what they are."""

    x: np.ndarray             # [T, d_model]
    tokens: list[str]         # the token strings (position labels when there are no tokens)
    are_tokens: bool          # True: wte + wpe of real tokens; False: wpe rows only
    label: str                # what a figure or a ledger entry should call them


def example_rows(model: GPT2, text: str = SENTENCE) -> Rows:
    """The book's example input: `text` as real tokens, or as many position rows."""
    tok = load_tokenizer(load_checkpoint().path.parent)
    ids = tok.encode(text)
    if model.has_wte:
        return Rows(model.embed(ids), [tok.decode([i]) for i in ids], True,
                    f"token rows of “{text}” ({len(ids)} tokens)")
    return Rows(model.position_rows(len(ids)), [f"p{i}" for i in range(len(ids))], False,
                f"position rows wpe[0:{len(ids)}] (real GPT-2 inputs without tokens)")


def layer_inputs(model: GPT2, rows: Rows) -> list[np.ndarray]:
    """The residual rows each layer reads. With token rows and the MLP weights, the real
    residual stream of the whole model; otherwise the same input rows for every layer
    (real inputs for layer 0, a probe for the deeper ones)."""
    if rows.are_tokens and model.has_mlp:
        return model.run(rows.x).residuals[:-1]
    return [rows.x] * model.config.n_layer
