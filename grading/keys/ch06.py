"""Checkers for the exercises of chapter 06, the output matrix W_O."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from attention_book.chapter import rows_a
from attention_book.constructed import attention_shapes
from attention_book.gpt2 import attention, load_gpt2
from grading.registry import exercise
from grading.tolerance import float32_sums, relative_gap

LAYER = 3


def _relative(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.linalg.norm(x - y) / np.linalg.norm(y))


# --- ex-o2-bias ---------------------------------------------------------------

def _all_heads_ablated() -> np.ndarray:
    """Layer 3's output with the whole concatenation zeroed, one row per position."""
    model = load_gpt2()
    t, n_rows = model.tensors, len(rows_a(model))
    width = t[f"h.{LAYER}.attn.c_proj.weight"].shape[0]
    zeroed = np.zeros((n_rows, width), np.float32)
    return zeroed @ t[f"h.{LAYER}.attn.c_proj.weight"] + t[f"h.{LAYER}.attn.c_proj.bias"]


def _nothing_left() -> np.ndarray:
    return np.zeros_like(_all_heads_ablated())


@exercise("ex-o2-bias", difficulty="warm-up", minutes=10, float32=True,
          reference=_all_heads_ablated, mistakes={"nothing-left": _nothing_left})
def _(got: np.ndarray) -> str | None:
    expected = _all_heads_ablated().astype(np.float64)
    if got.ndim == 2 and got.shape[0] != expected.shape[0]:
        return (f"the answer has {got.shape[0]} rows; the book's input has "
                f"{expected.shape[0]} positions (or give a single row).")
    gap = relative_gap(np.broadcast_to(got, expected.shape), expected)
    if gap > float32_sums(768):  # c_proj sums 768 products per entry, in float32
        return (f"these numbers differ from layer {LAYER}'s output with every head "
                f"ablated by {gap:.2g} of its largest entry.")
    return None


# --- ex-o2-nonadditive --------------------------------------------------------

ABLATED_LAYER, HEADS = 1, (3, 7)


@functools.lru_cache(maxsize=1)
def _mismatches() -> dict[str, float]:
    """Joint ablation of heads 1.3 and 1.7 against the sum of the single ones."""
    model = load_gpt2()
    x0 = rows_a(model)
    base = model.run(x0, mlp=False)

    def ablated(heads: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        w = model.layers[ABLATED_LAYER]
        keep = np.ones(model.config.n_head, np.float32)
        keep[list(heads)] = 0.0
        w_off = replace(w, W_O=w.W_O * keep[:, None, None])
        x = base.residuals[ABLATED_LAYER]
        out = attention(w_off, x).out
        x = x + out
        for layer in model.layers[ABLATED_LAYER + 1:]:
            x = x + attention(layer, x).out
        return out, x

    runs = {hs: ablated(hs) for hs in [(HEADS[0],), (HEADS[1],), HEADS]}
    result = {}
    for name, index, reference in [("layer 1 output", 0, base.traces[ABLATED_LAYER].out),
                                   ("after 12 layers", 1, base.output)]:
        delta = {hs: r[index] - reference for hs, r in runs.items()}
        result[name] = _relative(delta[HEADS], delta[(HEADS[0],)] + delta[(HEADS[1],)])
    return result


def _all_additive() -> dict[str, float]:
    return {"layer 1 output": 0.0, "after 12 layers": 0.0}


@exercise("ex-o2-nonadditive", difficulty="standard", minutes=20, float32=True,
          reference=lambda: dict(_mismatches()),
          mistakes={"layer-1-changes-reused": _all_additive})
def _(answer: dict[str, float]) -> str | None:
    expected = _mismatches()
    inside, after = answer["layer 1 output"], answer["after 12 layers"]
    # a relative mismatch (norm over norm): exact additivity leaves only float32 rounding
    if not inside < 1e-4:
        return (f"your mismatch at layer 1's output, {inside:.2g}, is larger than float32 "
                "rounding of a sum allows.")
    if abs(after - expected["after 12 layers"]) > 0.05 * expected["after 12 layers"]:
        return (f"your mismatch after 12 layers, {after:.2g}, is not what the ablated "
                "runs give.")
    return None


# --- ex-o4-mqa ----------------------------------------------------------------

def _mqa() -> dict:
    shapes = attention_shapes(8192, 64, 1, 128)
    ratios = {}
    for g in (64, 8, 1):
        s = attention_shapes(8192, 64, g, 128)
        ratios[g] = int(np.prod(s["W_O"])) // int(np.prod(s["W_K"]))
    return {"shapes": shapes, "ratios": ratios}


def _ratios_upside_down() -> dict:
    right = _mqa()
    return {"shapes": right["shapes"], "ratios": {g: 64 // r for g, r in
                                                  right["ratios"].items()}}


def _shapes_out_in() -> dict:
    right = _mqa()
    return {"shapes": {n: s[::-1] for n, s in right["shapes"].items()},
            "ratios": right["ratios"]}


@exercise("ex-o4-mqa", difficulty="warm-up", minutes=10, reference=_mqa,
          mistakes={"out-in": _shapes_out_in, "ratios-upside-down": _ratios_upside_down})
def _(answer: dict) -> str | None:
    expected = _mqa()
    for name, shape in expected["shapes"].items():
        if answer["shapes"][name] != tuple(shape):
            return f"the shape of {name} with g = 1 is not {answer['shapes'][name]}."
    for g, ratio in expected["ratios"].items():
        if answer["ratios"][g] != ratio:
            return f"the ratio |W_O| / |W_K| for g = {g} is not {answer['ratios'][g]:g}."
    return None
