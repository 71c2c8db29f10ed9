"""A figure's PNG (attention_book.plotting.png_with_legend_size) is drawn once and cut to
what it drew, padded as savefig pads its ``bbox_inches="tight"`` box, or is the whole canvas
drawn once; a figure with something past its canvas (a figure legend placed outside) is
laid out once more and then drawn on a canvas as wide as what it holds."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
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
def test_the_png_is_the_drawing_padded_as_savefig_pads_it_drawn_once(make, monkeypatch):
    fig = make()
    tight = savefig_tight(fig)
    draws = []
    draw = type(fig.canvas).draw
    monkeypatch.setattr(type(fig.canvas), "draw", lambda c: draws.append(1) or draw(c))
    png = Image.open(io.BytesIO(png_with_legend_size(fig)))
    assert len(draws) == 1
    # The same drawing: savefig's box holds the text's whole line height, so its image is
    # a few pixels larger, and draws it up to half a pixel shifted, so the ink agrees to
    # within a few per cent; a crop of another part of the canvas misses both. The margins
    # are savefig's padding, exactly.
    assert 0 <= tight.width - png.width <= 6 and 0 <= tight.height - png.height <= 6
    (ours, our_ink), (_, their_ink) = margins_and_ink(png), margins_and_ink(tight)
    assert ours == (round(plt.rcParams["savefig.pad_inches"] * fig.dpi),) * 4
    assert our_ink == pytest.approx(their_ink, rel=0.03)
    assert png.info[LEGEND_PX_KEY] == f"{10 / 72 * fig.dpi:.2f}"
    plt.close(fig)


def test_the_whole_canvas_is_drawn_once_when_not_cropped(monkeypatch):
    fig = lopsided_figure()
    draws = []
    draw = type(fig.canvas).draw
    monkeypatch.setattr(type(fig.canvas), "draw", lambda c: draws.append(1) or draw(c))
    png = Image.open(io.BytesIO(png_with_legend_size(fig, crop=False)))
    assert len(draws) == 1 and (png.width, png.height) == fig.canvas.get_width_height()
    plt.close(fig)


def test_what_lies_past_the_canvas_is_kept():
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


def test_a_readers_run_draws_a_figure_once_and_the_build_adds_the_phone_drawing(monkeypatch):
    from attention_book.plotting import PHONE_DRAWINGS_VAR, PHONE_KEY, figure_png

    draws = []
    draw = FigureCanvasAgg.draw
    monkeypatch.setattr(FigureCanvasAgg, "draw", lambda c: draws.append(1) or draw(c))
    monkeypatch.delenv(PHONE_DRAWINGS_VAR, raising=False)
    fig = grid_figure()
    assert PHONE_KEY not in Image.open(io.BytesIO(figure_png(fig))).text and len(draws) == 1
    monkeypatch.setenv(PHONE_DRAWINGS_VAR, "1")
    phone = Image.open(io.BytesIO(figure_png(fig))).text[PHONE_KEY]
    assert len(draws) >= 2 and phone
    plt.close(fig)
