"""Figures shared by the chapters: one look for every layer-by-head grid and spectrum.

Every figure is drawn by ``finish`` for a page (about 6.4 in wide) and, in the book's
build (``PHONE_DRAWINGS_VAR`` set to 1, as make's build targets set it), for a phone
(``PHONE_INCHES`` wide, its panels stacked in one column). The phone drawing travels
inside the page drawing's PNG (``PHONE_KEY``, a text chunk); the site's build takes it out
and serves it to screens narrower than 600 px (``book_tools.sphinx_site``), where a figure
fits the screen instead of scrolling. A reader's own run, whose notebook no phone shows,
draws each figure once. Legend text is as large as the axes' text
(``LEGEND_POINTS``): 10 pt of a 3.5-inch drawing (its PNG, padding included, at most
that wide) shown across a 360-px phone's 312-px text column is 10 / 72 * 110 * 312 / 385
= 12.4 CSS px, above the 12 px below which
Lighthouse's "legible font sizes" audit calls mobile text illegible. ``finish`` records
each drawing's smallest legend text in its PNG (``LEGEND_PX_KEY``, in the image's own
pixels) so that the site checks can measure it as rendered.
"""

from __future__ import annotations

import base64
import io
import os

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

DPI = 110
LEGEND_POINTS = 10
LEGEND_PX_KEY = "attention-book:smallest-legend-px"  # a PNG text chunk; "none": no legend
PHONE_KEY = "attention-book:phone-png"  # a PNG text chunk: the phone drawing, base64
PHONE_DRAWINGS_VAR = "ATTENTION_BOOK_PHONE_DRAWINGS"  # "1": finish draws for phones too
PHONE_INCHES = 3.5
PHONE_PANEL = PHONE_INCHES - 0.9  # a panel's width beside its tick labels and axis label
plt.rcParams.update({"figure.dpi": DPI, "savefig.dpi": DPI, "axes.spines.top": False,
                     "axes.spines.right": False, "font.size": 10,
                     "legend.fontsize": LEGEND_POINTS, "figure.constrained_layout.use": True,
                     "axes.titlesize": 10})
# The phone drawing's canvas: the crop pads the drawing's tight box by savefig.pad_inches
# where the layout engine left w_pad, so this canvas crops to PHONE_INCHES when first drawn.
PHONE_CANVAS = PHONE_INCHES - 2 * (plt.rcParams["savefig.pad_inches"]
                                   - plt.rcParams["figure.constrained_layout.w_pad"]) - 0.02


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
    if dpi == fig.dpi and isinstance(fig.canvas, FigureCanvasAgg):
        if not crop:  # the whole canvas, drawn once
            fig.canvas.draw()
            return _png(np.asarray(fig.canvas.buffer_rgba()), fig.dpi, metadata)
        return _drawn_and_cropped(fig, metadata)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight" if crop else None,
                metadata=metadata)
    return buffer.getvalue()


def _drawn_and_cropped(fig: Figure, metadata: dict[str, str]) -> bytes:
    """The figure drawn on its Agg canvas and cut to what it drew, padded as savefig pads
    its tight box (with the page's white where the padding reaches past the canvas). A
    drawing that reaches the canvas's edge may reach past it: it is laid out once more (the
    layout engine, started from its first pass, often fits it then); if it still does, it
    is drawn on a canvas the size of its tight box, as laid out (what savefig's
    ``bbox_inches`` does, without a third layout)."""
    canvas = fig.canvas
    pad = round(plt.rcParams["savefig.pad_inches"] * fig.dpi)
    for _ in range(2):
        canvas.draw()
        pixels = np.asarray(canvas.buffer_rgba())
        rows, columns = (np.flatnonzero(_ink(pixels).any(axis)) for axis in (1, 0))
        if rows.size and min(rows[0], columns[0]) > 0 and rows[-1] < pixels.shape[0] - 1 \
                and columns[-1] < pixels.shape[1] - 1 and not _placed_past_the_canvas(fig):
            return _png(np.pad(pixels[rows[0]:rows[-1] + 1, columns[0]:columns[-1] + 1],
                               ((pad, pad), (pad, pad), (0, 0)), constant_values=255),
                        fig.dpi, metadata)
        if not rows.size:  # nothing drawn
            return _png(pixels, fig.dpi, metadata)
    box = fig.get_tightbbox(canvas.get_renderer()).padded(plt.rcParams["savefig.pad_inches"])
    buffer, engine = io.BytesIO(), fig.get_layout_engine()
    fig.set_layout_engine("none")  # keep the layout just drawn
    try:
        fig.savefig(buffer, format="png", bbox_inches=box, metadata=metadata)
    finally:
        fig.set_layout_engine(engine)
    return buffer.getvalue()


