"""Headless Chromium under chromedriver (Selenium), for the site's checks and the PDF:
Debian's ``chromium`` and ``chromium-driver`` (``make system-deps``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

# (file access from files: a page opened from disk loads MathJax's fonts beside it)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--allow-file-access-from-files")


def missing() -> str | None:
    """Why no headless Chromium can start here, or None."""
    found = {name: shutil.which(name) for name in ("chromium", "chromedriver")}
    if all(found.values()):
        return None
    return (f"headless Chromium and its driver are needed (found {found}): make system-deps "
            "installs Debian's chromium and chromium-driver")


@contextmanager
def chromium(width: int = 1300, height: int = 1000) -> Iterator[webdriver.Chrome]:
    """A headless Chromium window of that size, its console logged, closed after."""
    if (why := missing()) is not None:
        raise FileNotFoundError(why)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in (*FLAGS, f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    try:
        browser.set_script_timeout(300)
        yield browser
    finally:
        browser.quit()
