"""What the checks of the built book share: where the book is, when they run, the browser.

The checks of a built book (modules marked ``pytestmark = pytest.mark.built_site``) run
after a strict build, from ``make site``, which sets ATTENTION_BOOK_REQUIRE_SITE=1, or on the
build that ATTENTION_BOOK_SITE names. A plain ``pytest tests`` skips them, saying why, so
that the unit tests never judge a stale _build left from an earlier build. When they are
required, a missing build, browser or driver is a failure, not a skip.
"""

import os
import shutil
from pathlib import Path

import pytest

from book_tools.site_check import SITE_VAR, BrowserRun, Views, browse, find_browser, site_folder

SITE = site_folder()
REQUIRE = os.environ.get("ATTENTION_BOOK_REQUIRE_SITE") == "1"
REQUESTED = REQUIRE or SITE_VAR in os.environ


def pytest_configure(config):
    config.addinivalue_line("markers", "built_site: checks the built book in _build/html "
                            "(or ATTENTION_BOOK_SITE); runs from make site")


def pytest_collection_modifyitems(config, items):
    if REQUESTED:
        return
    skip = pytest.mark.skip(reason="checks of the built book run after a strict build: make "
                            "site (or set ATTENTION_BOOK_SITE to a built _build/html)")
    for item in items:
        if item.get_closest_marker("built_site"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The built book's folder (it must hold index.html)."""
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built book in {SITE} (no index.html): build it first "
                    "(make strict-book)", pytrace=False)
    return SITE


@pytest.fixture(scope="session")
def browser() -> tuple[str, str]:
    """Headless Chromium and its driver: a failure when the site checks are required, else
    a skip."""
    binary, driver = find_browser()
    if not (binary and driver):
        message = f"no headless Chromium/chromedriver here (found {binary}, {driver})"
        if REQUIRE:
            pytest.fail(message + ": apt-get install -y chromium chromium-driver",
                        pytrace=False)
        pytest.skip(message)
    return binary, driver


@pytest.fixture(scope="session")
def browser_run(built_book, browser) -> BrowserRun:
    """Every page of the built book once in Chromium, at the desktop window and on a phone
    (two browser sessions side by side, each serving both views for its share of the
    pages): what every browser check of the built book reads. Screenshots go beside the
    site, in screenshots/ and screenshots-phone/."""
    shots, phone_shots = built_book.parent / "screenshots", built_book.parent / "screenshots-phone"
    shutil.rmtree(shots, ignore_errors=True)
    shutil.rmtree(phone_shots, ignore_errors=True)
    return browse(built_book, Views(screenshots=shots, phone_screenshots=phone_shots))
