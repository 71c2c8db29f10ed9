"""A transparent GPT-2 in numpy, with every intermediate of attention exposed per head.

Conventions: row vectors and ``x @ W`` with ``W`` stored ``[in, out]`` as in GPT-2's
Conv1D. Per-head weights: ``W_Q[h]`` is ``[d_model, d_head]``, ``W_O[h]`` is
``[d_head, d_model]`` (the h-th block of ``d_head`` rows of ``c_proj``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .checkpoint import load_checkpoint
from .circuits import FactoredCircuit
from .schema import GPT2_SMALL, Config

__all__ = ["GPT2", "Config", "AttentionWeights", "AttentionTrace", "KVCache", "attention",
           "causal_mask", "layer_norm", "gelu_new", "softmax", "split_heads", "load_gpt2",
           "NotAvailable"]


class NotAvailable(RuntimeError):
    """The computation needs tensors this checkpoint does not hold (wte or MLP weights)."""


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray,
               eps: float = 1e-5) -> np.ndarray:
    """LayerNorm over the last axis: centre, divide by the (biased) std, scale, shift."""
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias


def gelu_new(x: np.ndarray) -> np.ndarray:
    """GPT-2's tanh approximation of GELU. (The cube as two products: numpy's float32
    ``x**3`` calls pow, 20 times slower, and is no closer to the exact cube.)"""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * (x * x * x))))


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def split_heads(w: np.ndarray, n_head: int) -> np.ndarray:
    """[d_in, n_head * d_head] -> [n_head, d_in, d_head]: head h owns columns h*d_head.."""
    d_in, width = w.shape
    return w.reshape(d_in, n_head, width // n_head).transpose(1, 0, 2)


@dataclass(frozen=True)
class AttentionWeights:
    """One layer's attention parameters, sliced per head out of c_attn and c_proj."""

    ln_w: np.ndarray
    ln_b: np.ndarray
    W_Q: np.ndarray  # [H, d_model, d_head]
    W_K: np.ndarray
    W_V: np.ndarray
    b_Q: np.ndarray  # [H, d_head]
    b_K: np.ndarray
    b_V: np.ndarray
    W_O: np.ndarray  # [H, d_head, d_model]
    b_O: np.ndarray  # [d_model]

    @classmethod
    def from_tensors(cls, t: Mapping[str, np.ndarray], layer: int, n_head: int) -> AttentionWeights:
        p = f"h.{layer}."
        w, b = t[p + "attn.c_attn.weight"], t[p + "attn.c_attn.bias"]
        d = w.shape[0]
        Ws = [split_heads(w[:, i * d:(i + 1) * d], n_head) for i in range(3)]
        bs = [b[i * d:(i + 1) * d].reshape(n_head, -1) for i in range(3)]
        W_O = t[p + "attn.c_proj.weight"].reshape(n_head, -1, d)
        return cls(t[p + "ln_1.weight"], t[p + "ln_1.bias"], *Ws, *bs, W_O,
                   t[p + "attn.c_proj.bias"])

    @property
    def QK(self) -> FactoredCircuit:
        """Per-head QK circuits W_Q^h W_K^h^T, kept as their factors (``.dense()`` for the
        [H, d_model, d_model] matrices)."""
        return FactoredCircuit(self.W_Q, self.W_K)

    @property
    def OV(self) -> FactoredCircuit:
        """Per-head OV circuits W_V^h W_O^h, kept as their factors."""
        return FactoredCircuit(self.W_V, self.W_O.transpose(0, 2, 1))


@dataclass
class AttentionTrace:
    """Everything one attention layer computed, per head. T_q new rows, T_k keys."""

    x_ln: np.ndarray         # [T_q, d_model]   ln_1 of the residual rows
    q: np.ndarray            # [H, T_q, d_head]
    k: np.ndarray            # [H, T_k, d_head] (cached keys included)
    v: np.ndarray            # [H, T_k, d_head]
    scores: np.ndarray       # [H, T_q, T_k]    raw q . k
    scaled_masked: np.ndarray  # [H, T_q, T_k]  scores / sqrt(d_head), -inf where masked
    pattern: np.ndarray      # [H, T_q, T_k]    softmax of scaled_masked
    z: np.ndarray            # [H, T_q, d_head] pattern @ v
    head_writes: np.ndarray  # [H, T_q, d_model] z^h @ W_O^h
    out: np.ndarray          # [T_q, d_model]   sum of head_writes + b_O


