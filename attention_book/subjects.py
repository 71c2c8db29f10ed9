"""The models every check runs on, and the input sets it reads.

A check about GPT-2 is run on four *subjects*:

- ``GPT-2``: the loaded checkpoint;
- ``reparametrised``: GPT-2's function with other matrices. Every head's lenses become
  ``W_Q R, b_Q R, W_K R^-T, b_K R^-T`` and ``W_V S, b_V S, S^-1 W_O`` with seeded,
  invertible, non-orthogonal 64 x 64 matrices R and S (condition number at most
  ``COND``). Scores ``q k^T`` and head writes ``v W_O`` are unchanged, so a fact about
  the model's function must survive it; a fact about the matrices themselves need not;
- ``permuted``: GPT-2's values with none of their arrangement: the entries of every
  tensor shuffled within that tensor (seeded). Same numbers, same scale, no structure;
- ``random init``: GPT-2 small as initialised before training (``attention_book.control``).

Each reads every *input set* as its own rows: the same token ids (full checkpoint) or the
same positions (position rows, when the checkpoint has no token embeddings), embedded by
that subject's own tensors. Three disjoint input sets, so that no threshold is tuned to
one and no statement holds only where a context starts: two at the start of a context, one
read far from it.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .gpt2 import GPT2, AttentionTrace, attention

GPT2_NAME, REPARAM, PERMUTED, INIT = "GPT-2", "reparametrised", "permuted", "random init"
SUBJECTS = (GPT2_NAME, REPARAM, PERMUTED, INIT)
CONTROLS = SUBJECTS[1:]
SEED = 0
COND = 4.0  # condition number bound of R and S: non-orthogonal, yet well inside float32
N_POSITION_ROWS = 20

TEXT_A = ("When Mary and John went to the store, John gave a drink to Mary "
          "because she was thirsty.")
TEXT_B = ("The old lighthouse keeper climbed the stairs each night, lit the lamp, "
          "and wrote the weather in his book.")
TEXT_C = ("After the rain stopped, the children ran to the river to see how high the "
          "water had climbed.")


# ------------------------------------------------------------------ input sets

@dataclass(frozen=True)
class InputSet:
    """Rows to run a model on: token ids (full checkpoint) or positions (wpe rows)."""

    name: str
    label: str
    positions: tuple[int, ...]
    token_ids: tuple[int, ...] = ()
    tokens: tuple[str, ...] = ()

    @property
    def are_tokens(self) -> bool:
        return bool(self.token_ids)

    def rows(self, model: GPT2) -> np.ndarray:
        """This input set embedded by ``model``'s own tensors: [T, d_model]."""
        wpe = np.asarray(model.tensors["wpe.weight"])[list(self.positions)]
        if not self.are_tokens:
            return wpe
        return np.asarray(model.tensors["wte.weight"])[list(self.token_ids)] + wpe


def position_sets(n_ctx: int = 1024, n: int = N_POSITION_ROWS,
                  seed: int = SEED) -> tuple[InputSet, InputSet, InputSet]:
    """Set A: positions 0..n-1, as a prompt starts; set B: n other positions, drawn
    (seeded) from the rest of the context and sorted; set C: n consecutive positions
    from the middle of the context (centred in B's widest gap), a window read far from
    the context's start. Disjoint by construction."""
    rng = np.random.default_rng(seed)
    later = tuple(int(p) for p in np.sort(rng.choice(np.arange(n, n_ctx), n, replace=False)))
    start = window_start(later, n, n_ctx)
    return (InputSet("A", f"position rows wpe[0:{n}]", tuple(range(n))),
            InputSet("B", f"position rows at {n} seeded positions in [{n}, {n_ctx})", later),
            InputSet("C", f"position rows wpe[{start}:{start + n}]",
                     tuple(range(start, start + n))))


def window_start(taken: tuple[int, ...], n: int, n_ctx: int) -> int:
    """The start of n consecutive positions centred in the widest gap between ``taken``
    (sorted, all at or after n) and the context's ends."""
    edges = (n - 1, *taken, n_ctx)
    lo, hi = max(zip(edges[:-1], edges[1:], strict=True), key=lambda e: e[1] - e[0])
    if hi - lo - 1 < n:
        raise ValueError(f"no {n} free consecutive positions between {taken}")
    return (lo + hi) // 2 - n // 2


def token_sets(encode, decode, n_ctx: int = 1024) -> tuple[InputSet, InputSet, InputSet]:
    """Sets A and B: two unrelated sentences as token rows, each from position 0; set C: a
    third sentence read at the positions of the position rows' set C, far from the start
    of the context."""
    start = position_sets(n_ctx)[2].positions[0]
    sets = []
    for name, text, first in (("A", TEXT_A, 0), ("B", TEXT_B, 0), ("C", TEXT_C, start)):
        ids = tuple(encode(text))
        where = f" at positions {first}..{first + len(ids) - 1}" if first else ""
        sets.append(InputSet(name, f"token rows of “{text}” ({len(ids)} tokens{where})",
                             tuple(range(first, first + len(ids))), ids,
                             tuple(decode([i]) for i in ids)))
    return tuple(sets)


