"""The site checks themselves: on a tiny synthetic site they must report every planted fault
(broken link, missing anchor, missing figure, raw MyST or TeX, error boxes, math that
MathJax never typeset) and nothing on a clean page. Needs no built book."""

from pathlib import Path

import pytest
from PIL import Image

from book_tools.site_check import (
    check_in_browser,
    check_links,
    check_rendering,
    pages,
)

PAGE = """<!DOCTYPE html><html><head><title>{title}</title></head>
<body><main>{body}</main></body></html>"""


def write(site: Path, name: str, body: str) -> None:
    path = site / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PAGE.format(title=name, body=body))


@pytest.fixture
def site(tmp_path) -> Path:
    site = tmp_path / "html"
    (site / "_images").mkdir(parents=True)
    Image.new("RGB", (8, 6), "steelblue").save(site / "_images" / "ok.png")
    write(site, "index.html", """
        <a href="book/page.html">fine</a> <a href="book/page.html#there">fine anchor</a>
        <a href="book/missing.html">broken</a> <a href="book/page.html#nowhere">no anchor</a>
        <a href="https://example.org/">external, not followed</a>
        <img src="_images/ok.png" alt="fine"> <img src="_images/figure.png" alt="missing">""")
    write(site, "book/page.html", """
        <section id="there"><h1>Page</h1>
        <p>A target left raw: (claim-x9)= and a role left raw: {ref}`claim-x9`.</p>
        <p>Inline math: <span class="math notranslate nohighlight">\\(x^2\\)</span></p>
        <p>A title that lost its math: Why not just XX^\\top</p>
        <pre>```{code} shown as code is fine: $$ and (label)= too</pre>
        <div class="cell_output"><div class="output stderr"><pre>UserWarning: noise</pre></div>
        <div class="output stream"><pre>Traceback (most recent call last):
  File "x", line 1</pre></div></div></section>""")
    write(site, "book/clean.html", """
        <h1 id="top">Clean</h1><p>Prose, <code>```{code}</code>, a
        <a href="../index.html">link</a>, an <a href="#top">anchor</a>.</p>
        <img src="../_images/ok.png" alt="fine">""")
    return site


def by_page(problems):
    out = {}
    for p in problems:
        out.setdefault(p.page, []).append((p.kind, p.detail))
    return out


def test_a_page_is_parsed_once_per_content_wherever_it_lies(site, tmp_path):
    """A copy of the site shares the parses of its unchanged pages; a changed page is
    parsed again, so a check of the copy sees the change."""
    import shutil

    from book_tools.site_check import anchors, soup

    copy = tmp_path / "copy"
    shutil.copytree(site, copy)
    assert soup(copy / "book" / "clean.html") is soup(site / "book" / "clean.html")
    page = copy / "book" / "page.html"
    page.write_text(page.read_text().replace('id="there"', 'id="elsewhere"'))
    assert soup(page) is not soup(site / "book" / "page.html")
    assert "elsewhere" in anchors(page) and "there" not in anchors(page)
    assert "there" in anchors(site / "book" / "page.html")


def test_pages_are_found(site):
    assert [p.relative_to(site).as_posix() for p in pages(site)] == [
        "book/clean.html", "book/page.html", "index.html"]


def test_broken_links_and_anchors_are_reported(site):
    found = by_page(check_links(site))
    assert set(found) == {"index.html"}, found  # the clean page and fine links pass
    kinds = sorted(found["index.html"])
    assert kinds == [("broken link", '<a href="book/missing.html">'),
                     ("missing anchor", '<a href="book/page.html#nowhere">: no id '
                                        "'nowhere' in book/page.html")]


def test_missing_figures_raw_myst_and_error_boxes_are_reported(site):
    found = by_page(check_rendering(site))
    assert "book/clean.html" not in found, found["book/clean.html"]
    assert found["index.html"] == [("missing image", "image file missing: _images/figure.png")]
    kinds = {k for k, _ in found["book/page.html"]}
    assert kinds == {"raw MyST (target)", "raw MyST (role)", "raw TeX (outside math)",
                     "stderr output", "traceback in an output"}, found["book/page.html"]


def test_a_figure_that_disappears_after_the_build_is_reported(site):
    (site / "_images" / "ok.png").unlink()
    found = by_page(check_rendering(site))
    assert ("missing image", "image file missing: ../_images/ok.png") in found["book/clean.html"]


