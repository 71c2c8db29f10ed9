"""Checks of the rendered book (``_build/html``), as a reader would meet it.

Static checks, on the HTML files: every internal link, resource and ``#anchor`` resolves
(``check_links``); no page shows raw MyST, error boxes, tracebacks or missing images
(``check_rendering``). Browser checks, in headless Chromium driven by chromedriver over a
local HTTP server on 127.0.0.1 (``check_in_browser``): MathJax typeset every equation and
left no raw TeX, every image loaded, no resource failed to load; a full-page screenshot of
each page is saved.

Command line: ``python -m book_tools.site_check _build/html [--no-browser]``.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup, NavigableString
from bs4.element import Comment, Doctype, ProcessingInstruction

SITE_VAR = "ATTENTION_BOOK_SITE"  # a built book to check instead of _build/html
CHROMIUM_VAR, CHROMEDRIVER_VAR = "CHROMIUM_BINARY", "CHROMEDRIVER"
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
CHROMEDRIVER_CANDIDATES = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
WINDOW = (1300, 1000)
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-dev-shm-usage", "--hide-scrollbars",
                  f"--window-size={WINDOW[0]},{WINDOW[1]}")
NARROW = (360, 740)  # CSS px: a small phone in portrait
# A figure drawn wider than this (px) shrinks on a phone below 330/900 = 37% of its size,
# and its 9-pt text (13.75 px at the book's 110 dpi) to 5 px. The book's figures are drawn
# about 6.4 in wide: 704 px, up to about 880 with a legend or colour bar outside the axes;
# three panels side by side come out at 950 px and more.
MAX_FIGURE_PX = 900
MAX_SCREENSHOT_HEIGHT = 16000  # px of window; longer pages are cut there (Chromium's limit ~16k)

# Text a reader must never see: MyST that was not parsed, TeX that is not typeset.
RAW_MARKUP = {
    "raw MyST (code fence)": re.compile(r"```"),
    "raw MyST (colon fence)": re.compile(r":::\s*\{"),
    "raw MyST (role)": re.compile(r"\{[a-z][\w:-]*\}`"),
    "raw MyST (target)": re.compile(r"\([\w.:-]+\)=(\s|$)"),
    "raw MyST (display math)": re.compile(r"\$\$"),
    "raw MyST (directive option)": re.compile(
        r"(^|\n)\s*:(label|class|name|nonumber|tags|width|align):\s"),
    "raw TeX (outside math)": re.compile(r"\\[A-Za-z]{2,}|\\[()\[\]]"),
}
# Where such text is legitimate: code and printed outputs, TeX awaiting MathJax, scripts.
# (Markdown outputs of cells are prose and are checked.)
VERBATIM_TAGS = frozenset({"script", "style", "pre", "code", "textarea", "kbd", "samp",
                           "mjx-container", "svg", "math", "template", "noscript"})
# ("onlyprint": the theme's header for printing, never on screen; it shows titles as plain
# text, so a title with math prints as raw TeX there. A known limit of sphinx-book-theme.)
VERBATIM_CLASSES = frozenset({"math", "highlight", "cell_input", "onlyprint"})
# Error boxes: docutils problems, error outputs and tracebacks, stderr printed by a cell.
ERROR_CLASSES = {"system-message": "docutils error box", "problematic": "docutils problem",
                 "traceback": "traceback output", "stderr": "stderr output"}
TRACEBACK = re.compile(r"Traceback \(most recent call last\)")
EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|//)", re.I)
# (Images are checked by check_rendering, as figures.)
LINK_ATTRS = (("a", "href"), ("link", "href"), ("script", "src"), ("iframe", "src"),
              ("source", "src"), ("video", "src"), ("audio", "src"))


@dataclass(frozen=True)
class Problem:
    page: str
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.page}: {self.kind}: {self.detail}"



def site_folder() -> Path:
    """The built book the site checks read: $ATTENTION_BOOK_SITE, else _build/html."""
    default = Path(__file__).resolve().parent.parent / "_build" / "html"
    return Path(os.environ.get(SITE_VAR, default)).resolve()

def pages(site: Path) -> list[Path]:
    """Every HTML page of the site (theme and source copies excluded)."""
    skip = {"_static", "_sources", "_images", "_downloads"}
    return sorted(p for p in site.rglob("*.html") if not skip & set(p.relative_to(site).parts))


@functools.lru_cache(maxsize=1024)
def _digest(path: Path, mtime_ns: int, size: int) -> str:
    return hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()


@dataclass(frozen=True)
class _File:
    """A file known by its content: equal (and cached as one) wherever it lies."""

    digest: str
    path: Path = field(compare=False)


def _file(path: Path) -> _File:
    """The file with a digest of its bytes (read again only when its mtime or size change)."""
    path = path.resolve()
    stat = path.stat()
    return _File(_digest(path, stat.st_mtime_ns, stat.st_size), path)


@functools.lru_cache(maxsize=256)
def _soup(file: _File) -> BeautifulSoup:
    return BeautifulSoup(file.path.read_text(encoding="utf-8", errors="replace"), "html.parser")


def soup(path: Path) -> BeautifulSoup:
    """The parsed page, cached by the file's content: the checks reach a page both as
    listed and as a link's target, and a copy of the site (the tests damage copies) parses
    only the pages that differ. Read-only: the parse is shared."""
    return _soup(_file(path))


def anchors(page: Path) -> frozenset[str]:
    """Every id and <a name> of the page (cached by its content: a page is the target of
    hundreds of links)."""
    return _anchors(_file(page))


@functools.lru_cache(maxsize=256)
def _anchors(file: _File) -> frozenset[str]:
    doc = _soup(file)
    return frozenset({t["id"] for t in doc.find_all(id=True)} |
                     {t["name"] for t in doc.find_all("a") if t.get("name")})


def refresh_target(page: Path) -> str | None:
    """The URL a redirect page (<meta http-equiv="refresh">) sends the reader to."""
    meta = soup(page).find("meta", attrs={"http-equiv": re.compile("^refresh$", re.I)})
    if meta is None:
        return None
    match = re.search(r"url\s*=\s*['\"]?([^'\";]+)", meta.get("content", ""), re.I)
    return match.group(1).strip() if match else ""


def _rel(site: Path, page: Path) -> str:
    return page.relative_to(site).as_posix()


def resolve_url(site: Path, page: Path, url: str) -> tuple[Path | None, str]:
    """(file the URL points to, fragment); None when it leaves the site."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    target = page if not path else (page.parent / path)
    if path.endswith("/") or target.is_dir():
        target = target / "index.html"
    target = Path(os.path.normpath(target))
    try:
        target.relative_to(site)
    except ValueError:
        return None, parts.fragment
    return target, unquote(parts.fragment)


