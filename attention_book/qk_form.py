"""The bilinear form of a head's QK circuit M = W_Q W_K^T, measured through its factors.

Every quantity here is computed from the 64 x 64 Gram blocks of B = [W_Q W_K] or the
128 x 128 matrix R J R^T (chapter 03a, Q1 and Q4), never from a dense 768 x 768 matrix:

- ``model_grams``, ``model_form_spectra``, ``model_eigenvalues``, ``model_lens_spectra``:
  the blocks, the spectra of B^T B and of (1/2) R J R^T with its extreme directions, and
  the eigenvalues of W_Q^T W_Q and W_K^T W_K, of every head of a model, each computed
  once per model;
- ``antisymmetric_share``: ||M_a||_F^2 / ||M||_F^2 = (1 - tr(M^2) / ||M||_F^2) / 2;
- ``symmetric_eigenvalues``: the 2 d_k candidate non-zero eigenvalues of (M + M^T)/2,
  those of (1/2) R J R^T for any R with R^T R = B^T B;
- ``inertia``: how many of them lie beyond the float32 rounding threshold, each side;
- ``negative_mass_share``: the share of their absolute mass that is negative.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .circuits import float32_rank_threshold

if TYPE_CHECKING:
    from .gpt2 import GPT2


def _T(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _tr_prod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """tr(AB) over the last two axes."""
    return np.einsum("...ab,...ba->...", a, b)


def lenses(model) -> tuple[np.ndarray, np.ndarray]:
    """W_Q and W_K of every head, [n_layer, n_head, d_model, d_head], in float64."""
    return tuple(np.stack([getattr(w, name) for w in model.layers]).astype(np.float64)
                 for name in ("W_Q", "W_K"))


def head_lenses(model: GPT2, layer: int, head: int) -> tuple[np.ndarray, np.ndarray]:
    """W_Q and W_K of one head, [d_model, d_head] each, in float64."""
    w = model.layers[layer]
    return w.W_Q[head].astype(np.float64), w.W_K[head].astype(np.float64)


@dataclass(frozen=True)
class Grams:
    """The blocks W_Q^T W_Q, W_Q^T W_K, W_K^T W_K of B^T B, for one head or a stack."""

    qq: np.ndarray
    qk: np.ndarray
    kk: np.ndarray

    @classmethod
    def of(cls, W_Q: np.ndarray, W_K: np.ndarray) -> Grams:
        """The blocks of B^T B, B = [W_Q W_K] in float64: one product (numpy's
        symmetric rank-k update for a matrix times its own transpose) for all three."""
        B = np.concatenate([W_Q, W_K], axis=-1, dtype=np.float64)
        full, k = _T(B) @ B, np.shape(W_Q)[-1]
        return cls(full[..., :k, :k], full[..., :k, k:], full[..., k:, k:])

    @classmethod
    def of_model(cls, model) -> Grams:
        """Every head's blocks, [n_layer, n_head, d_k, d_k]: ``Grams.of(*lenses(model))``
        one layer at a time, so with no float64 copy of all the lenses at once."""
        per_layer = [cls.of(w.W_Q, w.W_K) for w in model.layers]
        return cls(*(np.stack([getattr(g, part) for g in per_layer])
                     for part in ("qq", "qk", "kk")))

    @property
    def full(self) -> np.ndarray:
        """B^T B, [..., 2 d_k, 2 d_k] (its blocks copied in place: ``np.block`` of the same
        blocks, at a twentieth of its cost)."""
        k = self.qq.shape[-1]
        out = np.empty((*self.qq.shape[:-2], 2 * k, 2 * k),
                       np.result_type(self.qq, self.qk, self.kk))
        out[..., :k, :k], out[..., :k, k:] = self.qq, self.qk
        out[..., k:, :k], out[..., k:, k:] = _T(self.qk), self.kk
        return out


def model_grams(model: GPT2) -> Grams:
    """``Grams.of_model(model)``, computed once per model."""
    return model.memo("qk grams", Grams.of_model)


@dataclass(frozen=True)
class FormSpectra:
    """What the weights alone fix about every head's QK form, [n_layer, n_head, ...]:
    ``gram``, the eigenvalues of B^T B (ascending, the squared singular values of B);
    ``symmetric``, those of (1/2) R J R^T (ascending, ``symmetric_eigenvalues``); and
    ``extremes`` [..., 2, 2, d_k], the images (x W_Q, x W_K) of the unit rows x of B's
    column space along the smallest (index 0) and the largest (1) of them."""

    gram: np.ndarray
    symmetric: np.ndarray
    extremes: np.ndarray


def model_form_spectra(model: GPT2) -> FormSpectra:
    """``FormSpectra`` of every head, computed once per model and one layer at a time, so
    that no 2 d_k x 2 d_k matrix of every head is held (a few MB per layer, not 40 MB per
    model of fresh memory)."""
    return model.memo("qk form spectra", _form_spectra)


def _form_spectra(model: GPT2) -> FormSpectra:
    g = model_grams(model)
    layers = [_layer_form_spectra(Grams(g.qq[i], g.qk[i], g.kk[i]))
              for i in range(len(g.qq))]
    return FormSpectra(*(np.stack(part) for part in zip(*layers, strict=True)))


def _layer_form_spectra(g: Grams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One layer's ``FormSpectra`` parts. With B = Q R (R^T R = B^T B), x = Q v for unit v
    is a unit row of B's column space, x W_Q = v^T R[:, :d_k] and x W_K = v^T R[:, d_k:],
    and the symmetric part of M reads v^T ((1/2) R J R^T) v on it."""
    full = g.full
    R = gram_root(full)
    S = symmetric_part(R)
    lam = np.linalg.eigvalsh(S)
    edges = _extreme_directions(S, lam)  # [H, 2, 2 d_k]: v_-, v_+
    k = g.qq.shape[-1]
    images = np.stack([edges @ R[..., :k], edges @ R[..., k:]], axis=-2)
    return np.linalg.eigvalsh(full), lam, images


