"""Every exercise's answer form, its hint and the mistakes a student plausibly makes.

The student's check (``attention_book.exercises.check``) and the teacher's answer key
(``grading/``) read answers through these forms and give these hints: each hint is written
here once. A mistake says what the answer shows and how to fix it; how it is recognised is
in ``attention_book.exercises.mistakes``. Nothing here holds or computes a right answer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

import numpy as np

from attention_book.exercises.forms import (
    Array,
    Choice,
    Dict,
    Expression,
    Form,
    HeadName,
    Many,
    Number,
    OneOf,
    Tuple,
    Whole,
)
from attention_book.exercises.mistakes import Computed, Known, Mistake, Rule


@dataclass(frozen=True)
class Exercise:
    form: Form
    hint: str
    mistakes: tuple[Mistake, ...] = ()


SHARE = Number(0.0, 1.0, "a share")
WEIGHT_NAMES = ("W_Q", "W_K", "W_V", "W_O")
SHAPE = Tuple((Whole(), Whole()), ("rows", "columns"))


def _zero(a: Any) -> bool:
    return bool(np.all(np.asarray(a) == 0))


def _holds_at(condition: Any, alpha: int, beta: int) -> bool:
    import sympy as sp

    at = {sp.Symbol("alpha"): alpha, sp.Symbol("beta"): beta}
    if isinstance(condition, sp.Equality):
        return bool(condition.subs(at) == sp.true)
    return bool(sp.simplify(condition.subs(at)) == 0)


def _unevaluated(expr: Any) -> bool:
    import sympy as sp

    return bool(expr.has(sp.Derivative))


def _layer5_without_layernorm() -> tuple[np.ndarray, ...]:
    """Layer 5's q, k, v of the example rows as they are, with no ln_1."""
    from attention_book.chapter import rows_a
    from attention_book.gpt2 import load_gpt2

    model = load_gpt2()
    w, x = model.layers[5], rows_a(model)
    return tuple((x @ W + b[:, None]).astype(np.float64)
                 for W, b in ((w.W_Q, w.b_Q), (w.W_K, w.b_K), (w.W_V, w.b_V)))


def _first_head_keys_distance() -> float:
    """K5's smallest distance between two heads of a group of 4 that reads the keys of its
    first head (not the mean of its four), on the example rows."""
    from attention_book.chapter import rows_a
    from attention_book.gpt2 import attention, load_gpt2

    model = load_gpt2()
    w = model.layers[0]
    first = replace(w, W_K=np.repeat(w.W_K[::4], 4, 0), b_K=np.repeat(w.b_K[::4], 4, 0))
    pattern = attention(first, rows_a(model)).pattern[:, 1:]
    return min(float(0.5 * np.abs(pattern[a] - pattern[b]).sum(-1).mean())
               for g in range(0, len(pattern), 4) for a, b in combinations(range(g, g + 4), 2))


TRACK_THE_BIAS = ("Track the bias: how many times does b appear on each side of "
                  "f(alpha x + beta y) = alpha f(x) + beta f(y)?")
WEIGH_BY_ALPHA = "beta weighs each source's value norm by the weight the map gives it."

