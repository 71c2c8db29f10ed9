"""Helpers of the site's checks: where the built book is, its pages, a local HTTP server,
and what headless Chromium shows (``show``: a page at the desktop window or on a phone)."""

from __future__ import annotations

import functools
import http.server
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bs4 import BeautifulSoup

REPO = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("ATTENTION_BOOK_SITE", REPO / "_build" / "html")).resolve()
REQUIRE = os.environ.get("ATTENTION_BOOK_REQUIRE_SITE") == "1"
REQUESTED = REQUIRE or "ATTENTION_BOOK_SITE" in os.environ
DESKTOP, PHONE = (1300, 1000), (360, 740)  # CSS px; the phone: a small one, in portrait
NOT_PAGES = {"_static", "_sources", "_images", "_downloads"}
# Runs in the page once it has loaded: every image loaded, MathJax done; what MathJax did.
READY_JS = r"""
const done = arguments[arguments.length - 1];
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  for (let t = 0; t < 600 && document.readyState !== 'complete'; t++) await sleep(50);
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
    i.addEventListener('load', r); i.addEventListener('error', r); })));
  if (!document.querySelector('.math')) return done('no math on this page');
  if (!document.querySelector('script[src*="mathjax" i]'))
    return done('no MathJax script on a page with math');
  for (let t = 0; t < 600 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); t++)
    await sleep(50);
  if (!(window.MathJax && MathJax.startup)) return done('MathJax did not load');
  await MathJax.startup.promise;
  done('typeset');
})().catch(e => done('page script failed: ' + e));
"""


@functools.cache
def parse(page: Path) -> BeautifulSoup:
    """A built page parsed (lxml), once per process: read it, never change it."""
    return BeautifulSoup(page.read_text(encoding="utf-8"), "lxml")


def site_pages(site: Path = SITE) -> list[Path]:
    """Every page of a built site (theme and source copies aside), redirects included."""
    return sorted(p for p in site.rglob("*.html") if not NOT_PAGES & set(p.relative_to(site).parts))


def is_redirect(page: Path) -> bool:
    return 'http-equiv="refresh"' in page.read_text(errors="replace").lower()


def rel(page: Path, site: Path = SITE) -> str:
    return page.relative_to(site).as_posix()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Python's HTTP server on 127.0.0.1 (a free port) for a folder; its address."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Shown:
    """What the browser shows: the page, at which size, what loading it logged and did."""

    url: str = ""
    phone: bool = False
    mathjax: str = ""
    console: list[dict] = field(default_factory=list)


def show(browser, url: str, phone: bool, shown: Shown) -> Shown:
    """Load url (unless it is shown already), at the desktop window or emulating a phone
    (the phone's metrics applied to the loaded page: its layout is what the CSS gives a
    phone); returns what is shown."""
    if shown.url != url:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.get_log("browser")  # drop what earlier pages logged
        browser.get(url)
        shown.url, shown.phone, shown.mathjax = url, False, browser.execute_async_script(READY_JS)
        shown.console = browser.get_log("browser")
    if shown.phone != phone:
        if phone:
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 2, "mobile": True})
        else:
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        shown.phone = phone
    browser.execute_async_script(NEXT_FRAME_JS)
    return shown


# Returns once two frames are drawn: the first after a change lays the page out, the second
# is painted from it.
NEXT_FRAME_JS = """const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => done()));"""


def run_js(browser, script: str, *args):
    """A script's JSON answer: ``return JSON.stringify(...)``."""
    return json.loads(browser.execute_script(script, *args))
