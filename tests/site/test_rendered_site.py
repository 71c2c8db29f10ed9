"""Checks of the built book in _build/html (or $ATTENTION_BOOK_SITE), as a reader meets it.

They run after a strict build, from ``make site``, which sets ATTENTION_BOOK_REQUIRE_SITE=1:
then a missing build, browser or driver is a failure. A plain ``pytest tests`` skips them
(saying why), so that the unit tests never judge a stale _build left from an earlier build;
set ATTENTION_BOOK_SITE=<folder with index.html> to check a particular build.
"""

import re
import shutil
from pathlib import Path

import nbformat
import pytest
import yaml

from book_tools.cloud_cell import MARKER, launch_urls
from book_tools.notebooks import chapters
from book_tools.site_check import (
    check_in_browser,
    check_links,
    check_rendering,
    pages,
    refresh_target,
    resolve_url,
    site_folder,
    soup,
)

REPO = Path(__file__).resolve().parents[2]
SITE = site_folder()
pytestmark = [pytest.mark.built_site, pytest.mark.usefixtures("built_book")]


def fail_on(problems) -> None:
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(map(str, problems))


def html_page(doc: str) -> Path:
    return SITE / f"{doc}.html"


def config() -> dict:
    return yaml.safe_load((REPO / "_config.yml").read_text())


def notebook_pages() -> list[Path]:
    """Pages built from a chapter (a MyST Markdown notebook)."""
    return [html_page(f"book/{md.stem}") for md in chapters()]


def test_internal_links_and_anchors_resolve():
    fail_on(check_links(SITE))


def test_pages_render_without_raw_myst_error_boxes_or_missing_images():
    fail_on(check_rendering(SITE))


def test_in_chromium_math_is_typeset_and_every_image_loads(browser_run):
    fail_on(browser_run.desktop)


def test_every_page_has_a_screenshot(browser_run):
    shots = browser_run.screenshots
    redirects = {p for p in pages(SITE) if refresh_target(p) is not None}
    expected = {p.relative_to(SITE).as_posix().removesuffix(".html").replace("/", "__")
                for p in pages(SITE) if p not in redirects}
    assert {s.stem for s in shots} == expected
    assert all(s.stat().st_size > 10_000 for s in shots), [s.name for s in shots]


def test_a_broken_link_and_a_missing_figure_in_the_real_site_are_caught(tmp_path, browser_run):
    """Damage a copy of this build (one link, one figure, one label typed as TeX) and watch
    every layer object."""
    copy = tmp_path / "html"
    shutil.copytree(SITE, copy)
    with_figure = next((p for p in pages(copy) if soup(p).find("img", src=re.compile(
        r"_images/"))), None)
    assert with_figure is not None, "the book has no figure at all"
    src = soup(with_figure).find("img", src=re.compile(r"_images/"))["src"]
    figure, _ = resolve_url(copy, with_figure, src)
    figure.unlink()
    # TeX inside \text{} (a label typed as TeX): MathJax typesets it, backslashes and all
    html = with_figure.read_text()
    assert "</article>" in html
    with_figure.write_text(html.replace("</article>", '<p><span class="math notranslate '
                                        'nohighlight">\\(\\text{\\alpha:}\\quad x\\)</span>'
                                        '</p></article>', 1))
    intro = copy / "book" / "intro.html"
    text = intro.read_text()
    assert 'href="claims_ledger.html"' in text
    intro.write_text(text.replace('href="claims_ledger.html"', 'href="claims_ledgr.html"', 1))

    def new(check) -> list[str]:  # what the damage added to this build's own findings
        before = {str(p) for p in check(SITE)}
        return [str(p) for p in check(copy) if str(p) not in before]

    assert new(check_links) == ['book/intro.html: broken link: <a href="claims_ledgr.html">']
    page = with_figure.relative_to(copy).as_posix()
    assert new(check_rendering) == [f"{page}: missing image: image file missing: {src}"]
    seen, _ = check_in_browser(copy, None, only=[with_figure])
    assert f"{page}: image did not load: {src}" in [str(p) for p in seen], seen
    assert f"{page}: TeX shown as text in typeset math: '\\\\alpha:'" in [str(p) for p in seen], \
        seen