def _extreme_directions(S: np.ndarray, lam: np.ndarray, block: int = 4) -> np.ndarray:
    """[..., 2, n] unit eigenvectors of each symmetric S [..., n, n] for its smallest and
    largest eigenvalue, given its eigenvalues lam [..., n] (ascending): one step of block
    inverse iteration, S - sigma I solved on ``block`` fixed start vectors with sigma just
    outside the spectrum at that end (never singular), then Rayleigh-Ritz in their span.
    The wanted direction is amplified over the rest by (distance to the ``block``+1-th
    eigenvalue from that end) / (n eps |lambda|_max), so it comes out to rounding, for
    two LU solves where ``eigh`` would compute all n eigenvectors."""
    n = S.shape[-1]
    start = np.broadcast_to(np.random.default_rng(0).standard_normal((n, block)),
                            (*S.shape[:-2], n, block))
    size = np.abs(lam).max(-1)
    # S = 0 (every vector an eigenvector) gets a unit shift, not a singular solve
    outside = np.where(size > 0, n * np.finfo(np.float64).eps * size, 1.0)
    edges = []
    for end, side in ((0, -1.0), (-1, 1.0)):
        shift = (lam[..., end] + side * outside)[..., None, None]
        basis = np.linalg.qr(np.linalg.solve(S - shift * np.eye(n), start))[0]
        ritz = np.linalg.eigh(_T(basis) @ S @ basis)[1][..., end]
        edges.append(np.einsum("...nb,...b->...n", basis, ritz))
    return np.stack(edges, axis=-2)


def model_eigenvalues(model: GPT2) -> np.ndarray:
    """[n_layer, n_head, 2 d_k] eigenvalues of every head's symmetric part (once per
    model): ``symmetric_eigenvalues(model_grams(model))``, bit for bit."""
    return model_form_spectra(model).symmetric


def model_lens_spectra(model: GPT2) -> tuple[np.ndarray, np.ndarray]:
    """[n_layer, n_head, d_k] eigenvalues (ascending) of every head's W_Q^T W_Q and
    W_K^T W_K, the squared singular values of its lenses (once per model)."""
    return model.memo("qk lens spectra", lambda m: tuple(
        np.linalg.eigvalsh(getattr(model_grams(m), part)) for part in ("qq", "kk")))


def antisymmetric_share(g: Grams) -> np.ndarray:
    """alpha(W_Q W_K^T) = (1 - tr((W_Q^T W_K)^2) / tr(W_Q^T W_Q W_K^T W_K)) / 2."""
    return 0.5 * (1 - _tr_prod(g.qk, g.qk) / _tr_prod(g.qq, g.kk))