CATALOGUE: dict[str, Exercise] = {
    # 01 One row, three lenses
    "ex-l1-layer5": Exercise(
        Tuple((Array((12, None, 64), "[heads, positions, 64]"),) * 3, ("q", "k", "v")),
        "What does layer 5's attention read: the rows themselves, or something made from "
        "them first? Then find how c_attn's columns are laid out.",
        (Computed(name="no-layernorm", mistaken=_layer5_without_layernorm,
                  looks_like="These are layer 5's q, k and v of the rows as they are, "
                             "before layer 5's LayerNorm.",
                  hint="Layer 5's attention reads ln_1 of the rows: normalise them with "
                       "h.5.ln_1's weight and bias before c_attn."),)),
    "ex-l2-defect": Exercise(
        Expression(("alpha", "beta")),
        "Write out what the mixed row gives minus what the two rows give separately; when "
        "is that difference zero for every bias?",
        (Rule(name="allows-no-mix", test=lambda c: _holds_at(c, 0, 0), hint=TRACK_THE_BIAS,
              looks_like="Your condition allows alpha = beta = 0, where f of the mixed row "
                         "is the bias b but alpha f(x) + beta f(y) is 0."),
         Rule(name="allows-a-sum", test=lambda c: _holds_at(c, 1, 1), hint=TRACK_THE_BIAS,
              looks_like="Your condition allows alpha = beta = 1, where f(x + y) is "
                         "f(x) + f(y) - b, not f(x) + f(y).")),
    ),
    "ex-l3-columns": Exercise(
        Tuple((Whole(), Whole()), ("start", "stop")),
        "c_attn's columns come in one block per lens; inside a block the heads follow one "
        "another. Which block holds the keys?",
        (Rule(name="not-one-head", test=lambda c: c[1] - c[0] != 64,
              looks_like="These columns are not one head wide.",
              hint="A slice start:stop holds stop - start columns; one head's lens is 64."),
         Rule(name="query-block", test=lambda c: 0 <= c[0] < 768,
              looks_like="These columns are in c_attn's first block, the queries'.",
              hint="c_attn holds three blocks of 768 columns, in the order q, k, v."),
         Rule(name="value-block", test=lambda c: 1536 <= c[0] < 2304,
              looks_like="These columns are in c_attn's last block, the values'.",
              hint="c_attn holds three blocks of 768 columns, in the order q, k, v."),
         Rule(name="straddles-heads", test=lambda c: c[0] % 64 != 0,
              looks_like="These columns straddle two heads.",
              hint="Inside a block, a head starts at a multiple of 64."),
         Known(name="head-counted-from-one",
               looks_like="These are the key columns of the head before head 7.",
               hint="Heads are numbered from 0: head 7 is the eighth of its block.")),
    ),
    # 02 Why not X X^T
    "ex-n1-self": Exercise(
        SHARE,
        "Where is the largest entry of each row of S = X X^T? The answer is a share of the "
        "positions.",
        (Rule(name="a-count", test=lambda x: x > 1 and x == int(x),
              looks_like="This is a count of positions, not a share of them.",
              hint="Divide by the number of positions."),)),
    "ex-n2-gauge": Exercise(
        Whole("a count"),
        "The redundancy is exactly the freedom in choosing G.",
        (Rule(name="every-number", test=lambda n: n == 2 * 768 * 64,
              looks_like="That is every lens number, and most of them do change M.",
              hint="Count only the changes that a choice of G makes without changing M."),
         Known(name="what-remains",
               looks_like="That is the number of degrees of freedom that remain in M, not "
                          "the number of lens numbers that leave M unchanged.",
               hint="Count the freedom in G, not what is left once it is removed."),
         Known(name="G-counted-twice",
               looks_like="That counts G and G^-T as two free choices, but G^-T is fixed "
                          "once G is chosen.",
               hint="How many numbers does choosing G take?")),
    ),
    "ex-n3-dk": Exercise(
        Tuple((Whole("a rank"), Number(0.0, None, "a relative change")),
              ("rank", "relative change")),
        "(a) Do zero columns add a direction? Use N3's threshold for the rank. (b) Which "
        "matrix of rank 32 is closest to M?",
        (Rule(name="nominal-width", part=0, test=lambda r: r == 80,
              looks_like="(a) 80 is the padded width, not the rank.",
              hint="Count the singular values above N3's float32 threshold."),
         Known(name="change-of-M", part=1,
               looks_like="(b) That is how much M itself moves, not the scores on X.",
               hint="Compare X M_32 X^T with X M X^T.")),
    ),
    # 03a, 03b The QK circuit
    "ex-q1-control": Exercise(
        SHARE,
        "Build this one head's M and measure its antisymmetric share as the chapter "
        "defines it; an average over random draws is not this head's value.",
        (Known(name="baseline",
               looks_like="That is the baseline (1 - 1/d)/2, an average over random draws, "
                          "not this head's share.",
               hint="Build M from the control's head 0.1 and measure it."),
         Known(name="gpt2-head",
               looks_like="That is the share of GPT-2's head 0.1, not the control's.",
               hint="Take W_Q and W_K from control.layers[0]."),
         Known(name="without-the-4",
               looks_like="That is ||M - M^T||^2 / ||M||^2, not the share alpha(M).",
               hint="Check the denominator against the chapter's definition of alpha.")),
    ),
    "ex-q4-rank-one": Exercise(
        Array((2,), "the two eigenvalues"),
        "The symmetric part of a rank-one product q k^T acts on the plane of q and k only: "
        "its two non-zero eigenvalues live there. Mind the 1/2.",
        (Rule(name="a-zero-eigenvalue",
              test=lambda v: np.abs(v).min() <= 1e-6 * np.abs(v).max(),
              looks_like="One of your values is one of the 766 zero eigenvalues.",
              hint="Keep the two eigenvalues of largest magnitude."),
         Rule(name="same-sign", test=lambda v: bool((v > 0).all() or (v < 0).all()),
              looks_like="Both values have the same sign, but this matrix has one "
                         "eigenvalue of each sign.",
              hint="By Cauchy-Schwarz |q . k| <= |q| |k|: what sign can each of "
                   "(q . k +- |q| |k|)/2 have?"),
         Known(name="without-the-half",
               looks_like="These are the eigenvalues of q k^T + k q^T: the symmetric part "
                          "carries a factor 1/2.",
               hint="Mind the 1/2 in front of q k^T + k q^T.")),
    ),
    "ex-q4-prev": Exercise(
        Array((12, 12), "a [layer, head] array"),
        "Each head's weight from row i on position i - 1 lies along one diagonal of its "
        "pattern on the position rows; average it over the rows that have an i - 1.",
        (Rule(name="on-the-next", test=_zero,
              looks_like="Every weight is 0: those are the weights on i + 1, which the "
                         "causal mask removes.",
              hint="Position i - 1 lies below the diagonal."),
         Known(name="on-itself",
               looks_like="These are the weights of each row on itself (position i), not "
                          "on i - 1.",
               hint="Which diagonal of the pattern holds the weights on i - 1?"),
         Known(name="transposed",
               looks_like="The array is transposed.",
               hint="Rows are layers, columns are heads.")),
    ),
    "ex-q5-flat": Exercise(
        Number(0.0, None, "a relative asymmetry"),
        "What does the causal mask do to a row of equal scores? Work out the weights of "
        "row i before you measure the asymmetry.",
        (Rule(name="no-mask", test=lambda x: x == 0,
              looks_like="Your weights are symmetric: the causal mask has not been applied.",
              hint="Mask the positions after i before the softmax."),
         Known(name="rows-off-by-one",
               looks_like="That is the asymmetry for 21 rows.",
               hint="T is 20: rows 0 to 19."),
         Known(name="squared-norms",
               looks_like="That is ||A - A^T||^2 / ||A||^2, a ratio of squared norms.",
               hint="The asymmetry is a ratio of Frobenius norms.")),
    ),
    # 04 The scale
    "ex-s1-rademacher": Exercise(
        Tuple((Expression(("d_k",)),) * 2, ("mean", "variance")),
        "A ±1 variable has mean 0 and E[x²] = 1; two different components are independent. "
        "Which moment table is that?",
        (Known(name="variance-squared", part=1,
               looks_like="Your variance grows like d_k², but q . k is a sum of d_k "
                          "independent terms.",
               hint="The variance of a sum of independent terms is the sum of theirs."),)),
    "ex-s4-monotone": Exercise(
        Expression(("beta", "z1", "z2", "z3")),
        "Differentiate log p_i = beta z_i - log sum_m exp(beta z_m); dp_i/dbeta is the S3 "
        "Jacobian applied to z.",
        (Rule(name="unevaluated", test=_unevaluated,
              looks_like="The expression still holds an unevaluated derivative.",
              hint="Write dH/dbeta out in beta and the z_i, as the exercise asks."),
         Known(name="sign-flipped",
               looks_like="Your expression has the opposite sign of dH/dbeta: it would make "
                          "the entropy grow with beta.",
               hint="Differentiate -sum_i p_i log p_i term by term and keep the minus."),
         Known(name="no-beta",
               looks_like="That is -Var_p(z): a factor of the slope is missing.",
               hint="Where else does beta appear when you differentiate p_i log p_i?")),
    ),
    "ex-s4-temperature": Exercise(
        Tuple((Number(0.0, None, "a standard deviation"), SHARE), ("logit_std", "share_left")),
        "What variance does S1 give an unscaled score of a 128-wide head? For the share, "
        "compare how sensitive the softmax is on raw and on scaled rows.",
        (Known(name="variance-for-std", part=0,
               looks_like="That is the logits' variance; the exercise asks for their "
                          "standard deviation.",
               hint="The standard deviation is the square root of the variance."),
         Known(name="scaled-logits", part=0,
               looks_like="That is the standard deviation of the scaled logits.",
               hint="The exercise asks for the unscaled logits q . k."),
         Rule(name="inverted-share", part=1, test=lambda s: s > 1,
              looks_like="A share left is at most 1: this is the scaled head's norm over "
                         "the raw head's.",
              hint="Divide the raw rows' median Jacobian norm by the scaled rows'.")),
    ),
    # 05 Values
    "ex-v1-fold-ln": Exercise(
        Array((12, 12), "one overlap per head, [layer, head]", 0.0, 1.0),
        "Where does LayerNorm's gamma act on the row, relative to W_K and W_V? Fold it into "
        "both lenses before measuring the overlaps.",
        (Known(name="not-folded",
               looks_like="These are the overlaps without gamma: the LayerNorm weight is "
                          "not folded in.",
               hint="Multiply the rows of W_K and W_V by ln_1's weight first."),
         Known(name="transposed",
               looks_like="The array is transposed.",
               hint="Rows are layers, columns are heads.")),
    ),
    "ex-v1-decoder": Exercise(
        Tuple((Number(0.0, 1.0, "an accuracy"),) * 2, ("tied", "separate")),
        "Fit an affine read-out of the number from each head's output; can a read-out of an "
        "output that is the same in every book know the number?",
        (Known(name="swapped",
               looks_like="The two accuracies are swapped.",
               hint="The answer is (tied_accuracy, separate_accuracy)."),
         Rule(name="tied-reads-the-number", part=0, test=lambda a: a >= 0.99,
              looks_like="Your tied lenses' read-out finds (almost) every number, but their "
                         "output is the same in every book.",
              hint="Fit the read-out on the tied head's outputs, not on the numbers.")),
    ),
    "ex-v3-decodable": Exercise(
        Array((12,), "one share per head of layer 0", 0.0, 1.0),
        "Find the best affine map from each head's value back to the row it was made from; "
        "measure what it misses against the rows' spread about their mean.",
        (Known(name="raw-norm",
               looks_like="The shares are measured against the rows' raw squared norm, not "
                          "their spread about their mean.",
               hint="Centre the rows before taking the sum of squares you divide by."),
         Known(name="explained",
               looks_like="These are the shares the map explains, not those it misses.",
               hint="Report the residual's share.")),
    ),
    # 06 The output matrix
    "ex-o2-bias": Exercise(
        OneOf((Array((768,)), Array((None, 768))),
              "one row of width 768, or one such row per position"),
        "Write the layer's output as a sum over the heads plus anything added after the "
        "projection: which terms survive when every head is silent?",
        (Rule(name="nothing-left", test=_zero,
              looks_like="An all-zero answer says nothing is left, but the layer still "
                         "outputs something when every head is silent.",
              hint="Which term of the layer's output belongs to no head?"),)),
    "ex-o2-nonadditive": Exercise(
        Dict({"layer 1 output": Number(0.0, None, "a relative mismatch"),
              "after 12 layers": Number(0.0, None, "a relative mismatch")}),
        "Compare the change that ablating both heads makes with the sum of the changes of "
        "ablating each, right after layer 1 and after the last layer.",
        (Rule(name="layer-1-changes-reused", part="after 12 layers", test=lambda x: x == 0,
              looks_like="Your mismatch after 12 layers is zero, as if each ablation's "
                         "change passed through the later layers unchanged.",
              hint="Run each ablated model through all 12 layers before comparing."),)),
    "ex-o4-mqa": Exercise(
        Dict({"shapes": Dict({name: SHAPE for name in WEIGHT_NAMES}),
              "ratios": Dict({g: Number(0.0, None, "a ratio") for g in (64, 8, 1)})}),
        "Only W_K and W_V depend on the number of key-value heads g; write |W_O| and |W_K| "
        "with the chapter's symbolic sizes before dividing.",
        (Rule(name="out-in", part="shapes", test=lambda s: s["W_K"][0] < s["W_K"][1],
              looks_like="Your shapes are [out, in].",
              hint="The book writes a weight as [in, out]: W_K takes a row of width "
                   "d_model in."),
         Known(name="ratios-upside-down", part="ratios",
               looks_like="The ratios are upside down.",
               hint="Divide the size of W_O by the size of W_K.")),
    ),
    # 07 Two circuits
    "ex-c1-dense": Exercise(
        Array((768,), "the 768 singular values"),
        "A 768 x 768 product of rank 64 has 704 singular values that should be zero: does "
        "your arithmetic resolve them? Think about its precision.",
        (Rule(name="not-descending", test=lambda s: bool((np.diff(s) > 0).any()),
              looks_like="The singular values are not in descending order.",
              hint="Keep the order np.linalg.svd returns."),
         Rule(name="float32", test=lambda s: s[64:].max() > 1e-12 * s[0],
              looks_like="Your values past the 64th sit at float32's rounding level.",
              hint="Form the product in float64.")),
    ),
    "ex-c2-mistral": Exercise(
        Dict({8: Dict({name: Whole() for name in WEIGHT_NAMES}),
              1: Dict({name: Whole() for name in WEIGHT_NAMES}),
              "changed": Many(Choice(WEIGHT_NAMES), what="a set of matrix names",
                              unordered=True)}),
        "Which of the chapter's four budget formulas involve the number of key-value heads "
        "g? Evaluate all four at Mistral's sizes.",
        (Rule(name="no-grouping", test=lambda a: a[8]["W_K"] == a[8]["W_Q"],
              looks_like="With g = 8 your W_K is as large as W_Q, as if every query head "
                         "had a key-value head of its own.",
              hint="Evaluate W_K's budget formula at g = 8."),)),
    "ex-c3-first": Exercise(
        Dict({"head": Whole("a head index"), "mass": Number(0.0, 1.0, "a mass"),
              "mass without values": Number(0.0, 1.0, "a mass")}),
        "Which head of layer 0 puts the most weight on position 0, over the rows after the "
        "first? Then zero its W_V and measure again: what do values enter?",
        (Rule(name="stops-attending", part="mass without values", test=lambda m: m == 0,
              looks_like="Your mass without values is 0, as if the head stopped attending "
                         "when W_V = 0.",
              hint="Measure the pattern of the head with W_V = 0 rather than assuming it."),)),
    # 08 Serving
    "ex-k1-queries": Exercise(
        Tuple((Expression(("n",)),) * 2, ("with_cache", "without_cache")),
        "How many queries does step t compute with a cache, and how many when everything is "
        "recomputed? Then add up the steps.",
        (Known(name="n-every-step", part=1,
               looks_like="Without a cache you count n query rows at every step.",
               hint="How many rows does step t recompute?"),
         Known(name="steps-from-zero", part=1,
               looks_like="Without a cache your count starts from a step with no query.",
               hint="The first step already computes one query row.")),
    ),
    "ex-k1-edit": Exercise(
        Many(Many(Whole("a position"), what="a list of positions"), length=12,
             what="one list of positions per layer"),
        "Layer 0 computes keys row by row; from layer 1 on, a row's key depends on the rows "
        "it attended to in the layer below.",
        (Rule(name="before-the-edit", test=lambda a: any(p < 3 for ps in a for p in ps),
              looks_like="Some listed positions come before the edit.",
              hint="Under the causal mask, can a key depend on a later row?"),
         Rule(name="only-the-edit", test=lambda a: all(sorted(ps) == [3] for ps in a),
              looks_like="Every layer lists only position 3.",
              hint="From layer 1 on, which rows read the edited row?")),
    ),
    # 08b The cache budget
    "ex-k3-llama7b": Exercise(
        Whole("a number of bytes"),
        "Use the chapter's cache formula with the 7B model's shape, and count every array "
        "the cache holds, in bytes.",
        (Rule(name="not-bytes", test=lambda n: n < 2**20,
              looks_like="That is far too small to be the cache in bytes.",
              hint="Give the size in bytes, not in GiB or MiB."),
         Known(name="half",
               looks_like="That is half the cache.",
               hint="Are both keys and values counted, at 2 bytes each?"),
         Known(name="four-bytes",
               looks_like="That counts 4 bytes per number.",
               hint="16-bit numbers take 2 bytes.")),
    ),
    "ex-k5-meanpool": Exercise(
        Number(0.0, 1.0, "a total-variation distance"),
        "K5 gave each group the keys of its first head; here the group shares the mean of "
        "its four key lenses (biases too). Measure as K5 does.",
        (Computed(name="first-head-keys", mistaken=_first_head_keys_distance,
                  looks_like="That is the distance with each group reading its first head's "
                             "keys, as in K5, not the mean of its four key lenses.",
                  hint="Average the group's four W_K and b_K before computing the keys."),)),
    "ex-k6-capacity": Exercise(
        Dict({"GQA": Whole("a number of sequences"), "MHA": Whole("a number of sequences")}),
        "What is left of the memory once the weights are loaded, and how many whole "
        "sequences' caches fit in it?",
        (Known(name="weights-left-in",
               looks_like="These counts leave no room for the weights.",
               hint="Take the weights, 2 bytes per parameter, from the memory first."),
         Known(name="rounded-up",
               looks_like="These counts are rounded up: the last sequence does not fit.",
               hint="Count whole sequences only.")),
    ),
    # 09 Heads
    "ex-h1-medium": Exercise(
        Tuple((Whole(),) * 3, ("16 x 64", "1 x 1024", "16 x 128")),
        "Count every matrix and bias of the layer, per head and shared. Which counts depend "
        "on the number of heads and their width separately?",
        (Known(name="no-biases",
               looks_like="The weight matrices are counted, but not the biases.",
               hint="Add each lens's bias, per head, and the output bias b_O."),
         Rule(name="widths-differ", test=lambda c: c[0] != c[1],
              looks_like="Your first two counts differ, but 16 heads of 64 and one head of "
                         "1024 have the same total width.",
              hint="Write each count with the heads' total width h w.")),
    ),
    "ex-h2-three": Exercise(
        Tuple((SHARE, Whole("a number of heads")), ("most_each", "heads")),
        "The three weights come from one softmax row, which sums to 1. How much can a head "
        "give a position when it aims at that one alone?",
        (Known(name="two-positions", part=0,
               looks_like="One half is the bound for two positions.",
               hint="Here one softmax row is shared by three positions."),)),
    "ex-h3-share": Exercise(
        SHARE,
        "Do the heads of such a model differ in how many weights they hold?",
        (Known(name="kept-share",
               looks_like="That is the share of the heads that were kept, not pruned.",
               hint="Count the 38 pruned heads."),)),
    # 10 Reading attention maps
    "ex-i1-two-back": Exercise(
        Whole("a number of positions"),
        "The note in row t now names the token two before t; follow where the induction "
        "head's weight lands and what that row holds.",
        (Rule(name="original-circuit", test=lambda k: k == 1,
              looks_like="An offset of 1 is what the original circuit predicts; the note is "
                         "no longer about the previous token.",
              hint="Which row does the induction head's weight land on now?"),
         Rule(name="looks-back", test=lambda k: k <= 0,
              looks_like="The guess at position i is a token after i, not before it.",
              hint="The induction head copies what follows the earlier occurrence.")),
    ),
    "ex-i2-uniform-score": Exercise(
        Expression(("n",)),
        "What weight does row i of a uniform head put on each position it can see? The "
        "score averages one position's weight over the rows of the second copy.",
        (Known(name="the-limit",
               looks_like="That is how the score behaves for large n, not the exact score.",
               hint="Write the exact sum over the rows of the second copy."),
         Known(name="rows-off-by-one",
               looks_like="Your sum is shifted by one row.",
               hint="Row i sees i + 1 positions, counting from 0 (BOS included).")),
    ),
    "ex-m1-norm-share": Exercise(
        SHARE,
        "The map shows weights; the share asks how much of what the row moves comes from "
        "BOS. What does each source move?",
        (Known(name="the-weight",
               looks_like="That is the weight alpha, what the map shows, not the share.",
               hint=WEIGH_BY_ALPHA),
         Known(name="norms-only",
               looks_like="That share leaves out the attention weights.",
               hint=WEIGH_BY_ALPHA)),
    ),
    "ex-i2-lists": Exercise(
        Many(HeadName(), what="a set of heads", unordered=True),
        "Compare the induction columns of the table in section I2; 4.11 is listed as a "
        "previous-token head.",
        (Rule(name="previous-token-head", test=lambda heads: "4.11" in heads,
              looks_like="4.11 is a previous-token head in the lists, not an induction "
                         "head.",
              hint="Keep only the heads that both lists call induction heads."),)),
    # 11 The checklist
    "ex-xi-mqa": Exercise(
        Tuple((SHAPE, Whole("a number of bytes")), ("shape of W_K", "cache bytes per token")),
        "Which dimension of W_K follows the number of key-value heads? For the cache, count "
        "what every layer keeps for one token.",
        (Rule(name="out-in", part=0, test=lambda s: s[0] < s[1],
              looks_like="The shape is [out, in].",
              hint="The book stores weights as [in, out]: W_K takes a row of width "
                   "d_model in."),
         Known(name="half-cache", part=1,
               looks_like="The cache holds half of what it should.",
               hint="Count keys and values, at 2 bytes each."),
         Known(name="one-layer", part=1,
               looks_like="That is the cache of one layer.",
               hint="Llama 2 70B has 80 layers.")),
    ),
    "ex-xi-grouped-gpt2": Exercise(
        Tuple((Whole("a count"), SHARE), ("distinct W_K blocks", "largest pattern difference")),
        "Two key blocks are the same only if every entry is; the heads of a group share "
        "keys, but do they share everything that makes a pattern?",
        (Rule(name="nothing-grouped", part=0, test=lambda n: n == 12,
              looks_like="12 distinct key matrices means nothing was grouped.",
              hint="Each group of three shares its first head's keys."),
         Rule(name="identical-patterns", part=1, test=lambda d: d == 0,
              looks_like="Your heads of a group attend identically, but only their keys "
                         "are shared.",
              hint="Compare the heads' queries.")),
    ),
}