def claim_sections() -> list[tuple[str, str, Path, object]]:
    """Follow intro -> ledger -> claim: (claim, status class, page, section) of every
    claim the ledger links; asserts each step of the way exists."""
    root = yaml.safe_load((REPO / "_toc.yml").read_text())["root"]
    intro = html_page(root)
    to_ledger = [a for a in soup(intro).select("article a[href]")
                 if (resolve_url(SITE, intro, a["href"])[0] or Path()).name == "claims_ledger.html"]
    assert to_ledger, "the intro does not link the claims ledger"
    ledger = resolve_url(SITE, intro, to_ledger[0]["href"])[0]
    rows = soup(ledger).select("table.claims-ledger tbody tr")
    assert rows, "the ledger page has no ledger table"
    out, problems = [], []
    for row in rows:
        claim = row.find("td").get_text(strip=True)
        status = row.select_one(".ledger-status")
        link = row.find("a", href=re.compile("#claim-"))
        if status is None:
            problems.append(f"{claim}: no status label")
        elif "ledger-missing" in status["class"]:
            continue  # the ledger says so itself; there is no section to link yet
        elif link is None:
            problems.append(f"{claim}: recorded but not linked to its section")
        else:
            page, anchor = resolve_url(SITE, ledger, link["href"])
            target = soup(page).find(id=anchor)
            if target is None:
                problems.append(f"{claim}: {link['href']} leads nowhere")
                continue
            section = target if target.name == "section" else target.find_parent("section")
            kind = next(c for c in status["class"] if c != "ledger-status")
            out.append((claim, kind, page, section))
    assert not problems, "\n".join(problems)
    assert out, "no claim in the ledger links to a section"
    return out


def test_every_claim_is_two_clicks_from_the_intro_with_its_check_or_citation():
    """intro -> ledger -> the claim's section, which shows the executed check (computed
    claims) or cites the literature (claims stated with citations)."""
    problems = []
    for claim, kind, page, section in claim_sections():
        if kind == "ledger-stated":
            cites = [a for a in section.find_all("a", href=True)
                     if (resolve_url(SITE, page, a["href"])[0] or Path()).name == "references.html"]
            if not cites:
                problems.append(f"{claim}: stated with citations, but its section cites nothing")
        elif section.select_one(".cell_output") is None:
            problems.append(f"{claim}: its section shows no executed check")
    assert not problems, "\n".join(problems)


def test_every_computed_claim_is_stated_in_a_numbered_block():
    """The section of a computed claim states it as a sphinx-proof block (a proposition,
    theorem, or for a measurement an observation), so the reader finds statement and proof."""
    missing = [f"{claim} ({page.name})" for claim, kind, page, section in claim_sections()
               if kind != "ledger-stated" and section.select_one(".proof") is None]
    assert not missing, ("no {prf:...} statement block in the section of: " + ", ".join(missing))


def test_every_chapter_links_to_its_published_notebook_in_colab_and_binder():
    url = config()["repository"]["url"].rstrip("/")
    chapters = notebook_pages()
    assert chapters, "no page was built from a chapter"
    for page in chapters:
        notebook = page.stem + ".ipynb"
        line = soup(page).select_one("p.launch-line")
        assert line is not None, f"{page.name}: no 'Run this chapter' line"
        hrefs = [a["href"] for a in line.find_all("a", href=True)]
        for name, href in launch_urls(url, notebook).items():
            assert href in hrefs, f"{page.name}: no {name} link to {href}"
        local = [h for h in hrefs if h.endswith(f"notebooks/{notebook}") and "://" not in h]
        assert local, f"{page.name}: no download link to notebooks/{notebook}"
        target, _ = resolve_url(SITE, page, local[0])
        nb = nbformat.read(target, as_version=4)
        first = next(c for c in nb.cells if c.cell_type == "code")
        assert first.source.startswith(MARKER), f"{notebook}: no Colab/Binder set-up cell"


# ------------------------------------------------- figures: captions, alt text, phones


def test_every_figure_has_a_caption_and_an_alt_text_that_describes_it():
    from book_tools.site_check import check_figure_captions

    fail_on(check_figure_captions(SITE))


def test_every_solution_is_folded():
    from book_tools.site_check import check_solutions_folded

    fail_on(check_solutions_folded(SITE))


def test_on_a_360_px_phone_every_figure_fits_the_screen(browser_run):
    """(The phone view of the same browser run, book_tools.site_check.check_narrow_viewport's
    check.)"""
    assert {s.stem for s in (SITE.parent / "screenshots-phone").glob("*.png")} == {s.stem for s in
                                                                browser_run.screenshots}
    fail_on(browser_run.phone)
