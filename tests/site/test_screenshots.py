"""A screenshot of every page as a reader sees it, beside the site: the whole page at the
desktop window in _build/screenshots, the first screen of a 360-px phone in
_build/screenshots-phone."""

import base64

from browsing import DESKTOP, rel

MAX_HEIGHT = 16000  # px of window: Chromium draws no taller; longer pages are cut there


def save_png(browser, path) -> int:
    """What the window shows, as PNG (encoded for speed: a larger file, the same pixels)."""
    shot = browser.execute_cdp_cmd("Page.captureScreenshot",
                                   {"format": "png", "optimizeForSpeed": True})
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.write_bytes(base64.b64decode(shot["data"]))


def name(page, site) -> str:
    return rel(page, site).removesuffix(".html").replace("/", "__") + ".png"


def test_the_whole_page_at_the_desktop_window(desktop, browser, page, site):
    """(A window as tall as the page: Chromium's captureBeyondViewport drew some tall pages
    shifted sideways, a real tall window draws them as a reader sees them.)"""
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(DESKTOP[0], min(height + 150, MAX_HEIGHT))
    try:
        browser.execute_script("window.scrollTo(0, 0)")
        saved = save_png(browser, site.parent / "screenshots" / name(page, site))
    finally:
        browser.set_window_size(*DESKTOP)
    assert saved > 10_000


def test_the_first_screen_of_a_phone(phone, browser, page, site):
    browser.execute_script("window.scrollTo(0, 0)")
    assert save_png(browser, site.parent / "screenshots-phone" / name(page, site)) > 5_000
