"""Checkers for the exercises of chapter 05, values."""

from __future__ import annotations

import functools

import numpy as np

from grading.registry import exercise
from grading.tolerance import close, float32_sums, relative_gap


@functools.lru_cache(maxsize=2)
def _overlaps(folded: bool) -> np.ndarray:
    """Key-value overlaps of GPT-2's 144 heads, with gamma folded in or not."""
    from attention_book.gpt2 import load_gpt2
    from attention_book.subspaces import overlap

    layers = load_gpt2().layers
    gamma = np.stack([w.ln_w for w in layers])[:, None, :, None] if folded else 1.0
    W_K = np.stack([w.W_K for w in layers])
    W_V = np.stack([w.W_V for w in layers])
    return overlap(gamma * W_K, gamma * W_V)


@exercise("ex-v1-fold-ln", difficulty="standard", minutes=15, float32=True,
          reference=lambda: _overlaps(True),
          mistakes={"not-folded": lambda: _overlaps(False),
                    "transposed": lambda: _overlaps(True).T})
def _(a: np.ndarray) -> str | None:
    # relative to the largest overlap: bases of 768-row float32 lenses; the folding effect
    # (median 3e-3, up to 2e-2 per head) is far above it
    worst = relative_gap(a, _overlaps(True))
    if worst <= float32_sums(768):
        return None
    return f"some heads are off by up to {worst:.2g} of the largest overlap."


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


@exercise("ex-v1-decoder", difficulty="standard", minutes=15, float32=True,
          reference=_linear_readouts,
          mistakes={"swapped": lambda: _linear_readouts()[::-1],
                    "tied-reads-the-number": lambda: (1.0, 1.0)})
def _(answer: tuple[float, float]) -> str | None:
    tied, separate = answer
    ref_tied, ref_separate = _linear_readouts()
    if abs(separate - ref_separate) > 0.5 / 1200:  # half of one answer in 1200
        return f"the separate lenses' accuracy {separate:.3g} is not right."
    # the tied output is the same in every book, so no read-out beats the most frequent
    # number per name; 0.01 is two books out of 1200 answers
    if abs(tied - ref_tied) > 0.01:
        return f"the tied lenses' accuracy {tied:.3g} is not right."
    return None


@functools.lru_cache(maxsize=1)
def _unexplained() -> tuple[np.ndarray, np.ndarray]:
    """Layer 0, per head: residual variance of the best affine map from the value to
    the row (256 position rows), over the centred and over the raw sum of squares."""
    from attention_book.gpt2 import layer_norm, load_gpt2

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


@exercise("ex-v3-decodable", difficulty="challenging", minutes=25, float32=True,
          reference=lambda: _unexplained()[0],
          mistakes={"raw-norm": lambda: _unexplained()[1],
                    "explained": lambda: 1 - _unexplained()[0]})
def _(a: np.ndarray) -> str | None:
    # least squares in float64: 1e-3 of the largest share is far above rounding (float32's
    # included), far below the difference between the plausible definitions (about 25%)
    if not close(a, _unexplained()[0], 1e-3):
        return "some heads' unexplained shares are not right."
    return None
