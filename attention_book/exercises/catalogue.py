"""The form of every exercise's answer, as each exercise's statement asks for it.

Only the form: the type, the shape, the number of parts, the range a quantity can take by
definition (a share lies in [0, 1]). Nothing here depends on the answer's value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attention_book.exercises.forms import (
    Array,
    Dict,
    Expression,
    HeadName,
    Many,
    Number,
    Problem,
    Tuple,
    Whole,
)

SHARE = Number(0.0, 1.0, "a share")
WEIGHT_NAMES = ("W_Q", "W_K", "W_V", "W_O")


def _residual_rows(answer: Any) -> Problem:
    """ex-o2-bias: one row of width 768, or one such row per position."""
    one_row = Array((768,), "one row")(answer)
    return None if one_row is None else Array((None, 768), "rows of width 768")(answer)


def _shape() -> Tuple:
    return Tuple((Whole(), Whole()), ("rows", "columns"))


FORMS: dict[str, Callable[[Any], Problem]] = {
    # 01 One row, three lenses
    "ex-l1-layer5": Tuple((Array((12, None, 64), "[heads, positions, 64]"),) * 3,
                          ("q", "k", "v")),
    "ex-l2-defect": Expression(("alpha", "beta")),
    "ex-l3-columns": Tuple((Whole(), Whole()), ("start", "stop")),
    # 02 Why not X X^T
    "ex-n1-self": SHARE,
    "ex-n2-gauge": Whole("a count"),
    "ex-n3-dk": Tuple((Whole("a rank"), Number(0.0, None, "a relative change")),
                      ("rank", "relative change")),
    # 03a, 03b The QK circuit
    "ex-q1-control": SHARE,
    "ex-q4-rank-one": Array((2,), "the two eigenvalues"),
    "ex-q4-prev": Array((12, 12), "a [layer, head] array"),
    "ex-q5-flat": Number(0.0, None, "a relative asymmetry"),
    # 04 The scale
    "ex-s1-rademacher": Tuple((Expression(("d_k",)),) * 2, ("mean", "variance")),
    "ex-s4-monotone": Expression(("beta", "z1", "z2", "z3")),
    "ex-s4-temperature": Tuple((Number(0.0, None, "a standard deviation"), SHARE),
                               ("logit_std", "share_left")),
    # 05 Values
    "ex-v1-fold-ln": Array((12, 12), "one overlap per head, [layer, head]"),
    "ex-v1-decoder": Tuple((Number(0.0, 1.0, "an accuracy"),) * 2, ("tied", "separate")),
    "ex-v3-decodable": Array((12,), "one share per head of layer 0"),
    # 06 The output matrix
    "ex-o2-bias": _residual_rows,
    "ex-o2-nonadditive": Dict({"layer 1 output": Number(0.0, None, "a relative mismatch"),
                               "after 12 layers": Number(0.0, None, "a relative mismatch")}),
    "ex-o4-mqa": Dict({"shapes": Dict({name: _shape() for name in WEIGHT_NAMES}),
                       "ratios": Dict({g: Number(0.0, None, "a ratio") for g in (64, 8, 1)})}),
    # 07 Two circuits
    "ex-c1-dense": Array((768,), "the 768 singular values"),
    "ex-c2-mistral": Dict({8: Dict({name: Whole() for name in WEIGHT_NAMES}),
                           1: Dict({name: Whole() for name in WEIGHT_NAMES}),
                           "changed": Many(lambda n: None if n in WEIGHT_NAMES else
                                           f"{n!r} is not one of {WEIGHT_NAMES}",
                                           what="a set of matrix names")}),
    "ex-c3-first": Dict({"head": Whole("a head index"), "mass": Number(0.0, 1.0, "a mass"),
                         "mass without values": Number(0.0, 1.0, "a mass")}),
    # 08 Serving
    "ex-k1-queries": Tuple((Expression(("n",)),) * 2, ("with_cache", "without_cache")),
    "ex-k1-edit": Many(Many(Whole("a position"), what="a list of positions"), length=12,
                       what="one list of positions per layer"),
    # 08b The cache budget
    "ex-k3-llama7b": Whole("a number of bytes"),
    "ex-k5-meanpool": Number(0.0, 1.0, "a total-variation distance"),
    "ex-k6-capacity": Dict({"GQA": Whole("a number of sequences"),
                            "MHA": Whole("a number of sequences")}),
    # 09 Heads
    "ex-h1-medium": Tuple((Whole(),) * 3, ("16 x 64", "1 x 1024", "16 x 128")),
    "ex-h2-three": Tuple((SHARE, Whole("a number of heads")), ("most_each", "heads")),
    "ex-h3-share": SHARE,
    # 10 Reading attention maps
    "ex-i1-two-back": Whole("a number of positions"),
    "ex-i2-uniform-score": Expression(("n",)),
    "ex-m1-norm-share": SHARE,
    "ex-i2-lists": Many(HeadName(), what="a set of heads"),
    # 11 The checklist
    "ex-xi-mqa": Tuple((_shape(), Whole("a number of bytes")),
                       ("shape of W_K", "cache bytes per token")),
    "ex-xi-grouped-gpt2": Tuple((Whole("a count"), SHARE),
                                ("distinct W_K blocks", "largest pattern difference")),
}
