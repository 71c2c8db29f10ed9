"""A figure's PNG (attention_book.plotting.png_with_legend_size) is drawn once and cut to
the box savefig's ``bbox_inches="tight"`` would keep; a figure with something past its
canvas (a figure legend placed outside) is left to savefig, which widens the canvas."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from attention_book.plotting import LEGEND_PX_KEY, heads_grid, png_with_legend_size  # noqa: E402


def savefig_tight(fig) -> Image.Image:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return Image.open(buffer)


def grid_figure():
    fig, ax = plt.subplots(figsize=(6.2, 4.6))
    heads_grid(np.arange(144.0).reshape(12, 12), "a grid", "value", ax=ax)
    ax.plot([0, 11], [0, 11], label="diagonal")
    ax.legend()
    return fig


def lopsided_figure():
    """A small axes in the top left of a large canvas: its crop is far from centred."""
    fig = plt.figure(figsize=(6, 4))
    ax = fig.add_axes((0.2, 0.5, 0.3, 0.35))
    ax.plot([0, 1], [0, 1], label="a line")
    ax.set(title="top left", xlabel="x")
    ax.legend()
    return fig


def margins_and_ink(image: Image.Image) -> tuple[tuple[int, ...], float]:
    """(left, top, right, bottom) blank margins, and the total darkness of the drawing."""
    grey = 255 - np.asarray(image.convert("L"), float)
    rows, cols = np.nonzero(grey > 0)
    box = (cols.min(), rows.min(), grey.shape[1] - 1 - cols.max(), grey.shape[0] - 1 - rows.max())
    return box, grey.sum()


@pytest.mark.parametrize("make", [grid_figure, lopsided_figure])
def test_the_png_is_savefigs_tight_crop_drawn_once(make, monkeypatch):
    fig = make()
    tight = savefig_tight(fig)
    draws = []
    draw = type(fig.canvas).draw
    monkeypatch.setattr(type(fig.canvas), "draw", lambda c: draws.append(1) or draw(c))
    png = Image.open(io.BytesIO(png_with_legend_size(fig)))
    assert len(draws) == 1
    # The same drawing in the same box: savefig draws it up to half a pixel shifted (its
    # crop starts at a fractional pixel), so sizes and margins agree to within a pixel and
    # the ink to within a few per cent; a crop of another part of the canvas misses both.
    assert abs(png.width - tight.width) <= 1 and abs(png.height - tight.height) <= 1
    (ours, our_ink), (theirs, their_ink) = margins_and_ink(png), margins_and_ink(tight)
    assert all(abs(a - b) <= 1 for a, b in zip(ours, theirs, strict=True)), (ours, theirs)
    assert our_ink == pytest.approx(their_ink, rel=0.03)
    assert png.info[LEGEND_PX_KEY] == f"{10 / 72 * fig.dpi:.2f}"
    plt.close(fig)


def test_what_lies_past_the_canvas_is_kept_by_savefig():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], label="a line")
    fig.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))  # right of the figure
    png = Image.open(io.BytesIO(png_with_legend_size(fig)))
    tight = savefig_tight(fig)
    assert png.width > fig.get_figwidth() * fig.dpi  # the legend is in the image
    assert (png.width, png.height) == (tight.width, tight.height)
    plt.close(fig)


@pytest.mark.parametrize("crop", [True, False])
def test_the_recorded_legend_size_follows_the_dpi(crop):
    fig = grid_figure()
    png = Image.open(io.BytesIO(png_with_legend_size(fig, crop=crop, dpi=2 * fig.dpi)))
    assert png.info[LEGEND_PX_KEY] == f"{10 / 72 * 2 * fig.dpi:.2f}"
    plt.close(fig)