# ------------------------------------------------------------------ controls

def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attention_book"


def _invertible(rng: np.random.Generator, k: int, cond: float) -> np.ndarray:
    """U diag(s) V^T with Haar U, V and s log-uniform in [1/sqrt(cond), sqrt(cond)]:
    invertible, condition number <= cond, not orthogonal (its s are not all 1)."""
    u, _ = np.linalg.qr(rng.standard_normal((k, k)))
    v, _ = np.linalg.qr(rng.standard_normal((k, k)))
    s = np.exp(rng.uniform(-0.5, 0.5, k) * math.log(cond))
    s[0], s[-1] = math.sqrt(cond), 1 / math.sqrt(cond)  # the bound is reached
    return u @ np.diag(s) @ v.T


def reparametrise(tensors: Mapping[str, np.ndarray], n_layer: int, n_head: int,
                  seed: int = SEED, cond: float = COND) -> dict[str, np.ndarray]:
    """GPT-2's tensors with every head reparametrised (module docstring); the products
    are formed in float64 and stored as float32."""
    rng = np.random.default_rng(seed)
    out = dict(tensors)
    for layer in range(n_layer):
        p = f"h.{layer}.attn."
        w = np.asarray(tensors[p + "c_attn.weight"], np.float64).copy()
        b = np.asarray(tensors[p + "c_attn.bias"], np.float64).copy()
        o = np.asarray(tensors[p + "c_proj.weight"], np.float64).copy()
        d = w.shape[0]
        k = d // n_head
        for h in range(n_head):
            R, S = _invertible(rng, k, cond), _invertible(rng, k, cond)
            R_inv_T, S_inv = np.linalg.inv(R).T, np.linalg.inv(S)
            for third, M in ((0, R), (1, R_inv_T), (2, S)):
                cols = slice(third * d + h * k, third * d + (h + 1) * k)
                w[:, cols], b[cols] = w[:, cols] @ M, b[cols] @ M
            o[h * k:(h + 1) * k] = S_inv @ o[h * k:(h + 1) * k]
        out[p + "c_attn.weight"] = w.astype(np.float32)
        out[p + "c_attn.bias"] = b.astype(np.float32)
        out[p + "c_proj.weight"] = o.astype(np.float32)
    return out


def permute(tensors: Mapping[str, np.ndarray], seed: int = SEED) -> dict[str, np.ndarray]:
    """Every tensor's entries shuffled, each with its own seeded draw; the fused
    ``c_attn`` weight and bias within each of their thirds (W_Q, W_K, W_V and their
    biases kept apart), so that shuffling commutes with rescaling one of the four
    matrices, as the reparametrisations do."""
    out = {}
    for i, name in enumerate(sorted(tensors)):
        t = np.asarray(tensors[name])
        parts = np.split(t, 3, axis=-1) if name.endswith("attn.c_attn.weight") or \
            name.endswith("attn.c_attn.bias") else [t]
        out[name] = np.concatenate([
            np.random.default_rng([seed, i, k]).permutation(p.reshape(-1)).reshape(p.shape)
            for k, p in enumerate(parts)], axis=-1)
    return out


def _cached(tag: str, key: str | None, build) -> Mapping[str, np.ndarray]:
    """Tensors built once into the user cache and memory-mapped afterwards; with no key
    (weights the reader opted in to), built in memory for this process only."""
    from .control import mapped_tensors

    if key is None:
        return build()
    path = _cache_dir() / f"{tag}-{key}.safetensors"
    if not path.is_file():
        from safetensors.numpy import save_file

        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        save_file({k: np.ascontiguousarray(v) for k, v in build().items()}, str(tmp))
        tmp.replace(path)
    return mapped_tensors(path)


def _source_key(checkpoint) -> str | None:
    """What the controls are built from. OpenAI's tensors, bit for bit, are the same
    wherever the file lies: keyed by which of them are present. The rehearsal stand-in:
    keyed by its file. Other weights (opted in): None, never cached, since a key short of
    hashing every byte could mistake one modified copy for another."""
    import hashlib

    from .checkpoint import OFFICIAL, STANDIN

    if checkpoint.provenance == OFFICIAL:
        basis = "official " + " ".join(sorted(checkpoint.tensors))
    elif checkpoint.provenance == STANDIN:
        st = checkpoint.path.stat()
        basis = f"{checkpoint.path.resolve()} {st.st_size} {st.st_mtime_ns} {st.st_ino}"
    else:
        return None
    return hashlib.sha256(basis.encode()).hexdigest()[:16]


# ------------------------------------------------------------------ cases