def check_links(site: Path) -> list[Problem]:
    """Every internal link, stylesheet, script and image URL resolves, and every #anchor."""
    site = site.resolve()
    problems = []
    for page in pages(site):
        urls = [(tag, attr, (el.get(attr) or "").strip())
                for tag, attr in LINK_ATTRS for el in soup(page).find_all(tag)]
        if (redirect := refresh_target(page)) is not None:
            urls.append(("meta", "http-equiv=refresh url", redirect or page.name))
        for tag, attr, url in urls:
            if url and not EXTERNAL.match(url):
                problems += _link_problems(site, page, f"<{tag} {attr}=\"{url}\">", url)
    return problems


def _link_problems(site: Path, page: Path, where: str, url: str) -> list[Problem]:
    target, fragment = resolve_url(site, page, url)
    rel = _rel(site, page)
    if target is None:
        return [Problem(rel, "link leaves the site", where)]
    if not target.is_file():
        return [Problem(rel, "broken link", where)]
    if fragment and target.suffix == ".html" and fragment not in anchors(target):
        return [Problem(rel, "missing anchor",
                        f"{where}: no id '{fragment}' in {_rel(site, target)}")]
    return []


def _verbatim(node: NavigableString) -> bool:
    for parent in node.parents:
        if parent.name in VERBATIM_TAGS or VERBATIM_CLASSES & set(parent.get("class") or ()):
            return True
    return False