@dataclass
class KVCache:
    """Keys and values of every processed position, per layer: [H, T, d_head] each."""

    keys: list[np.ndarray] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)

    def __len__(self) -> int:
        return self.keys[0].shape[1] if self.keys else 0

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.keys + self.values)

    def extend(self, layer: int, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Append this layer's new keys and values; return all of them."""
        if layer == len(self.keys):
            self.keys.append(k)
            self.values.append(v)
        else:
            self.keys[layer] = np.concatenate([self.keys[layer], k], axis=1)
            self.values[layer] = np.concatenate([self.values[layer], v], axis=1)
        return self.keys[layer], self.values[layer]


def causal_mask(n_q: int, n_k: int) -> np.ndarray:
    """True where query i (the last n_q of n_k positions) may not see key j > i."""
    offset = n_k - n_q
    return np.arange(n_k)[None, :] > np.arange(offset, n_k)[:, None]


def attention(w: AttentionWeights, x: np.ndarray, *, causal: bool = True,
              cache: KVCache | None = None, layer: int = 0,
              eps: float = 1e-5) -> AttentionTrace:
    """One GPT-2 attention layer on residual rows x [T, d_model]."""
    x_ln = layer_norm(x, w.ln_w, w.ln_b, eps)
    q = x_ln @ w.W_Q + w.b_Q[:, None]  # [T, d] @ [H, d, e] -> [H, T, e]
    k = x_ln @ w.W_K + w.b_K[:, None]
    v = values(w, x_ln)
    if cache is not None:
        k, v = cache.extend(layer, k, v)
    scores = q @ k.transpose(0, 2, 1)
    scaled = scores / math.sqrt(q.shape[-1])  # a Python float keeps float32
    if causal:
        hidden = causal_mask(q.shape[1], k.shape[1])
        scaled = np.where(hidden, -np.inf, scaled)
    pattern = softmax(scaled)
    z = pattern @ v
    head_writes, out = written(w, z)
    return AttentionTrace(x_ln, q, k, v, scores, scaled, pattern, z,
                          head_writes, out)


def values(w: AttentionWeights, x_ln: np.ndarray) -> np.ndarray:
    """Every head's values [H, T, d_head] of normalised rows x_ln [T, d_model]."""
    return x_ln @ w.W_V + w.b_V[:, None]


def written(w: AttentionWeights, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What the heads' outputs z [H, T, d_head] write: each head's z^h W_O^h
    [H, T, d_model], and the layer's output, their sum plus b_O [T, d_model]."""
    head_writes = z @ w.W_O
    return head_writes, head_writes.sum(0) + w.b_O


@dataclass
class Forward:
    """A pass through the layers: the residual rows entering each layer and after the last."""

    residuals: list[np.ndarray]
    traces: list[AttentionTrace]

    @property
    def output(self) -> np.ndarray:
        return self.residuals[-1]


class GPT2:
    """GPT-2 from named tensors (Hugging Face keys); MLP and logits when they are present."""

    def __init__(self, tensors: Mapping[str, np.ndarray], config: Config = GPT2_SMALL,
                 _shared: dict[int, tuple[AttentionWeights, dict]] | None = None):
        self.config = config
        self.tensors = tensors
        shared = _shared or {}
        self._per_layer = [shared.get(i) or (AttentionWeights.from_tensors(tensors, i,
                                                                           config.n_head), {})
                           for i in range(config.n_layer)]
        self.layers = [w for w, _ in self._per_layer]
        self._derived: dict = {}

    def memo(self, key: object, compute: Callable[[GPT2], Any]) -> Any:
        """``compute(self)``, computed once per model and kept under ``key``: what the
        weights alone fix (a lens's basis, a circuit's spectrum), shared by every check and
        input set that reads this model."""
        if key not in self._derived:
            self._derived[key] = compute(self)
        return self._derived[key]

    def layer_memo(self, layer: int, key: object, compute: Callable[[AttentionWeights], Any]
                   ) -> Any:
        """``compute(self.layers[layer])``, computed once per layer's weights: a model made
        by ``with_tensors`` shares what it computed for every layer it left unchanged."""
        cache = self._per_layer[layer][1]
        if key not in cache:
            cache[key] = compute(self.layers[layer])
        return cache[key]

    def with_tensors(self, changes: Mapping[str, np.ndarray]) -> GPT2:
        """The same model with some tensors replaced (a counterfactual, an ablation); the
        layers it leaves unchanged are shared with this model, with what they computed."""
        unknown = set(changes) - set(self.tensors)
        if unknown:
            raise KeyError(f"no such tensors in this model: {sorted(unknown)}")
        touched = {i for i in range(self.config.n_layer)
                   if any(k.startswith(f"h.{i}.") for k in changes)}
        kept = {i: pair for i, pair in enumerate(self._per_layer) if i not in touched}
        return GPT2({**self.tensors, **changes}, self.config, kept)

    @property
    def has_wte(self) -> bool:
        return "wte.weight" in self.tensors

    @property
    def has_mlp(self) -> bool:
        return all(f"h.{i}.mlp.c_fc.weight" in self.tensors and
                   f"h.{i}.mlp.c_proj.weight" in self.tensors for i in range(self.config.n_layer))

    def _need(self, what: str, ok: bool) -> None:
        if not ok:
            raise NotAvailable(f"{what} needs the full GPT-2 checkpoint (token embeddings and "
                               "MLP weights); this one holds the attention tensors only.")

    def check_rows(self, x: np.ndarray, past: int = 0) -> np.ndarray:
        x = np.asarray(x, dtype=np.float32)
        d = self.config.d_model
        if x.ndim != 2 or x.shape[1] != d:
            raise ValueError(f"residual rows must have shape [T, {d}], got {x.shape}")
        if past + x.shape[0] > self.config.n_ctx:
            raise ValueError(f"{past + x.shape[0]} positions exceed the context of "
                             f"{self.config.n_ctx}")
        if not np.isfinite(x).all():
            raise ValueError("residual rows contain NaN or infinite values")
        return x

    def position_rows(self, n: int, start: int = 0) -> np.ndarray:
        """Real position embeddings wpe[start:start+n]: genuine GPT-2 inputs, no tokens."""
        return self.tensors["wpe.weight"][start:start + n]

    def embed(self, token_ids: np.ndarray | list[int], start: int = 0) -> np.ndarray:
        """Token plus position embeddings, the residual rows entering layer 0."""
        self._need("Embedding tokens", self.has_wte)
        ids = np.asarray(token_ids)
        n_vocab = self.tensors["wte.weight"].shape[0]
        if ids.ndim != 1 or ids.min(initial=0) < 0 or ids.max(initial=0) >= n_vocab:
            raise ValueError(f"token ids must be a 1-d sequence in [0, {n_vocab}), got {ids}")
        return self.tensors["wte.weight"][ids] + self.position_rows(len(ids), start)

    def mlp(self, layer: int, x: np.ndarray) -> np.ndarray:
        t, p, c = self.tensors, f"h.{layer}.", self.config
        h = layer_norm(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"], c.eps)
        h = gelu_new(h @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"])
        return h @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]

    def run(self, x: np.ndarray, *, causal: bool = True, cache: KVCache | None = None,
            mlp: bool = True, layers: int | None = None) -> Forward:
        """Residual rows through the blocks. ``mlp=False`` runs the attention path only:
        x <- x + attn(x) in every layer, the part of GPT-2 the attention tensors determine."""
        if mlp:
            self._need("The MLP", self.has_mlp)
        x = self.check_rows(x, len(cache) if cache else 0)
        residuals, traces = [x], []
        for i in range(self.config.n_layer if layers is None else layers):
            tr = attention(self.layers[i], x, causal=causal, cache=cache, layer=i,
                           eps=self.config.eps)
            x = x + tr.out
            if mlp:
                x = x + self.mlp(i, x)
            residuals.append(x)
            traces.append(tr)
        return Forward(residuals, traces)

    def logits(self, token_ids: np.ndarray | list[int], cache: KVCache | None = None) -> np.ndarray:
        """Next-token logits [T, n_vocab] of the whole model (full checkpoint only)."""
        x = self.embed(token_ids, start=len(cache) if cache else 0)
        out = self.run(x, cache=cache).output
        t = self.tensors
        final = layer_norm(out, t["ln_f.weight"], t["ln_f.bias"], self.config.eps)
        return final @ t["wte.weight"].T


@functools.lru_cache(maxsize=1)
def load_gpt2() -> GPT2:
    """GPT-2 small from the located checkpoint, built once per process."""
    return GPT2(load_checkpoint().tensors)