def gram_root(gram: np.ndarray) -> np.ndarray:
    """An R with R^T R = gram = B^T B, for one head or a stack: the Cholesky factor, B's QR
    factor R up to the signs of its rows. A head whose gram is singular (its B has lost
    rank) gets, alone, the symmetric root Lambda^(1/2) U^T from its own eigenvectors U,
    which satisfies R^T R = gram as well: no jitter, and no head's fallback touches
    another head."""
    try:
        return _T(np.linalg.cholesky(gram))
    except np.linalg.LinAlgError:
        heads = np.reshape(gram, (-1, *gram.shape[-2:]))
        return np.stack([_head_root(g) for g in heads]).reshape(gram.shape)


def _head_root(gram: np.ndarray) -> np.ndarray:
    try:
        return _T(np.linalg.cholesky(gram))
    except np.linalg.LinAlgError:
        lam, U = np.linalg.eigh(gram)
        return np.sqrt(np.clip(lam, 0.0, None))[:, None] * _T(U)


def symmetric_part(R: np.ndarray) -> np.ndarray:
    """(1/2) R J R^T for R [..., 2k, 2k]. R J only exchanges R's two column blocks, so it
    is taken as that exchange: the same numbers as the product with J, bit for bit (each
    entry of R J is one entry of R times 1, plus zeros), without its 2k-wide matmul."""
    half, k = 0.5 * R, R.shape[-1] // 2
    return np.concatenate([half[..., k:], half[..., :k]], axis=-1) @ _T(R)


def symmetric_eigenvalues(g: Grams) -> np.ndarray:
    """[..., 2 d_k] eigenvalues of (1/2) R J R^T: the candidate non-zero eigenvalues of
    the symmetric part of W_Q W_K^T (ascending)."""
    return np.linalg.eigvalsh(symmetric_part(gram_root(g.full)))


def inertia(lam: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(#positive, #negative) eigenvalues beyond numpy's float32 rank threshold
    |lambda|_max * size * eps32, per head."""
    lam = np.asarray(lam, np.float64)
    tau = float32_rank_threshold(np.abs(lam).max(-1, keepdims=True), size)
    return (lam > tau).sum(-1), (lam < -tau).sum(-1)


def negative_mass_share(lam: np.ndarray) -> np.ndarray:
    """nu = sum of |lambda| over lambda < 0, over sum of |lambda|, per head: 0 for a
    positive semi-definite symmetric part (W_K = W_Q), 1 for a negative semi-definite one
    (W_K = -W_Q), 1/2 when the two signs carry equal weight."""
    lam = np.asarray(lam, np.float64)
    total = np.abs(lam).sum(-1)
    if np.any(total <= 0):
        raise ValueError("the symmetric part is zero for some head: its negative mass "
                         "share is undefined")
    return np.where(lam < 0, -lam, 0.0).sum(-1) / total


def symmetrised_head(W_Q: np.ndarray, W_K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Factors (V Lambda, V) of the best rank-d_k approximation of the symmetric part of
    W_Q W_K^T; its eigenvectors are B R^-1 Y, Y those of (1/2) R J R^T."""
    B = np.concatenate([W_Q, W_K], axis=-1).astype(np.float64)
    R = gram_root(_T(B) @ B)
    lam, Y = np.linalg.eigh(symmetric_part(R))
    top = np.argsort(-np.abs(lam))[:W_Q.shape[-1]]
    V = B @ np.linalg.lstsq(R, Y[:, top], rcond=None)[0]  # orthonormal columns
    return V * lam[top], V


def ranks_low_first(values: np.ndarray) -> np.ndarray:
    """Rank of every entry, 1 = smallest."""
    rank = np.empty(values.size, int)
    rank[np.argsort(values.ravel(), kind="stable")] = np.arange(1, values.size + 1)
    return rank.reshape(values.shape)


def rank_sum_p_low(ranks: list[int], n_total: int) -> float:
    """Exact P(rank sum <= observed) for a uniformly random group of the same size drawn
    from ranks 1..n_total (counting subsets by size and sum)."""
    g, observed = len(ranks), int(sum(ranks))
    if g == 0 or not all(1 <= r <= n_total for r in ranks):
        raise ValueError(f"ranks must lie in 1..{n_total}, got {ranks}")
    counts = np.zeros((g + 1, g * n_total + 1))
    counts[0, 0] = 1
    for r in range(1, n_total + 1):
        counts[1:, r:] += counts[:-1, :-r].copy()
    return float(counts[g, :observed + 1].sum() / counts[g].sum())