def visible_text(doc: BeautifulSoup) -> Iterator[str]:
    """The prose a reader sees: text outside code, outputs, math and scripts."""
    body = doc.body or doc
    for node in body.find_all(string=True):
        if isinstance(node, Comment | Doctype | ProcessingInstruction) or not node.strip():
            continue
        if not _verbatim(node):
            yield str(node)


def _image_problem(site: Path, page: Path, src: str) -> str | None:
    if src.startswith("data:"):
        try:
            payload = src.split(",", 1)[1]
            data = base64.b64decode(payload) if ";base64" in src.split(",", 1)[0] else payload
        except (IndexError, binascii.Error):
            return "unreadable data: URI"
        return None if data else "empty data: URI"
    if EXTERNAL.match(src):
        return "image from outside the site (an offline reader cannot see it)"
    target, _ = resolve_url(site, page, src)
    if target is None or not target.is_file():
        return "image file missing"
    if target.stat().st_size == 0:
        return "image file empty"
    return None


def check_rendering(site: Path) -> list[Problem]:
    """No raw MyST in the prose, no error boxes or tracebacks, no missing or empty images."""
    site = site.resolve()
    problems = []
    for page in pages(site):
        rel, doc = _rel(site, page), soup(page)
        problems += [Problem(rel, kind, detail) for kind, detail in _text_problems(_file(page))]
        for img in doc.find_all("img"):
            src = (img.get("src") or "").strip()
            issue = "<img> without src" if not src else _image_problem(site, page, src)
            if issue:
                problems.append(Problem(rel, "missing image", f"{issue}: {src[:120]}"))
    return list(dict.fromkeys(problems))


@functools.lru_cache(maxsize=256)
def _text_problems(file: _File) -> tuple[tuple[str, str], ...]:
    """(kind, detail) of what a page's text shows wrongly: raw MyST or TeX in the prose,
    error boxes, tracebacks. Cached by the page's content (its images are checked apart:
    they are other files)."""
    doc, found = _soup(file), []
    for text in visible_text(doc):
        for kind, pattern in RAW_MARKUP.items():
            if pattern.search(text):
                found.append((kind, repr(text.strip()[:120])))
    for cls, kind in ERROR_CLASSES.items():
        for el in doc.find_all(class_=cls):
            found.append((kind, repr(el.get_text(" ", strip=True)[:160])))
    for el in doc.select(".cell_output, .output"):
        if (m := TRACEBACK.search(el.get_text("\n"))):
            found.append(("traceback in an output", repr(m.group(0))))
    return tuple(found)


# What SymPy's repr looks like: a derivation printed instead of typeset.
SYMPY_REPR = re.compile(
    r"\b(Sum|Product|MatrixSymbol|MatrixElement|KroneckerDelta|Piecewise|BlockMatrix|"
    r"ZeroMatrix|Identity|ImmutableDenseMatrix|Matrix|Symbol|Integer|Rational|Eq|Lambda|"
    r"FunctionMatrix|Transpose|Trace|Indexed|IndexedBase|Dummy|"
    r"Derivation|Record|Verdict|Result|Checkpoint)\("
    r"|\b_i_\d|\b\w+\.T\*|[A-Za-z_]\w*\*\*\w")


def check_sympy_output(site: Path) -> list[Problem]:
    """No output shows a SymPy object's repr: derivations are typeset, never printed."""
    site = site.resolve()
    problems = []
    for page in pages(site):
        for out in soup(page).select(".cell_output"):
            for block in out.find_all(["pre", "code"]):
                if (m := SYMPY_REPR.search(block.get_text())):
                    line = next(x for x in block.get_text().splitlines() if m.group(0) in x)
                    problems.append(Problem(_rel(site, page), "SymPy repr in an output",
                                            repr(line.strip()[:120])))
    return list(dict.fromkeys(problems))


def typeset_outputs(page: Path) -> int:
    """How many cell outputs of a page are typeset mathematics (LaTeX for MathJax)."""
    return sum(1 for out in soup(page).select(".cell_output") if out.select(".math"))


# ----------------------------------------------------------------------------- browser


