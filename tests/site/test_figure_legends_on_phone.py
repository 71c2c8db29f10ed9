"""On a 360-px phone, every figure's smallest legend text is drawn at 12 CSS px or more.

Measured in headless Chromium on every page of the built book (book_tools.legend_check):
each figure image's drawn width against its natural width, times the legend size its PNG
records. Gated like the other checks of the built site (make site).
"""

import re
import shutil

import pytest

from book_tools.legend_check import legend_problems, measure, recorded_legend_px
from book_tools.site_check import pages, site_folder, soup

SITE = site_folder()
pytestmark = [pytest.mark.built_site, pytest.mark.usefixtures("built_book")]


def test_every_figure_legend_is_legible_on_a_360_px_phone(browser_run):
    figures = browser_run.figures
    measurable = [f for f in figures if not legend_problems([f])]
    with_legend = [f for f in measurable if recorded_legend_px(f.image) is not None]
    assert len(with_legend) >= 10, f"only {len(with_legend)} figures with a legend measured"
    problems = legend_problems(figures)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(map(str, problems))


def test_without_the_phone_rule_the_same_figures_fail(tmp_path, browser):
    """A copy of this build without _static/pages.css's phone rule: its figures shrink to
    the screen, and their legends fall below 12 CSS px."""
    copy = tmp_path / "html"
    shutil.copytree(SITE, copy)
    css = copy / "_static" / "pages.css"
    rule = re.compile(r"@media \(max-width: 600px\) \{.*?\n\}\n", re.S)
    assert rule.search(css.read_text()), "pages.css has no phone rule for figures"
    css.write_text(rule.sub("", css.read_text()))
    page = next(p for p in pages(copy) if p.name.startswith("01_")
                and soup(p).find("img", src=re.compile(r"_images/")))
    problems = legend_problems(measure(copy, only=[page]))
    assert problems and all(p.kind == "legend text too small on a phone" for p in problems), \
        problems
