"""Checkers for the exercises of chapter 05, values."""

from __future__ import annotations

import functools

import numpy as np

from . import exercise

# ex-v1-fold-ln ------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def _overlaps(folded: bool) -> np.ndarray:
    """Key-value overlaps of GPT-2's 144 heads, with gamma folded in or not."""
    from ..gpt2 import load_gpt2
    from ..subspaces import overlap

    layers = load_gpt2().layers
    gamma = np.stack([w.ln_w for w in layers])[:, None, :, None] if folded else 1.0
    W_K = np.stack([w.W_K for w in layers])
    W_V = np.stack([w.W_V for w in layers])
    return overlap(gamma * W_K, gamma * W_V)


@exercise("ex-v1-fold-ln", difficulty="standard", minutes=15,
          hint="Multiply row a of every W_K^h and W_V^h by gamma[a] (broadcast "
               "ln_w over the 768 axis) before computing the overlaps.",
          reference=lambda: _overlaps(True), wrong=lambda: _overlaps(False))
def _(answer) -> str | None:
    folded = _overlaps(True)
    a = np.asarray(answer, dtype=float)
    if a.shape != folded.shape:
        return f"expected one overlap per head, shape {folded.shape}; got {a.shape}."
    if ((a < 0) | (a > 1)).any():
        return "an overlap is a mean squared cosine, so it lies in [0, 1]; some of yours do not."
    # float64 bases of float32 weights: 1e-4 is far above rounding, far below the folding
    # effect (median 3e-3, up to 2e-2 per head)
    worst = np.abs(a - folded).max()
    if worst <= 1e-4:
        return None
    if np.allclose(a, _overlaps(False), atol=1e-4):
        return "these are the overlaps without gamma: the LayerNorm weight is not folded in."
    return f"some heads are off by up to {worst:.3g}."


# ex-v1-decoder ------------------------------------------------------------

def _linear_readouts() -> tuple[float, float]:
    """The chapter's phone book (seed 0): least-squares read-out accuracy,
    tied and separate lenses."""
    n, beta = 6, 8.0
    eye, zero = np.eye(n), np.zeros((n, n))
    name, number = np.vstack([eye, zero]), np.vstack([zero, eye])
    rng = np.random.default_rng(0)
    books = [rng.permutation(n) for _ in range(200)]
    truth = np.array([[book[t] for t in range(n)] for book in books]).ravel()

    def outputs(W_v: np.ndarray) -> np.ndarray:
        rows = []
        for book in books:
            entries = np.hstack([eye, eye[book]])
            for target in range(n):
                query = np.concatenate([eye[target], np.zeros(n)])
                logits = (query @ (beta * name)) @ (entries @ name).T
                weights = np.exp(logits - logits.max())
                rows.append(weights / weights.sum() @ (entries @ W_v))
        return np.array(rows)

    accuracy = []
    for W_v in (name, number):
        design = np.hstack([outputs(W_v), np.ones((len(truth), 1))])
        coef, *_ = np.linalg.lstsq(design, np.eye(n)[truth], rcond=None)
        accuracy.append(float(((design @ coef).argmax(1) == truth).mean()))
    return accuracy[0], accuracy[1]


@exercise("ex-v1-decoder", difficulty="standard", minutes=15,
          hint="Fit on z with a column of ones appended, targets one-hot numbers; the "
               "prediction is the argmax of the fitted scores.",
          reference=_linear_readouts, wrong=lambda: (1.0, 1.0))
def _(answer) -> str | None:
    tied, separate = (float(v) for v in answer)
    ref_tied, ref_separate = _linear_readouts()
    if abs(separate - ref_separate) > 1e-9:
        return f"the separate lenses' accuracy {separate:.3g} is not right."
    # the tied output is the same in every book, so no read-out beats the most frequent
    # number per name; 0.01 is two books out of 1200 answers
    if abs(tied - ref_tied) > 0.01:
        return (f"the tied lenses' accuracy {tied:.3g} is not right: can any read-out "
                "of an output that never changes across books do that well?")
    return None


# ex-v3-decodable ----------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _unexplained() -> tuple[np.ndarray, np.ndarray]:
    """Layer 0, per head: residual variance of the best affine map from the value to
    the row (256 position rows), over the centred and over the raw sum of squares."""
    from ..gpt2 import layer_norm, load_gpt2

    model = load_gpt2()
    w = model.layers[0]
    x = layer_norm(model.position_rows(model.config.n_ctx)[::4], w.ln_w, w.ln_b)
    x = x.astype(np.float64)
    centred, raw = [], []
    for head in range(model.config.n_head):
        design = np.hstack([x @ w.W_V[head] + w.b_V[head], np.ones((len(x), 1))])
        coef, *_ = np.linalg.lstsq(design, x, rcond=None)
        residual = ((design @ coef - x) ** 2).sum()
        centred.append(residual / ((x - x.mean(0)) ** 2).sum())
        raw.append(residual / (x**2).sum())
    return np.array(centred), np.array(raw)


@exercise("ex-v3-decodable", difficulty="challenging", minutes=25,
          hint="Regress the 768 coordinates of the LayerNorm'd rows on [v, 1] by least "
               "squares; divide the residual sum of squares by the sum of squares of "
               "the rows about their mean.",
          reference=lambda: _unexplained()[0], wrong=lambda: _unexplained()[1])
def _(answer) -> str | None:
    centred, raw = _unexplained()
    a = np.asarray(answer, dtype=float)
    if a.shape != centred.shape:
        return f"expected one number per head of layer 0, shape {centred.shape}; got {a.shape}."
    if np.allclose(a, raw, rtol=1e-3):
        return "the shares are measured against the rows' raw squared norm, not their variance."
    # least squares in float64: 1e-3 relative is far above rounding, far below the
    # difference between the plausible definitions (about 25%)
    if not np.allclose(a, centred, rtol=1e-3, atol=1e-6):
        return "some heads' unexplained shares are not right."
    return None