def find_browser() -> tuple[str | None, str | None]:
    """(chromium, chromedriver) paths: from $CHROMIUM_BINARY / $CHROMEDRIVER, else Debian's."""
    def pick(var: str, candidates: Iterable[str], name: str) -> str | None:
        if os.environ.get(var):
            return os.environ[var]
        found = next((c for c in candidates if os.access(c, os.X_OK)), None)
        return found or shutil.which(name)

    return (pick(CHROMIUM_VAR, CHROMIUM_CANDIDATES, "chromium"),
            pick(CHROMEDRIVER_VAR, CHROMEDRIVER_CANDIDATES, "chromedriver"))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve a folder on 127.0.0.1 (a free port) for as long as the block runs."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@contextmanager
def chromium(binary: str, driver: str) -> Iterator[object]:
    """Headless Chromium under chromedriver, with a fresh profile that is removed after."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="site-check-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    try:
        browser.set_page_load_timeout(60)
        browser.set_script_timeout(60)
        yield browser
    finally:
        browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


# Runs in the page once it has loaded: waits for images and MathJax, then reports.
INSPECT_JS = r"""
const done = arguments[arguments.length - 1];
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  for (let t = 0; t < 200 && !(document.body && document.readyState === 'complete'); t++)
    await sleep(50);
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
    i.addEventListener('load', r); i.addEventListener('error', r); })));
  const maths = Array.from(document.querySelectorAll('.math'));
  let mathjax = 'no math on this page';
  if (maths.length && !document.querySelector('script[src*="mathjax" i]')) {
    mathjax = 'no MathJax script on a page with math';
  } else if (maths.length) {
    for (let t = 0; t < 300 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); t++)
      await sleep(100);
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      await MathJax.startup.promise; mathjax = 'typeset';
    } else mathjax = 'MathJax did not load';
  }
  const skip = new Set(['SCRIPT', 'STYLE', 'PRE', 'CODE', 'TEXTAREA', 'MJX-CONTAINER', 'NOSCRIPT']);
  const raw = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    let p = n.parentElement, hidden = false;
    for (; p; p = p.parentElement) if (skip.has(p.tagName)) { hidden = true; break; }
    if (!hidden && /\\\(|\\\[|\$\$/.test(n.textContent))
      raw.push(n.textContent.trim().slice(0, 100));
  }
  const text = e => e.textContent.slice(0, 80);
  // TeX inside \\text{} is set as it was typed: a backslash drawn as a text glyph.
  const texAsText = Array.from(document.querySelectorAll('mjx-container'))
    .filter(m => m.querySelector('mjx-mtext mjx-c.mjx-c5C'))
    .map(m => (Array.from(m.querySelectorAll('mjx-assistive-mml mtext')).map(t => t.textContent)
               .find(t => t.includes('\\')) || 'a backslash set as text').slice(0, 100));
  const cut = Array.from(document.querySelectorAll('.cell_input pre, div.highlight pre'))
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.textContent.split('\n').reduce((a, b) => a.length >= b.length ? a : b, ''));
  done(JSON.stringify({
    cut: cut.map(t => t.slice(0, 100)),
    mathjax: mathjax, maths: maths.length,
    untypeset: maths.filter(e => !e.querySelector('mjx-container')).map(text),
    mjx: document.querySelectorAll('mjx-container').length,
    merrors: Array.from(document.querySelectorAll('mjx-merror')).map(text),
    raw: raw,
    texAsText: texAsText,
    images: imgs.length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
    height: Math.max(document.body.scrollHeight, document.documentElement.scrollHeight),
  }));
})().catch(e => done(JSON.stringify({error: String(e)})));
"""


# Returns once two frames have been drawn: the first frame after a change (a resize, an
# emulated device, edited styles) lays the page out again, the second is painted from it.
NEXT_FRAME_JS = """
const done = arguments[arguments.length - 1];
window.scrollTo(0, 0);
requestAnimationFrame(() => requestAnimationFrame(() => done()));
"""


def at_top_and_painted(browser) -> None:
    """Scrolls the page to its top and waits until it is laid out and painted as it now
    is (no timed guess)."""
    browser.execute_async_script(NEXT_FRAME_JS)


def _screenshot(browser, path: Path, height: int) -> None:
    """The whole page (up to MAX_SCREENSHOT_HEIGHT): the window is made as tall as the page.

    (Chromium's captureBeyondViewport drew some tall pages shifted sideways; a real tall
    window draws them as a reader sees them.)"""
    browser.set_window_size(WINDOW[0], min(height + 150, MAX_SCREENSHOT_HEIGHT))
    at_top_and_painted(browser)
    save_png(browser, path)
    browser.set_window_size(*WINDOW)


def save_png(browser, path: Path) -> None:
    """What the window shows, as PNG. (Encoded for speed: a larger file, the same pixels.)"""
    shot = browser.execute_cdp_cmd("Page.captureScreenshot",
                                   {"format": "png", "optimizeForSpeed": True})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))


def inspect_page(browser, url: str, rel: str, screenshot: Path | None) -> list[Problem]:
    """Load one page; report MathJax, images and failed loads; save its screenshot."""
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(url)
    report = json.loads(browser.execute_async_script(INSPECT_JS))
    if "error" in report:
        return [Problem(rel, "page script failed", report["error"])]
    problems = []
    if report["maths"] and report["mathjax"] != "typeset":
        problems.append(Problem(rel, "math not typeset", report["mathjax"]))
    problems += [Problem(rel, "math not typeset", f"raw TeX left: {t!r}")
                 for t in report["untypeset"][:10]]
    problems += [Problem(rel, "MathJax error", t) for t in report["merrors"][:10]]
    problems += [Problem(rel, "raw TeX in the text", repr(t)) for t in report["raw"][:10]]
    problems += [Problem(rel, "TeX shown as text in typeset math", repr(t))
                 for t in report["texAsText"][:10]]
    problems += [Problem(rel, "image did not load", str(src)) for src in report["broken"]]
    problems += [Problem(rel, f"code cut off at a {WINDOW[0]}-px window", repr(line))
                 for line in report["cut"][:10]]
    for entry in browser.get_log("browser"):
        message = entry.get("message", "")
        if entry.get("level") == "SEVERE" and "favicon.ico" not in message:
            problems.append(Problem(rel, "browser error", message[:200]))
    if screenshot is not None:
        _screenshot(browser, screenshot, report["height"])
    return problems


def _follow_redirect(browser, root: str, site: Path, page: Path, url: str) -> list[Problem]:
    """A redirect page is checked by where it lands (that page is inspected on its own)."""
    target, _ = resolve_url(site, page, url)
    want = root + _rel(site, target) if target is not None else None
    browser.get(root + _rel(site, page))
    for _ in range(100):
        if browser.current_url.split("#")[0] == want:
            return []
        time.sleep(0.1)
    return [Problem(_rel(site, page), "redirect failed",
                    f"stayed at {browser.current_url}, expected {want}")]


def _desktop_view(browser, root: str, site: Path, page: Path,
                  screenshots: Path | None) -> tuple[list[Problem], Path | None]:
    """One page at the desktop window: (problems, screenshot saved). A redirect page is
    checked by where it lands."""
    rel = _rel(site, page)
    if (redirect := refresh_target(page)) is not None:
        return _follow_redirect(browser, root, site, page, redirect), None
    shot = _shot_path(screenshots, rel)
    return inspect_page(browser, root + rel, rel, shot), shot


def _shot_path(folder: Path | None, rel: str) -> Path | None:
    return folder / (rel.removesuffix(".html").replace("/", "__") + ".png") if folder else None


@dataclass(frozen=True)
class DrawnFigure:
    """A figure image as the phone drew it (book_tools.legend_check reads its legend)."""

    page: str          # the page, relative to the site
    src: str           # the image's src on that page
    image: Path | bytes | None  # the PNG it points to (its bytes, for a data: URL)
    natural: float     # the image's width in its own pixels
    drawn: float       # the width the browser drew it at, CSS px


@dataclass
class BrowserRun:
    """What the browser found: at the desktop window, on a phone, the desktop screenshots
    saved (in page order), and every figure as the phone drew it."""

    desktop: list[Problem]
    phone: list[Problem]
    screenshots: list[Path]
    figures: list[DrawnFigure]


@dataclass(frozen=True)
class Views:
    """Which views to check and where their screenshots go (None: no screenshots)."""

    desktop: bool = True
    phone: bool = True
    screenshots: Path | None = None
    phone_screenshots: Path | None = None
    phone_size: tuple[int, int] = NARROW
    max_figure_px: int = MAX_FIGURE_PX


def _shares(page_list: list[Path], workers: int) -> list[list[Path]]:
    """Pages split between the workers, the largest first, so that they finish together."""
    shares: list[list[Path]] = [[] for _ in range(max(1, min(workers, len(page_list))))]
    loads = [0] * len(shares)
    for page in sorted(page_list, key=lambda p: p.stat().st_size, reverse=True):
        i = loads.index(min(loads))
        shares[i].append(page)
        loads[i] += page.stat().st_size
    return shares


def _worker(binary: str, driver: str, root: str, site: Path, share: list[Path],
            views: Views) -> tuple[dict, dict]:
    """One browser session over its pages: each is loaded once, inspected at the desktop
    window, then shown on a phone (the phone's metrics applied to the loaded page: its
    layout is the one a phone loading it gets, as the CSS decides it)."""
    desktop, phone = {}, {}
    with chromium(binary, driver) as browser:
        for page in share:
            if views.desktop:
                desktop[page] = _desktop_view(browser, root, site, page, views.screenshots)
            if views.phone and refresh_target(page) is None:
                phone[page] = _phone_view(browser, root, site, page, views,
                                          loaded=views.desktop)
    return desktop, phone


def browse(site: Path, views: Views = Views(), only: Iterable[Path] | None = None,
           workers: int = 2) -> BrowserRun:
    """Every page (or ``only`` these) in headless Chromium, at the desktop window and on a
    phone, in ``workers`` browser sessions side by side (each serves both views)."""
    binary, driver = find_browser()
    if not (binary and driver):
        raise FileNotFoundError(
            f"headless checks need Chromium and chromedriver (found {binary}, {driver}); on "
            f"Debian: apt-get install -y chromium chromium-driver, or set {CHROMIUM_VAR} and "
            f"{CHROMEDRIVER_VAR}")
    site = site.resolve()
    page_list = list(only) if only is not None else pages(site)
    desktop, phone = {}, {}
    with serve(site) as root, ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        jobs = [pool.submit(_worker, binary, driver, root, site, share, views)
                for share in _shares(page_list, workers)]
        for job in jobs:
            d, p = job.result()
            desktop |= d
            phone |= p
    return BrowserRun(
        desktop=[x for page in page_list if page in desktop for x in desktop[page][0]],
        phone=[x for page in page_list if page in phone for x in phone[page][0]],
        screenshots=[desktop[page][1] for page in page_list
                     if page in desktop and desktop[page][1] is not None],
        figures=[f for page in page_list if page in phone for f in phone[page][1]])


def _image(site: Path, page: Path, src: str) -> Path | bytes | None:
    """The file an image's src names, or the bytes a base64 data: URL holds."""
    if src.startswith("data:"):
        header, _, payload = src.partition(",")
        return base64.b64decode(payload) if header.endswith(";base64") else None
    return resolve_url(site, page, src)[0]


