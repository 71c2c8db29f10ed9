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

import base64
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from attention_book.plotting import LEGEND_PX_KEY
from book_tools.site_check import (
    NARROW,
    Problem,
    chromium,
    find_browser,
    pages,
    refresh_target,
    resolve_url,
    serve,
)

MIN_CSS_PX = 12.0

# Runs in the page at phone width: unfold everything, wait for the figures, measure them.
MEASURE_JS = r"""
const done = arguments[arguments.length - 1];
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  for (let t = 0; t < 200 && document.readyState !== 'complete'; t++) await sleep(50);
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  const scope = document.querySelector('article') || document.querySelector('main')
    || document.body;
  const imgs = Array.from(scope.querySelectorAll('img')).filter(
    i => i.closest('figure') || i.closest('.cell_output, .output'));
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
    i.addEventListener('load', r); i.addEventListener('error', r); })));
  await sleep(100);
  done(JSON.stringify({viewport: document.documentElement.clientWidth,
    figures: imgs.map(i => ({src: i.getAttribute('src') || '', natural: i.naturalWidth,
                             drawn: i.getBoundingClientRect().width}))}));
})().catch(e => done(JSON.stringify({error: String(e)})));
"""


@dataclass(frozen=True)
class DrawnFigure:
    page: str          # the page, relative to the site
    src: str           # the image's src on that page
    image: Path | bytes | None  # the PNG it points to (its bytes, for a data: URL)
    natural: float     # the image's width in its own pixels
    drawn: float       # the width the browser drew it at, CSS px


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
    phone of ``size`` CSS px."""
    binary, driver = find_browser()
    if not (binary and driver):
        raise FileNotFoundError(f"measuring figures needs Chromium and chromedriver (found "
                                f"{binary}, {driver}): apt-get install -y chromium "
                                "chromium-driver")
    site = site.resolve()
    found = []
    with serve(site) as root, chromium(binary, driver) as browser:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True})
        for page in (list(only) if only is not None else pages(site)):
            if refresh_target(page) is not None:
                continue
            rel = page.relative_to(site).as_posix()
            browser.get(root + rel)
            report = json.loads(browser.execute_async_script(MEASURE_JS))
            if "error" in report:
                raise RuntimeError(f"{rel}: the measuring script failed: {report['error']}")
            if report["viewport"] > size[0]:
                raise RuntimeError(f"{rel}: laid out {report['viewport']} px wide, not as "
                                   f"a {size[0]}-px phone")
            found += [DrawnFigure(rel, f["src"], _image(site, page, f["src"]),
                                  f["natural"], f["drawn"]) for f in report["figures"]]
    return found


def _image(site: Path, page: Path, src: str) -> Path | bytes | None:
    """The file an image's src names, or the bytes a base64 data: URL holds."""
    if src.startswith("data:"):
        header, _, payload = src.partition(",")
        return base64.b64decode(payload) if header.endswith(";base64") else None
    return resolve_url(site, page, src)[0]