def test_the_browser_sees_a_missing_figure_and_untypeset_math(site, tmp_path, browser):
    problems, shots = check_in_browser(site, tmp_path / "shots")
    found = by_page(problems)
    assert "book/clean.html" not in found, found["book/clean.html"]
    assert ("image did not load", "_images/figure.png") in found["index.html"]
    assert ("math not typeset", "no MathJax script on a page with math") in found["book/page.html"]
    assert len(shots) == 3 and all(s.stat().st_size > 1000 for s in shots)
    with Image.open(tmp_path / "shots" / "book__clean.png") as im:
        assert im.width > 500 and im.height > 100


# ------------------------------------------------- figures: captions, alt text, phones


PHONE_PAGE = """<!DOCTYPE html><html><head><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main>{body}</main></body></html>"""


def figure_site(tmp_path: Path) -> Path:
    """Pages whose figures are fine, uncaptioned, badly described, or too wide for a phone;
    and a page made for desktops only (no viewport meta tag)."""
    site = tmp_path / "figures"
    (site / "_images").mkdir(parents=True)
    Image.new("RGB", (300, 200), "steelblue").save(site / "_images" / "small.png")
    Image.new("RGB", (1200, 400), "darkorange").save(site / "_images" / "wide.png")
    good = 'alt="Twelve bars, one per head, rising with the layer"'
    pages = {
        "good.html": f"""<article>
        <img src="_images/small.png" alt="">  <!-- a logo: not a figure -->
        <figure><img src="_images/small.png" {good} style="max-width:100%">
        <figcaption>Ranks.</figcaption></figure>
        <figure><img src="_images/wide.png" {good} style="max-width:100%">
        <figcaption>Wide, scaled down.</figcaption></figure></article>""",
        "bad.html": f"""<article>
        <div class="cell_output"><img src="_images/small.png" alt="_images/small.png"></div>
        <figure><img src="_images/small.png" alt="png"></figure>
        <figure><img src="_images/wide.png" {good}><figcaption>Too wide.</figcaption></figure>
        </article>"""}
    for name, body in pages.items():
        (site / name).write_text(PHONE_PAGE.format(title=name, body=body))
    write(site, "desktop.html", "<article><p>No viewport meta tag.</p></article>")
    return site


def test_figures_without_caption_or_with_a_file_name_for_alt_text_are_reported(tmp_path):
    from book_tools.site_check import alt_problem, check_figure_captions

    found = by_page(check_figure_captions(figure_site(tmp_path)))
    assert set(found) == {"bad.html"}, found
    assert sorted(found["bad.html"]) == [
        ("figure without caption", "_images/small.png"),
        ("figure without caption", "_images/small.png"),
        ("figure without meaningful alt text",
         "_images/small.png: alt text is a file name: '_images/small.png'"),
        ("figure without meaningful alt text", "_images/small.png: alt text says nothing: 'png'"),
    ]
    assert alt_problem(None) == "no alt text"
    assert alt_problem("fig-scores.svg").startswith("alt text is a file name")
    assert alt_problem("Plot") == "alt text says nothing: 'Plot'"
    assert alt_problem("Heatmap of 144 heads' asymmetry, layer down, head across") is None


def test_on_a_phone_a_figure_wider_than_the_screen_is_reported(tmp_path, browser):
    from book_tools.site_check import check_narrow_viewport

    site = figure_site(tmp_path)
    found = by_page(check_narrow_viewport(site, screenshots=tmp_path / "phone",
                                          max_figure_px=2000))
    assert set(found) == {"bad.html", "desktop.html"}, found
    assert found["desktop.html"] == [("not a phone-width layout", "980 px wide, wanted 360")]
    kinds = [kind for kind, _ in found["bad.html"]]
    # the wide image runs off the screen (and out of its figure); the small one, 300 px in a
    # figure whose margins leave it 264 px, only out of its figure
    assert kinds == ["figure overflows the screen", "figure overflows its box",
                     "figure overflows its box"], found
    # the good page's 1200-px figure fits, scaled to 27%: too small to read (the default
    # limit is 900 px)
    strict = by_page(check_narrow_viewport(site, only=[site / "good.html"]))
    assert [kind for kind, _ in strict["good.html"]] == ["figure too wide to read on a phone"]
    assert "of 360" in found["bad.html"][0][1]
    with Image.open(tmp_path / "phone" / "good.png") as im:
        assert im.width == 720  # 360 CSS px at device scale 2


def test_a_solution_that_is_not_folded_is_reported(tmp_path):
    from book_tools.site_check import check_solutions_folded

    site = tmp_path / "html"
    write(site, "folded.html", '<div class="solution dropdown admonition" id="s1">x</div>')
    write(site, "open.html", '<div class="solution admonition" id="s2">the answer</div>')
    assert [str(p) for p in check_solutions_folded(site)] == [
        "open.html: solution not folded: s2"]