def check_in_browser(site: Path, screenshots: Path | None = None,
                     only: Iterable[Path] | None = None) -> tuple[list[Problem], list[Path]]:
    """Load every page in headless Chromium; (problems, screenshots saved)."""
    run = browse(site, Views(phone=False, screenshots=screenshots), only)
    return run.desktop, run.screenshots


# ------------------------------------------------- figures: captions, alt text, phones
# (Course material: every figure is captioned and described for a screen reader, and fits
# a 360-px phone screen. Static part: check_figure_captions; browser part:
# check_narrow_viewport; the phone's size and the widest readable figure are NARROW and
# MAX_FIGURE_PX, above.)

IMAGE_FILE = re.compile(r"(^|/)[\w.-]+\.(png|jpe?g|gif|svg|webp)$", re.I)
PLACEHOLDER_ALT = frozenset({"png", "jpg", "jpeg", "svg", "gif", "image", "img", "figure",
                             "fig", "plot", "picture", "graph", "chart", "output", "none",
                             "<figure>", "figure 1", "image/png", "untitled"})


def alt_problem(alt: str | None) -> str | None:
    """What is wrong with an image's alt text, or None when it describes something."""
    text = (alt or "").strip()
    if not text:
        return "no alt text"
    if IMAGE_FILE.search(text) or "_images/" in text or text.startswith("data:"):
        return f"alt text is a file name: {text[:80]!r}"
    if text.lower().rstrip(".") in PLACEHOLDER_ALT:
        return f"alt text says nothing: {text!r}"
    if len(text.split()) < 3:
        return f"alt text too short to describe a figure: {text!r}"
    return None


