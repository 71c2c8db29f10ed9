"""How large each figure's smallest legend text is where a 360-px phone shows it.

A figure's PNG records its smallest legend text in its own pixels
(``attention_book.plotting.LEGEND_PX_KEY``, written by ``plotting.finish``). In the page,
at phone width, the browser gives the image's drawn width; the text is drawn at
``recorded px * drawn width / natural width`` CSS px. It must reach ``MIN_CSS_PX``: 12 CSS
px, the size below which Lighthouse's "legible font sizes" audit calls mobile text too
small to read without zooming (https://developer.chrome.com/docs/lighthouse/seo/font-size).
A figure image whose PNG holds no record was not drawn through ``plotting.finish``, and
is a problem too: its text cannot be measured.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path

from PIL import Image

from attention_book.plotting import LEGEND_PX_KEY
from book_tools.site_check import NARROW, DrawnFigure, Problem, Views, browse

MIN_CSS_PX = 12.0


def recorded_legend_px(image: Path | bytes, name: str = "") -> float | None:
    """The smallest legend text the PNG records, in its own pixels; None: no legend.
    Raises LookupError when the PNG records nothing (not drawn by plotting.finish)."""
    with Image.open(io.BytesIO(image) if isinstance(image, bytes) else image) as png:
        value = getattr(png, "text", {}).get(LEGEND_PX_KEY)
    if value is None:
        name = name or getattr(image, "name", "the image")
        raise LookupError(f"{name} records no legend size ({LEGEND_PX_KEY}): draw it "
                          "through attention_book.plotting.finish")
    return None if value == "none" else float(value)


def drawn_px(text_px: float, natural_width: float, drawn_width: float) -> float:
    """CSS px of text ``text_px`` image pixels tall in an image drawn at ``drawn_width``."""
    return text_px * drawn_width / natural_width


def legend_problems(figures: Iterable[DrawnFigure]) -> list[Problem]:
    problems = []
    for fig in figures:
        if fig.image is None or (isinstance(fig.image, Path) and not fig.image.is_file()):
            problems.append(Problem(fig.page, "figure file missing", fig.src[:80]))
            continue
        try:
            text_px = recorded_legend_px(fig.image, fig.src[:80])
        except LookupError as e:
            problems.append(Problem(fig.page, "legend size not recorded", str(e)))
            continue
        if text_px is None or fig.drawn == 0:
            continue  # no legend, or not laid out (a hidden tab)
        size = drawn_px(text_px, fig.natural, fig.drawn)
        if size < MIN_CSS_PX:
            problems.append(Problem(fig.page, "legend text too small on a phone",
                                    f"{fig.src[:80]}: {size:.1f} CSS px (at least "
                                    f"{MIN_CSS_PX:g}): {text_px:g} px of a {fig.natural:g}-px "
                                    f"image drawn {fig.drawn:.0f} px wide"))
    return problems


def measure(site: Path, only: Iterable[Path] | None = None,
            size: tuple[int, int] = NARROW) -> list[DrawnFigure]:
    """Every figure of every page (or of ``only``), as headless Chromium draws it on a
    phone of ``size`` CSS px: the phone pass of the site checks (``site_check.browse``),
    which measures the figures as it checks them."""
    return browse(site, Views(desktop=False, phone_size=size), only).figures