def _placed_past_the_canvas(fig: Figure) -> bool:
    """Whether a legend or a figure's text lies wholly or partly past the canvas, where it
    leaves no ink to find (the layout engine places everything else)."""
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
    boxes = [a.get_window_extent(renderer) for a in [*legends, *fig.texts]
             if a is not None and a.get_visible()]
    return any(b.x0 < -0.5 or b.y0 < -0.5 or b.x1 > fig.bbox.x1 + 0.5 or b.y1 > fig.bbox.y1 + 0.5
               for b in boxes)


def _ink(pixels: np.ndarray) -> np.ndarray:
    """Where an RGBA image is not the page's white."""
    return (pixels[..., :3] < 255).any(-1)


def _png(pixels: np.ndarray, dpi: float, metadata: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    plt.imsave(buffer, pixels, format="png", dpi=dpi, metadata=metadata)
    return buffer.getvalue()


def _panels(fig: Figure) -> list[Axes]:
    """The figure's plotting panels in reading order (not its colour bars)."""
    axes = [ax for ax in fig.axes if ax.get_subplotspec() is not None
            and not hasattr(ax, "_colorbar")]
    return sorted(axes, key=lambda ax: (ax.get_subplotspec().rowspan.start,
                                        ax.get_subplotspec().colspan.start))


def phone_layout(fig: Figure) -> None:
    """Redraw ``fig`` for a phone: ``PHONE_INCHES`` wide, its panels in one column, each
    with its own tick labels and as tall for its width as on the page (a single column: a
    quarter taller, since the text keeps its size); a legend outside its panel or wider
    than a phone's panel goes under the figure; the layout engine places colour bars and
    legends again. Text set smaller than the axes' (numbers written in a grid's cells) is
    left out: it could not be read there."""
    outside = [ax for ax in fig.axes if ax.get_legend() is not None
               and _leaves_its_panel(ax.get_legend().get_window_extent(), ax, fig.dpi)]
    width, height = fig.get_size_inches()
    panels = _panels(fig)
    rows, columns = (panels[0].get_subplotspec().get_gridspec().get_geometry() if panels
                     else (1, 1))
    if columns > 1:
        grid = fig.add_gridspec(len(panels), 1)
        for k, ax in enumerate(panels):
            ax.set_subplotspec(grid[k, 0])
            ax.tick_params(labelleft=True, labelbottom=True)  # shared axes hid the inner
    panel_aspect = (height / rows) / (width / columns)
    fig.set_size_inches(PHONE_CANVAS, PHONE_INCHES * panel_aspect * len(panels)
                        if columns > 1 else height * max(PHONE_INCHES / width * 1.6, 0.85))
    for ax in fig.axes:
        for t in ax.texts:
            if t.get_fontsize() < 0.75 * LEGEND_POINTS:
                t.set_visible(False)
        for t in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label):
            _wrap(t, PHONE_PANEL)  # a label wider than its panel collapses the layout
    if fig._suptitle is not None:
        _wrap(fig._suptitle, PHONE_INCHES - 0.2)
    moved = set()
    for ax in outside:  # a legend beside or below its panel goes under the figure, once
        legend = ax.get_legend()
        entries = tuple(t.get_text() for t in legend.texts)
        if entries in moved:  # panels sharing one legend keep one under the figure
            legend.remove()
            continue
        moved.add(entries)
        _below_the_figure(legend, _phone_columns(legend, fig.dpi))
    for legend in [*fig.legends, *(ax.get_legend() for ax in fig.axes)]:
        if legend is not None and (k := _phone_columns(legend, fig.dpi)) != legend._ncols:
            _set_columns(legend, k)


def _leaves_its_panel(box, ax: Axes, dpi: float) -> bool:
    """A legend drawn in ``box`` on the page sits outside its panel, or is too wide for the
    panel on a phone."""
    centre = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    return not ax.bbox.contains(*centre) or box.width / dpi > PHONE_PANEL


