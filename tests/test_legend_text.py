"""The legend-size rule of the site checks (book_tools.legend_check), on figures drawn here.

The failing input it exists for: a figure drawn as the chapters drew theirs before the
book's style set legend text (6.4 in wide, ``legend(fontsize=9)``), shown as a 360-px
phone showed it, shrunk to the 330-px text column: its legend is drawn at about 7 CSS px.
The book's phone drawing (``plotting.phone_layout``, 3.6 in wide) keeps it legible.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from attention_book.plotting import LEGEND_POINTS, png_with_legend_size  # noqa: E402
from book_tools.legend_check import (  # noqa: E402
    MIN_CSS_PX,
    DrawnFigure,
    drawn_px,
    legend_problems,
    recorded_legend_px,
)

PHONE_COLUMN = 330  # CSS px: the text column of a 360-px phone (the theme's padding aside)


def drawn_figure(tmp_path: Path, name: str, drawn: float, **legend) -> DrawnFigure:
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot([0, 1], [0, 1], label="GPT-2")
    ax.plot([0, 1], [1, 0], label="control")
    ax.legend(frameon=False, **legend)
    png = tmp_path / f"{name}.png"
    png.write_bytes(png_with_legend_size(fig))
    plt.close(fig)
    from PIL import Image

    with Image.open(png) as image:
        natural = image.width
    return DrawnFigure("book/x.html", png.name, png, natural, min(drawn, natural))


def test_a_9_pt_legend_shrunk_to_a_phone_column_is_flagged(tmp_path):
    fig = drawn_figure(tmp_path, "before", PHONE_COLUMN, fontsize=9)
    assert recorded_legend_px(fig.image) == pytest.approx(9 / 72 * 110, abs=0.01)
    problems = legend_problems([fig])
    assert [p.kind for p in problems] == ["legend text too small on a phone"], problems
    assert drawn_px(9 / 72 * 110, fig.natural, fig.drawn) < 8


def test_the_books_phone_drawing_shown_in_a_phone_column_is_legible(tmp_path):
    import base64

    from PIL import Image

    from attention_book.plotting import PHONE_KEY, figure_png

    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.plot([0, 1], [0, 1], label="GPT-2")
    ax.legend(frameon=False, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    page = figure_png(fig)
    plt.close(fig)
    with Image.open(__import__("io").BytesIO(page)) as image:
        phone = base64.b64decode(image.text[PHONE_KEY])
    path = tmp_path / "phone.png"
    path.write_bytes(phone)
    with Image.open(path) as image:
        natural = image.width
    assert recorded_legend_px(path) == pytest.approx(LEGEND_POINTS / 72 * 110, abs=0.01)
    shown = DrawnFigure("book/x.html", path.name, path, natural, min(PHONE_COLUMN, natural))
    assert legend_problems([shown]) == []
    # the same figure's page drawing shrunk into the phone column would not be
    page_path = tmp_path / "page.png"
    page_path.write_bytes(page)
    with Image.open(page_path) as image:
        wide = DrawnFigure("book/x.html", page_path.name, page_path, image.width, PHONE_COLUMN)
    assert drawn_px(recorded_legend_px(page_path), wide.natural, wide.drawn) < MIN_CSS_PX


def test_a_figure_without_the_record_is_a_problem_and_one_without_legend_is_not(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    plain = tmp_path / "plain.png"
    fig.savefig(plain)
    recorded = tmp_path / "recorded.png"
    recorded.write_bytes(png_with_legend_size(fig))
    plt.close(fig)
    assert recorded_legend_px(recorded) is None
    problems = legend_problems([DrawnFigure("p.html", "plain.png", plain, 600, 330),
                                DrawnFigure("p.html", "recorded.png", recorded, 600, 330)])
    assert [(p.kind, p.detail.split(" ")[0]) for p in problems] == [
        ("legend size not recorded", "plain.png")]