def _figure_images(doc: BeautifulSoup):
    """(img, its <figure> or None) for every figure of a page: images in <figure> elements
    and images in cell outputs (the theme's logos and icons are not figures)."""
    article = doc.find("article") or doc.find("main") or doc.body or doc
    seen = set()
    for img in article.find_all("img"):
        figure = img.find_parent("figure")
        in_output = img.find_parent(class_=re.compile(r"^(cell_output|output)$")) is not None
        if (figure is not None or in_output) and id(img) not in seen:
            seen.add(id(img))
            yield img, figure


def check_figure_captions(site: Path) -> list[Problem]:
    """Every figure (a <figure>, or an image in a cell's output) has a caption and an alt
    text that describes it (not empty, not a file name such as "_images/x.png", not "png")."""
    site = site.resolve()
    problems = []
    for page in pages(site):
        rel, doc = _rel(site, page), soup(page)
        for img, figure in _figure_images(doc):
            src = (img.get("src") or "")[:80]
            caption = figure.find("figcaption") if figure is not None else None
            if caption is None or not caption.get_text(" ", strip=True):
                problems.append(Problem(rel, "figure without caption", src))
            if (issue := alt_problem(img.get("alt"))) is not None:
                problems.append(Problem(rel, "figure without meaningful alt text",
                                        f"{src}: {issue}"))
    return problems