@dataclass
class Case:
    """One subject on one input set: its model, its rows and (computed once) its traces."""

    subject: str
    inputs: InputSet | None
    model: GPT2
    _traces: dict = field(default_factory=dict, repr=False)

    @property
    def x(self) -> np.ndarray:
        """The input rows entering layer 0."""
        if self.inputs is None:
            raise ValueError(f"this check reads weights only; {self.subject} has no rows here")
        return self.inputs.rows(self.model)

    def memo(self, key: str, compute):
        """``compute(self)``, computed once per case and kept under ``key``."""
        if key not in self._traces:
            self._traces[key] = compute(self)
        return self._traces[key]

    @property
    def runs_forward(self) -> bool:
        """Whether its layers read the real residual stream, from one forward run that also
        gives every layer's trace: token rows and the MLP weights."""
        return self.inputs is not None and self.inputs.are_tokens and self.model.has_mlp

    def layer_input(self, layer: int) -> np.ndarray:
        """The rows layer ``layer`` reads: with token rows and the MLP weights, the real
        residual stream; otherwise the input rows themselves for every layer (real inputs
        for layer 0, a probe for the deeper ones)."""
        if not self.runs_forward:
            return self.x
        if layer == 0 and "residuals" not in self._traces:  # the stream starts as the rows
            return self.model.check_rows(self.x)
        if "residuals" not in self._traces:
            forward = self.model.run(self.x)
            self._traces["residuals"] = forward.residuals
            for i, computed in enumerate(forward.traces):  # what ``trace`` would compute
                self._traces.setdefault((i, True), computed)
        return self._traces["residuals"][layer]

    def attention_path(self):
        """The rows through the 12 attention layers with no MLP (x <- x + attn(x)),
        computed once per case."""
        return self.memo("attention path", lambda c: c.model.run(c.x, mlp=False))

    def trace(self, layer: int, *, causal: bool = True) -> AttentionTrace:
        """Attention of one layer on ``layer_input(layer)``, computed once per case."""
        key = (layer, causal)
        if key not in self._traces:
            w = self.model.layers[layer]
            self._traces[key] = attention(w, self.layer_input(layer), causal=causal,
                                          eps=self.model.config.eps)
        return self._traces[key]


@dataclass(frozen=True)
class Subjects:
    """GPT-2 and its three controls, each built once per process."""

    models: dict[str, GPT2]
    input_sets: tuple[InputSet, ...]

    def cases(self, *, rows: bool) -> list[Case]:
        """Every subject on every input set (rows=True), or once on its weights."""
        sets = self.input_sets if rows else (None,)
        return [Case(s, i, self.models[s]) for s in SUBJECTS for i in sets]


def same_function(a: GPT2, b: GPT2, x: np.ndarray) -> float:
    """The largest change of any layer's scores or head writes on rows x, relative to their
    largest entry. A reparametrisation is accepted when this is within float32 error:
    sums of d_model then d_head terms (Higham's gamma), amplified by cond(R), cond(S)."""
    worst = 0.0
    for wa, wb in zip(a.layers, b.layers, strict=True):
        ta, tb = attention(wa, x), attention(wb, x)
        for f in ("scores", "head_writes"):
            u, v = getattr(ta, f), getattr(tb, f)
            worst = max(worst, float(np.abs(u - v).max() / np.abs(u).max()))
    return worst


def function_tolerance(config) -> float:
    u = float(np.finfo(np.float32).eps) / 2
    n = config.d_model + config.d_head
    return COND * n * u / (1 - n * u)


@functools.lru_cache(maxsize=1)
def control_models() -> dict[str, GPT2]:
    """The three controls of the loaded GPT-2 (built once into the user cache)."""
    from .checkpoint import load_checkpoint
    from .control import load_control
    from .gpt2 import load_gpt2

    gpt2 = load_gpt2()
    cfg, key = gpt2.config, _source_key(load_checkpoint())
    reparam = _cached(f"reparam-seed{SEED}-cond{COND:g}", key,
                      lambda: reparametrise(gpt2.tensors, cfg.n_layer, cfg.n_head))
    permuted = _cached(f"permuted-by-matrix-seed{SEED}", key, lambda: permute(gpt2.tensors))
    other = GPT2(reparam, cfg)
    probe = position_sets(cfg.n_ctx)[0].rows(gpt2)
    if (gap := same_function(gpt2, other, probe)) > function_tolerance(cfg):
        message = (f"the reparametrised control does not compute the loaded model's "
                   f"function within float32's budget: scores or head writes move by "
                   f"{gap:.2e} of their scale (budget {function_tolerance(cfg):.2e})")
        if key is not None:  # GPT-2 or the stand-in: a damaged cache file
            raise RuntimeError(f"{message}; delete it from {_cache_dir()} to rebuild it")
        # other weights (opted in): a budget set for GPT-2's scale, not a proven bound
        print(f"[modified weights] {message}: checks that rely on it are less certain")
    return {REPARAM: other, PERMUTED: GPT2(permuted, cfg), INIT: load_control()}
