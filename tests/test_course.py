"""What a teacher plans with: chapter times that add up, legible captions, true counts.

Each chapter's "**Time.**" line gives the exercises the sum of its exercises' titled
times; figure captions meet WCAG AA contrast (4.5:1) against the theme's page background
in both colour modes, computed from the CSS; the CHANGELOG counts the claims the index holds.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attention_book.claims import claim_index
from book_tools.course import course

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = course()


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.source.stem for c in CHAPTERS])
def test_the_exercise_time_in_the_header_is_the_sum_of_the_exercises(chapter):
    assert chapter.exercises, f"{chapter.source.name} has no exercise"
    assert chapter.stated_exercises == chapter.exercise_sum, (
        f"{chapter.source.name}: the **Time.** line gives {chapter.stated_exercises} min for "
        f"the exercises; their titles add up to {chapter.exercise_sum} "
        f"({[e.minutes for e in chapter.exercises]})")


# --------------------------------------------------------------------- contrast


def relative_luminance(hex_colour: str) -> float:
    """WCAG 2.x relative luminance of an sRGB colour written #rgb or #rrggbb."""
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_contrast_formula_gives_wcag_reference_values():
    assert contrast("#000", "#fff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def theme_backgrounds() -> dict[str, str]:
    """--pst-color-background per mode, from the installed pydata-sphinx-theme's CSS."""
    import pydata_sphinx_theme

    css = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
           / "static" / "styles" / "pydata-sphinx-theme.css").read_text()
    found = {}
    for mode, body in re.findall(r"html\[data-theme=(light|dark)\]\{([^}]*)\}", css):
        m = re.search(r"--pst-color-background:(#[0-9a-fA-F]{3,6})", body)
        if m:
            found.setdefault(mode, m.group(1))
    return found


def caption_colours() -> dict[str, str]:
    css = (REPO / "_static" / "pages.css").read_text()
    return dict(re.findall(
        r'html\[data-theme="(light|dark)"\] figcaption[^{]*\{\s*color:\s*(#[0-9a-fA-F]{3,6})',
        css))


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_figure_captions_meet_wcag_aa_contrast(mode):
    background, caption = theme_backgrounds().get(mode), caption_colours().get(mode)
    assert background, f"no --pst-color-background for {mode} mode in the theme's CSS"
    assert caption, f"_static/pages.css sets no figcaption colour for {mode} mode"
    ratio = contrast(caption, background)
    assert ratio >= 4.5, f"{mode}: caption {caption} on {background} is {ratio:.2f}:1 (< 4.5)"


# ---------------------------------------------------------------------- counts


def test_the_changelog_counts_the_claims_of_the_index():
    text = (REPO / "CHANGELOG.md").read_text()
    stated = [int(n) for n in re.findall(r"(\d+) claims\b", text)]
    assert stated, "the CHANGELOG states no number of claims"
    assert stated[0] == len(claim_index()), (stated[0], len(claim_index()))
