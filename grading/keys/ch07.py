"""Checkers for the exercises of chapter 07, the QK and OV circuits and their budgets."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from attention_book.chapter import rows_a
from attention_book.circuits import factored_singular_values
from attention_book.gpt2 import attention, load_gpt2
from grading.registry import exercise
from grading.tolerance import float32_sums, relative_gap

# --- ex-c1-dense --------------------------------------------------------------

LAYER, HEAD = 9, 9


def _dense_ov(dtype: type) -> np.ndarray:
    w = load_gpt2().layers[LAYER]
    product = w.W_V[HEAD].astype(dtype) @ w.W_O[HEAD].astype(dtype)
    return np.linalg.svd(product, compute_uv=False)


@exercise("ex-c1-dense", difficulty="standard", minutes=15,
          reference=lambda: _dense_ov(np.float64),
          mistakes={"not-descending": lambda: _dense_ov(np.float64)[::-1],
                    "float32": lambda: _dense_ov(np.float32)})
def _(got: np.ndarray) -> str | None:
    w = load_gpt2().layers[LAYER]
    d_head = w.W_V.shape[2]
    if np.any(np.diff(got) > 0):
        return "the singular values are not in descending order."
    tail = got[d_head:].max() / got[0]
    if tail > 1e-12:
        return (f"the values past the {d_head}th reach {tail:.1e} of the largest, more "
                "than float64 rounding of the product allows.")
    factored = factored_singular_values(w.W_V[HEAD], w.W_O[HEAD].T)
    gap = np.abs(got[:d_head] - factored).max() / factored[0]
    if gap > 1e-8:
        return (f"the first {d_head} values differ from the factored spectrum of the OV "
                f"circuit of head {LAYER}.{HEAD} by {gap:.1e} of the largest.")
    return None


# --- ex-c2-mistral ------------------------------------------------------------

WIDTH, QUERY_HEADS, HEAD_WIDTH = 4096, 32, 128


def _budgets(g: int) -> dict[str, int]:
    return {"W_Q": WIDTH * QUERY_HEADS * HEAD_WIDTH, "W_K": WIDTH * g * HEAD_WIDTH,
            "W_V": WIDTH * g * HEAD_WIDTH, "W_O": QUERY_HEADS * HEAD_WIDTH * WIDTH}


def _mistral() -> dict:
    return {8: _budgets(8), 1: _budgets(1), "changed": {"W_K", "W_V"}}


def _mistral_without_gqa() -> dict:
    return {8: _budgets(QUERY_HEADS), 1: _budgets(1), "changed": {"W_K", "W_V"}}


@exercise("ex-c2-mistral", difficulty="warm-up", minutes=10, reference=_mistral,
          mistakes={"no-grouping": _mistral_without_gqa})
def _(answer: dict) -> str | None:
    expected = _mistral()
    for g in (8, 1):
        for name, value in expected[g].items():
            if answer[g][name] != value:
                return f"with g = {g}, the count given for {name} is not right."
    if answer["changed"] != expected["changed"]:
        return "the set of matrices whose size depends on g is not right."
    return None


# --- ex-c3-first --------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _first_position() -> dict:
    model = load_gpt2()
    x = rows_a(model)
    w0 = model.layers[0]
    mass = attention(w0, x).pattern[:, 1:, 0].mean(1)
    head = int(mass.argmax())
    no_values = replace(w0, W_V=np.zeros_like(w0.W_V))
    without = attention(no_values, x).pattern[head, 1:, 0].mean()
    return {"head": head, "mass": float(mass[head]), "mass without values": float(without)}


def _stops_attending() -> dict:
    return {**_first_position(), "mass without values": 0.0}


@exercise("ex-c3-first", difficulty="standard", minutes=15, float32=True,
          reference=lambda: dict(_first_position()),
          mistakes={"stops-attending": _stops_attending})
def _(answer: dict) -> str | None:
    expected = _first_position()
    if answer["head"] != expected["head"]:
        return "that head is not the one of layer 0 with the most mass on position 0."
    tol = float32_sums(768)  # weights of float32 scores, relative to the mass itself
    if relative_gap(answer["mass"], expected["mass"]) > tol:
        return "the mean mass on position 0 given for that head is not right."
    if relative_gap(answer["mass without values"], expected["mass without values"]) > tol:
        return "the mean mass on position 0 with W_V = 0 is not what the head computes."
    return None