def _wrap(text, inches: float) -> None:
    """Break a label into lines that fit ``inches`` (about 0.6 em a character); maths,
    which a line break would cut, is left whole."""
    import textwrap

    words = text.get_text()
    width = int(inches * 72 / (0.6 * text.get_fontsize()))
    if "$" not in words:
        text.set_text("\n".join(textwrap.fill(line, width) for line in words.split("\n")))


def _phone_columns(legend, dpi: float) -> int:
    """As many of the legend's columns (at most two) as fit a phone drawing's width, from
    the width each column took on the page (the page drawing was drawn just before)."""
    columns = legend._ncols  # no public getter
    per_column = legend.get_window_extent().width / dpi / columns
    fitting = int(0.9 * PHONE_INCHES // max(per_column, 1e-9))
    return max(1, min(columns, 2, fitting))


def _below_the_figure(legend, columns: int) -> None:
    """An axes' legend made again as the figure's, under every panel (the layout engine
    gives it its own row instead of squeezing the panel beside it)."""
    handles, labels = legend.legend_handles, [t.get_text() for t in legend.texts]
    title = legend.get_title().get_text()
    figure = legend.axes.figure
    legend.remove()
    figure.legend(handles, labels, loc="outside lower center", ncols=columns,
                  frameon=False, title=title or None)


def _set_columns(legend, columns: int) -> None:
    """The legend made again with ``columns`` columns, where it stood (Legend.set_ncols only
    records the number: the entries were packed when the legend was made)."""
    owner = legend.axes or legend.figure
    anchor = legend.get_bbox_to_anchor()
    title = legend.get_title().get_text()
    handles, labels = legend.legend_handles, [t.get_text() for t in legend.texts]
    legend.remove()
    owner.legend(handles, labels, ncols=columns, loc=legend._loc, frameon=legend.get_frame_on(),
                 bbox_to_anchor=anchor._bbox.bounds, bbox_transform=anchor._transform,
                 title=title or None)


def finish(fig: Figure | None = None) -> None:
    """Lay out and show: the one way chapters end a figure cell. The figure is shown as
    its PNG, which records its smallest legend text and carries the phone drawing."""
    from IPython.display import Image, display

    fig = fig or plt.gcf()
    display(Image(figure_png(fig)))
    plt.close(fig)


def figure_png(fig: Figure, phone: bool | None = None) -> bytes:
    """The page drawing's PNG, with the phone drawing inside it (``PHONE_KEY``) when
    ``phone`` (default: when the build asks for it, ``PHONE_DRAWINGS_VAR``)."""
    if phone is None:
        phone = os.environ.get(PHONE_DRAWINGS_VAR) == "1"
    pyplot = fig.canvas.manager is not None  # attention_book.diagrams draws without pyplot
    page = png_with_legend_size(fig, crop=pyplot)
    if not phone:
        return page
    phone_layout(fig)
    small = _laid_out_png(fig, crop=pyplot)
    for _ in range(3):  # a legend or colour bar outside the panels widens the crop
        over = _png_width(small) / (PHONE_INCHES * fig.dpi)
        if over <= 1:
            break
        width, height = fig.get_size_inches()
        fig.set_size_inches(width / over - 0.02, height)
        small = _laid_out_png(fig, crop=pyplot)
    return add_text_chunk(page, PHONE_KEY, base64.b64encode(small).decode())


def _png_width(png: bytes) -> int:
    """A PNG's width in pixels, from its header."""
    return int.from_bytes(png[16:20], "big")


def _laid_out_png(fig: Figure, crop: bool) -> bytes:
    """The figure's PNG, made taller until the layout engine fits every panel (it gives
    up, with a warning, when the text leaves the panels no room)."""
    import warnings

    for _ in range(4):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            png = png_with_legend_size(fig, crop=crop)
        if not any("collapsed" in str(w.message) for w in caught):
            return png
        width, height = fig.get_size_inches()
        fig.set_size_inches(width, height * 1.4)
    return png


def add_text_chunk(png: bytes, key: str, value: str) -> bytes:
    """``png`` with one more tEXt chunk, before its end (nothing else re-encoded)."""
    import struct
    import zlib

    body = b"tEXt" + key.encode("latin-1") + b"\0" + value.encode("latin-1")
    chunk = struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))
    end = png.rindex(b"IEND") - 4
    return png[:end] + chunk + png[end:]