def check_solutions_folded(site: Path) -> list[Problem]:
    """Every exercise's solution is folded on the site (sphinx-exercise's solution box with
    the ``dropdown`` class, which sphinx-togglebutton closes): a student sees the exercise
    first and opens the solution on purpose."""
    site = site.resolve()
    problems = []
    for page in pages(site):
        for box in soup(page).select("div.solution, div.solution-start"):
            if "dropdown" not in (box.get("class") or []):
                problems.append(Problem(_rel(site, page), "solution not folded",
                                        box.get("id") or box.get_text(" ", strip=True)[:60]))
    return problems


# Runs in the page at phone width: unfold everything, wait for images, measure figures.
NARROW_JS = r"""
const done = arguments[arguments.length - 1];
const maxFigure = arguments[0];
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  for (let t = 0; t < 200 && document.readyState !== 'complete'; t++) await sleep(50);
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  const scope = document.querySelector('article') || document.querySelector('main')
    || document.body;
  const imgs = Array.from(scope.querySelectorAll('img')).filter(
    i => i.closest('figure') || i.closest('.cell_output, .output'));
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
    i.addEventListener('load', r); i.addEventListener('error', r); })));
  await sleep(100);
  const vw = document.documentElement.clientWidth;
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  // A figure kept wider than the screen to stay legible scrolls sideways in its own box
  // (_static/pages.css): then that box, not the image, must fit the screen.
  const scroller = i => { for (let e = i.parentElement; e && e !== scope; e = e.parentElement)
    if (scrolls(e)) return e; return null; };
  const out = [];
  for (const i of imgs) {
    const box = scroller(i);
    const r = (box || i).getBoundingClientRect();
    if (r.width === 0) continue;  // not laid out (e.g. in a hidden tab)
    const src = (i.getAttribute('src') || '').slice(0, 80);
    if (box && (r.left < -1 || r.right > vw + 1))
      out.push(['figure overflows the screen',
                `${src}: its scrolling box spans x = ${Math.round(r.left)}..`
                + `${Math.round(r.right)} px of ${vw}`]);
    else if (box) continue;
    else if (r.left < -1 || r.right > vw + 1)
      out.push(['figure overflows the screen',
                `${src}: spans x = ${Math.round(r.left)}..${Math.round(r.right)} px of ${vw}`]);
    else if (i.naturalWidth > vw && r.width >= i.naturalWidth)
      out.push(['figure not scaled to the screen',
                `${src}: drawn ${Math.round(r.width)} px wide on a ${vw}-px screen`]);
    else if (i.naturalWidth > maxFigure)
      out.push(['figure too wide to read on a phone',
                `${src}: ${i.naturalWidth} px wide (at most ${maxFigure}), shown at `
                + `${Math.round(100 * r.width / i.naturalWidth)}% on a ${vw}-px screen`]);
  }
  for (const f of scope.querySelectorAll('figure')) {
    if (f.scrollWidth > f.clientWidth + 1 && !scrolls(f))
      out.push(['figure overflows its box',
                `${(f.id || f.className || 'figure').slice(0, 60)}: content ${f.scrollWidth} px `
                + `in ${f.clientWidth} px`]);
  }
  done(JSON.stringify({viewport: vw, problems: out,
    figures: imgs.map(i => ({src: i.getAttribute('src') || '', natural: i.naturalWidth,
                             drawn: i.getBoundingClientRect().width}))}));
})().catch(e => done(JSON.stringify({error: String(e)})));
"""


