"""Figures shared by the chapters: one look for every layer-by-head grid and spectrum.

Legend text is as large as the axes' text (``LEGEND_POINTS``): on a 360-px phone the site
shows a figure at least 560 CSS px wide (``_static/pages.css``, scrolling sideways), where
10 pt of a 6.4-inch figure is 10 / 72 * 560 / 6.4 = 12.2 CSS px, above the 12 px below
which Lighthouse's "legible font sizes" audit calls mobile text illegible. ``finish``
records the figure's smallest legend text in its PNG (``LEGEND_PX_KEY``, in the image's
own pixels) so that the site checks can measure it as rendered.
"""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

DPI = 110
LEGEND_POINTS = 10
LEGEND_PX_KEY = "attention-book:smallest-legend-px"  # a PNG text chunk; "none": no legend
plt.rcParams.update({"figure.dpi": DPI, "savefig.dpi": DPI, "axes.spines.top": False,
                     "axes.spines.right": False, "font.size": 10,
                     "legend.fontsize": LEGEND_POINTS})


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


def smallest_legend_points(fig: Figure) -> float | None:
    """The size in points of the smallest text of any legend of ``fig`` (None: no legend)."""
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes]
    sizes = [text.get_fontsize() for legend in legends if legend is not None
             for text in [*legend.get_texts(), legend.get_title()] if text.get_text()]
    return min(sizes) if sizes else None


def png_with_legend_size(fig: Figure, crop: bool = True, dpi: float | None = None) -> bytes:
    """The figure as PNG at ``dpi`` (default: the figure's), with its smallest legend text
    in the image's pixels recorded under ``LEGEND_PX_KEY``; ``crop`` trims the margins as
    Jupyter's inline backend does (``bbox_inches="tight"``)."""
    dpi = dpi or fig.dpi
    points = smallest_legend_points(fig)
    metadata = {LEGEND_PX_KEY: "none" if points is None else f"{points / 72 * dpi:.2f}"}
    if crop and dpi == fig.dpi and (png := _drawn_once_and_cropped(fig, metadata)):
        return png
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight" if crop else None,
                metadata=metadata)
    return buffer.getvalue()


def _drawn_once_and_cropped(fig: Figure, metadata: dict[str, str]) -> bytes | None:
    """The figure drawn once on its Agg canvas and cut to its tight box padded as savefig
    pads it, or None when that box reaches past the canvas (then only savefig's own
    ``bbox_inches="tight"``, which draws the figure three times, shows everything)."""
    canvas = fig.canvas
    if not isinstance(canvas, FigureCanvasAgg):
        return None
    canvas.draw()
    box = fig.get_tightbbox(canvas.get_renderer())
    pad = plt.rcParams["savefig.pad_inches"]
    x0, y0, x1, y1 = (np.asarray(box.padded(pad).extents) * fig.dpi).round().astype(int)
    width, height = canvas.get_width_height()
    if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
        return None
    pixels = np.asarray(canvas.buffer_rgba())[height - y1:height - y0, x0:x1]
    buffer = io.BytesIO()
    plt.imsave(buffer, pixels, format="png", dpi=fig.dpi, metadata=metadata)
    return buffer.getvalue()


def finish(fig: Figure | None = None) -> None:
    """Tight layout and show: the one way chapters end a figure cell. The figure is shown
    as its PNG, which records its smallest legend text (``png_with_legend_size``)."""
    from IPython.display import Image, display

    fig = fig or plt.gcf()
    pyplot = fig.canvas.manager is not None  # attention_book.diagrams draws without pyplot
    if pyplot:
        fig.tight_layout()
    display(Image(png_with_legend_size(fig, crop=pyplot)))
    plt.close(fig)
