"""A reader finds the way: the front page leads to the intro, every claim is two clicks from
the intro with its check or citation, every chapter links to its notebook in Colab and
Binder and for download, and the sidebar lists the instructor's guide."""

import re
from pathlib import Path
from urllib.parse import unquote, urljoin

import nbformat
import pytest
import yaml
from browsing import REPO, parse

from book_tools.cloud_cell import MARKER, launch_urls
from book_tools.notebooks import chapters


def target(site: Path, page: Path, href: str) -> tuple[Path, str]:
    """(file, anchor) that a link on a page leads to."""
    url = urljoin("http://site/" + page.relative_to(site).as_posix(), href)
    path, _, anchor = url.removeprefix("http://site/").partition("#")
    return site / unquote(path), anchor


def test_the_front_page_leads_to_the_intro(site, browser, root, shown):
    from selenium.webdriver.support.ui import WebDriverWait

    intro = root + yaml.safe_load((REPO / "_toc.yml").read_text())["root"] + ".html"
    shown.url = ""  # (the browser leaves the page the other checks show)
    browser.get(root + "index.html")
    WebDriverWait(browser, 20).until(lambda b: b.current_url.split("#")[0] == intro)


def claim_sections(site: Path) -> list[tuple[str, str, Path, object]]:
    """Follow intro -> ledger -> claim: (claim, status class, page, section) of every claim
    the ledger links; asserts each step of the way exists."""
    intro = site / "book" / "intro.html"
    ledger = next((target(site, intro, a["href"])[0] for a in parse(intro).select("article a")
                   if a.get("href", "").endswith("claims_ledger.html")), None)
    assert ledger is not None, "the intro does not link the claims ledger"
    rows = parse(ledger).select("table.claims-ledger tbody tr")
    assert rows, "the ledger page has no ledger table"
    out, problems = [], []
    for row in rows:
        claim, status = row.find("td").get_text(strip=True), row.select_one(".ledger-status")
        link = row.find("a", href=re.compile("#claim-"))
        if status is None:
            problems.append(f"{claim}: no status label")
            continue
        if "ledger-missing" in status["class"]:
            continue  # the ledger says so itself; there is no section to link yet
        if link is None:
            problems.append(f"{claim}: recorded but not linked to its section")
            continue
        page, anchor = target(site, ledger, link["href"])
        found = parse(page).find(id=anchor)
        if found is None:
            problems.append(f"{claim}: {link['href']} leads nowhere")
            continue
        section = found if found.name == "section" else found.find_parent("section")
        kind = next(c for c in status["class"] if c != "ledger-status")
        out.append((claim, kind, page, section))
    assert not problems
    assert out, "no claim in the ledger links to a section"
    return out


def test_every_claim_is_two_clicks_from_the_intro_with_its_check_or_citation(site):
    """intro -> ledger -> the claim's section, which shows the executed check (computed
    claims) or cites the literature (claims stated with citations)."""
    problems = []
    for claim, kind, page, section in claim_sections(site):
        if kind == "ledger-stated":
            cites = [a for a in section.find_all("a", href=True)
                     if target(site, page, a["href"])[0].name == "references.html"]
            problems += [] if cites else [f"{claim}: stated with citations, but cites nothing"]
        elif section.select_one(".cell_output") is None:
            problems.append(f"{claim}: its section shows no executed check")
    assert not problems


def test_every_computed_claim_is_stated_in_a_numbered_block(site):
    """A computed claim's section states it in a sphinx-proof block (a proposition, theorem,
    or for a measurement an observation): the reader finds statement and proof."""
    missing = [f"{claim} ({page.name})" for claim, kind, page, section in claim_sections(site)
               if kind != "ledger-stated" and section.select_one(".proof") is None]
    assert not missing


@pytest.mark.parametrize("chapter", [c.stem for c in chapters()])
def test_every_chapter_links_to_its_published_notebook(site, chapter):
    url = yaml.safe_load((REPO / "_config.yml").read_text())["repository"]["url"].rstrip("/")
    page = site / "book" / f"{chapter}.html"
    line = parse(page).select_one("p.launch-line")
    assert line is not None, f"{page.name}: no 'Run this chapter' line"
    hrefs = [a["href"] for a in line.find_all("a", href=True)]
    assert set(launch_urls(url, f"{chapter}.ipynb").values()) <= set(hrefs)
    (local,) = [h for h in hrefs if h.endswith(f"notebooks/{chapter}.ipynb") and "://" not in h]
    notebook = nbformat.read(target(site, page, local)[0], as_version=4)
    first = next(c for c in notebook.cells if c.cell_type == "code")
    assert first.source.startswith(MARKER), f"{chapter}.ipynb: no Colab/Binder set-up cell"


def test_the_guide_is_in_the_table_of_contents(site):
    nav = parse(site / "book" / "intro.html").select_one("nav.bd-docs-nav")
    assert nav is not None and nav.find("a", href=re.compile(r"instructors_guide\.html$"))