def _phone_view(browser, root: str, site: Path, page: Path, views: Views,
                loaded: bool) -> tuple[list[Problem], list[DrawnFigure]]:
    """One page emulated on a phone (``loaded``: the page is in the window already, at the
    desktop size): problems and the figures as drawn."""
    size = views.phone_size
    rel = _rel(site, page)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True})
    try:
        if not loaded:
            browser.get(root + rel)
        report = json.loads(browser.execute_async_script(NARROW_JS, views.max_figure_px))
        if "error" in report:
            return [Problem(rel, "page script failed", report["error"])], []
        problems = [Problem(rel, kind, detail) for kind, detail in report["problems"]]
        if report["viewport"] > size[0]:
            problems.insert(0, Problem(rel, "not a phone-width layout",
                                       f"{report['viewport']} px wide, wanted {size[0]}"))
        if (shot := _shot_path(views.phone_screenshots, rel)) is not None:
            at_top_and_painted(browser)
            save_png(browser, shot)
    finally:  # (left first: laying the page out again at the desktop size costs a second)
        browser.get("about:blank")
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return problems, [DrawnFigure(rel, f["src"], _image(site, page, f["src"]), f["natural"],
                                  f["drawn"]) for f in report["figures"]]


def check_narrow_viewport(site: Path, screenshots: Path | None = None,
                          only: Iterable[Path] | None = None,
                          size: tuple[int, int] = NARROW,
                          max_figure_px: int = MAX_FIGURE_PX) -> list[Problem]:
    """Every page on a phone (360 CSS px wide, emulated in headless Chromium): no figure
    reaches past the screen's edges, figures wider than the screen are scaled down to it,
    and none is drawn so wide (more than max_figure_px) that its text becomes unreadable
    when it is. Optionally saves a screenshot of each page's first screen."""
    views = Views(desktop=False, phone_screenshots=screenshots, phone_size=size,
                  max_figure_px=max_figure_px)
    return browse(site, views, only).phone


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path, nargs="?", default=Path("_build/html"))
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--screenshots", type=Path, help="default: <site>/../screenshots")
    args = ap.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"{args.site} holds no built book (no index.html)", file=sys.stderr)
        return 2
    problems = check_links(args.site) + check_rendering(args.site)
    if not args.no_browser:
        found, saved = check_in_browser(args.site, args.screenshots or
                                        args.site.resolve().parent / "screenshots")
        problems += found
        print(f"{len(saved)} screenshots in {saved[0].parent if saved else '-'}")
    for p in problems:
        print(p)
    print(f"{len(pages(args.site))} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
