"""Figures shared by the chapters: one look for every layer-by-head grid and spectrum."""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

plt.rcParams.update({"figure.dpi": 110, "savefig.dpi": 110, "axes.spines.top": False,
                     "axes.spines.right": False, "font.size": 10})


def heads_grid(values: np.ndarray, title: str, label: str, ax: Axes | None = None,
               cmap: str = "viridis", annotate: bool = False, fmt: str = "{:.2f}",
               **imshow) -> Axes:
    """A [n_layer, n_head] grid of one number per head (layer down, head across)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.2, 4.6))
    im = ax.imshow(values, cmap=cmap, aspect="auto", **imshow)
    n_layer, n_head = values.shape
    ax.set(xlabel="head", ylabel="layer", title=title,
           xticks=range(n_head), yticks=range(n_layer))
    ax.figure.colorbar(im, ax=ax, label=label)
    if annotate:
        for (layer, head), v in np.ndenumerate(values):
            ax.text(head, layer, fmt.format(v), ha="center", va="center", fontsize=6,
                    color="w" if v < np.nanmean(values) else "k")
    return ax


def per_layer(values: np.ndarray, labels: list[str], title: str, ylabel: str,
              ax: Axes | None = None, **plot) -> Axes:
    """Lines of one number per layer, one line per label (values: [n_lines, n_layer])."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.2, 3.4))
    for v, name in zip(values, labels, strict=True):
        ax.plot(range(len(v)), v, marker="o", label=name, **plot)
    ax.set(xlabel="layer", ylabel=ylabel, title=title, xticks=range(values.shape[1]))
    ax.legend(frameon=False)
    return ax


def spectra(singular_values: np.ndarray, title: str, threshold: float | None = None,
            ax: Axes | None = None) -> Axes:
    """Singular values of many matrices on a log scale (rows: matrices, sorted descending)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.2, 3.6))
    for s in singular_values:
        ax.semilogy(np.arange(1, len(s) + 1), np.maximum(s, 1e-30), color="C0", alpha=0.15, lw=0.8)
    if threshold is not None:
        ax.axhline(threshold, color="C3", ls="--", lw=1, label=f"threshold {threshold:.1e}")
        ax.legend(frameon=False)
    ax.set(xlabel="index", ylabel="singular value", title=title)
    return ax


def finish(fig: Figure | None = None) -> None:
    """Tight layout and show: the one way chapters end a figure cell. A figure drawn
    outside pyplot (``attention_book.diagrams``) is shown as its PNG."""
    fig = fig or plt.gcf()
    if fig.canvas.manager is None:
        from IPython.display import Image, display

        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
        display(Image(buffer.getvalue()))
        return
    fig.tight_layout()
    plt.show()
