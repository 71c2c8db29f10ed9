"""What the checks of the built book share: where it is, its pages, each page parsed once,
and headless Chromium showing a page at the desktop window or on a phone.

The checks run after a strict build, from ``make site`` (ATTENTION_BOOK_REQUIRE_SITE=1), or
on the build that ATTENTION_BOOK_SITE names; elsewhere they are skipped, saying why, so
that the unit tests never judge a stale _build. When they are required, a missing build or
browser is a failure. A test that takes ``page`` runs once for every page; pytest keeps a
page's tests together and make site's ``--dist loadgroup`` sends them to one worker, whose
browser loads the page once and shows it at either size.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browsing import (
    DESKTOP,
    REQUESTED,
    REQUIRE,
    SITE,
    Shown,
    is_redirect,
    parse,
    rel,
    serve,
    show,
    site_pages,
)
from bs4 import BeautifulSoup

from book_tools import browser as chromium_browser

HERE = Path(__file__).resolve().parent


def pytest_configure(config):
    if REQUIRE and not (SITE / "index.html").is_file():
        raise pytest.UsageError(f"no built book in {SITE} (no index.html): make strict-book")


def pytest_generate_tests(metafunc):
    if "page" in metafunc.fixturenames:
        pages = [p for p in site_pages() if not is_redirect(p)] if REQUESTED else []
        metafunc.parametrize("page", pages, ids=rel, scope="session")


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the groups
def pytest_collection_modifyitems(config, items):
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        if not _ours(item):  # pytest hands this hook the unit tests too
            continue
        item.add_marker(pytest.mark.slow)
        if (group := _group(item)) is not None:
            item.add_marker(pytest.mark.xdist_group(group))
            first.setdefault(group, i)
    # A page's checks together, those at the desktop window first: the browser loads each
    # page once and switches to the phone once.
    where = {id(item): first.get(_group(item), i) for i, item in enumerate(items)}
    items.sort(key=lambda item: (where[id(item)], "phone" in item.fixturenames))


def _ours(item) -> bool:
    return HERE in item.path.parents


def _group(item) -> str | None:
    page = getattr(getattr(item, "callspec", None), "params", {}).get("page")
    # (no built site: pytest's placeholder for an empty parameter set, not a page)
    return rel(page) if _ours(item) and isinstance(page, Path) else None


@pytest.fixture(scope="session")
def site() -> Path:
    """The built book's folder."""
    if not REQUESTED:
        pytest.skip("checks of the built book run after a strict build: make site (or set "
                    "ATTENTION_BOOK_SITE to a built _build/html)")
    return SITE


@pytest.fixture
def doc(page) -> BeautifulSoup:
    """The page, parsed once."""
    return parse(page)


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium: a failure when the site's checks are required, else a skip."""
    if (why := chromium_browser.missing()) is not None:
        if REQUIRE:
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    with chromium_browser.chromium(*DESKTOP) as b:
        yield b


@pytest.fixture(scope="session")
def root(site) -> Iterator[str]:
    with serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def shown() -> Shown:
    return Shown()


@pytest.fixture
def desktop(browser, root, page, shown) -> Shown:
    """The page at the desktop window (1300 x 1000), loaded and typeset."""
    return show(browser, root + rel(page), False, shown)


@pytest.fixture
def phone(browser, root, page, shown) -> Shown:
    """The page on a 360-px phone."""
    return show(browser, root + rel(page), True, shown)
