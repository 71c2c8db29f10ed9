"""The whole book as one PDF, without LaTeX: one HTML page printed by headless Chromium.

1. The chapters are executed into the build's cache as ``make book`` does (after
   ``make book`` nothing is run again), and Jupyter Book builds the book as a single HTML
   page (``--builder singlehtml``) from that cache, into ``_build/singlehtml``. It uses the
   book's own ``_config.yml``, which lists ``book_tools.sphinx_pdf`` (the single-page
   builder writes the nodes that extensions register for ``html`` alone): so it shares the
   site's environment in ``_build/.doctrees``, and after the site's build no page is read
   again.
2. Chromium (Debian's, under chromedriver as in ``site_check``) opens that page over a
   local HTTP server on 127.0.0.1, waits until every image has loaded and MathJax has
   typeset every equation, prepares the page for paper (solutions unfolded, the folded
   Colab/Binder set-up cell and the site's navigation removed) and prints it with the
   DevTools ``Page.printToPDF`` command: A4, page numbers in the footer, code
   lines wrapped, each chapter from a new page.

Usage: python -m book_tools.pdf OUT.pdf [--html DIR_WITH_INDEX_HTML] [--source DIR]

``--html`` prints an existing single-page build instead of building one.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import subprocess
import sys
import time
from pathlib import Path

from book_tools.site_check import at_top_and_painted, chromium, find_browser, serve

REPO = Path(__file__).resolve().parent.parent
A4 = (8.27, 11.69)  # inches
MARGIN = 0.55       # inches, every side
PRINT_TIMEOUT_S = 1200
SCALE = 0.85        # the site's 16-px text prints at about 10 pt; code lines of 79 fit

FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555;">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')

# Runs in the page: wait for images and MathJax, then make the page a printed book.
PREPARE_JS = r"""
const done = arguments[arguments.length - 1];
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
  for (let t = 0; t < 600 && document.readyState !== 'complete'; t++) await sleep(50);
  const imgs = Array.from(document.images);
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
    i.addEventListener('load', r); i.addEventListener('error', r); })));
  let mathjax = 'no MathJax';
  for (let t = 0; t < 600 && !(window.MathJax && MathJax.startup && MathJax.startup.promise); t++)
    await sleep(100);
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
    mathjax = 'typeset';
  }
  // Paper has no buttons: the Colab/Binder set-up cell and launch links go, folded
  // things open.
  document.querySelectorAll('.tag_cloud-setup, .launch-line').forEach(e => e.remove());
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  document.querySelectorAll('button.toggle-button').forEach(b => b.remove());
  document.querySelectorAll('.bd-sidebar-primary, .bd-sidebar-secondary, .bd-header-article, '
    + '.header-article, .prev-next-area, .bd-header, .skip-link').forEach(e => e.remove());
  // Paper cannot scroll sideways: long code lines wrap; figures and statements stay whole;
  // every chapter starts on a new page.
  const style = document.createElement('style');
  style.textContent = `
    @media print {
      pre, pre code { white-space: pre-wrap !important; overflow-wrap: anywhere; }
      div.cell, div.cell_input, div.cell_output { display: block !important; }
      figure, img, .proof, .admonition, mjx-container[display="true"] {
        break-inside: avoid; }
      h1, h2, h3 { break-after: avoid; }
      .bd-article-container, .bd-content, .bd-main { max-width: 100% !important; }
    }`;
  document.head.appendChild(style);
  // (singlehtml marks where each document starts with <span id="document-NAME">.)
  document.querySelectorAll('span[id^="document-"]').forEach(mark => {
    const start = mark.nextElementSibling;
    if (start) start.style.breakBefore = 'page';
  });
  const maths = Array.from(document.querySelectorAll('.math'));
  done(JSON.stringify({
    mathjax: mathjax,
    maths: maths.length,
    untypeset: maths.filter(e => !e.querySelector('mjx-container')).length,
    merrors: document.querySelectorAll('mjx-merror').length,
    images: imgs.length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
  }));
})().catch(e => done(JSON.stringify({error: String(e)})));
"""


def build_single_page(source: Path) -> Path:
    """Build the book as one HTML page; return the folder holding its index.html.

    The chapters are executed first into the build's cache, two at a time, exactly as
    ``make book`` does (``book_tools.execute``; what is cached already is not run again);
    the single-page build renders them from there."""
    if source == REPO:
        from book_tools.execute import execute

        for uri in execute():
            print(f"failed: {Path(uri).name} (the build runs it again and shows the error)")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    command = [str(jupyter_book), "build", str(source), "--builder", "singlehtml"]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, cwd=source)
    return source / "_build" / "singlehtml"


def single_page(html: Path) -> str:
    """The page to print, relative to html/. Sphinx's singlehtml builder writes the book
    into the root document's file (here book/intro.html, index.html only redirects there)
    but makes every URL in it relative to the output folder ("_images/...", "_static/..."):
    a copy at the top of the folder, where those URLs resolve, is printed instead."""
    index = html / "index.html"
    match = re.search(r'url=([^"\'>\s]+)', index.read_text(errors="replace"), re.I)
    if match is None or "/" not in match.group(1):
        return match.group(1) if match else "index.html"
    copy = html / "_book_for_print.html"
    copy.write_text((html / match.group(1)).read_text(encoding="utf-8"), encoding="utf-8")
    return copy.name


def print_to_pdf(html: Path, out: Path) -> dict:
    """Print html/index.html to out with headless Chromium; return what the page reported."""
    binary, driver = find_browser()
    if not (binary and driver):
        raise FileNotFoundError(
            f"printing needs Chromium and chromedriver (found {binary}, {driver}); on Debian: "
            "apt-get install -y chromium chromium-driver")
    page = single_page(html.resolve())
    with serve(html.resolve()) as root, chromium(binary, driver) as browser:
        # Laying out and printing a hundred pages with a thousand equations takes minutes
        # on a busy machine: longer than the driver's default HTTP timeout (120 s).
        browser.command_executor.client_config.timeout = PRINT_TIMEOUT_S
        browser.set_page_load_timeout(PRINT_TIMEOUT_S)
        browser.set_script_timeout(PRINT_TIMEOUT_S)
        start = time.perf_counter()
        browser.get(root + page)
        report = json.loads(browser.execute_async_script(PREPARE_JS))
        if "error" in report:
            raise RuntimeError(f"preparing the page failed: {report['error']}")
        print(f"page ready in {time.perf_counter() - start:.0f} s; printing", flush=True)
        at_top_and_painted(browser)  # laid out again after the changes
        result = browser.execute_cdp_cmd("Page.printToPDF", {
            "paperWidth": A4[0], "paperHeight": A4[1],
            "marginTop": MARGIN, "marginBottom": MARGIN,
            "marginLeft": MARGIN, "marginRight": MARGIN,
            "printBackground": True, "preferCSSPageSize": False, "scale": SCALE,
            "displayHeaderFooter": True, "headerTemplate": "<div></div>",
            "footerTemplate": FOOTER,
        })
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(base64.b64decode(result["data"]))
    return report


def problems_of(report: dict) -> list[str]:
    out = []
    if report["maths"] and report["mathjax"] != "typeset":
        out.append(f"MathJax: {report['mathjax']}")
    if report["untypeset"]:
        out.append(f"{report['untypeset']} equations not typeset")
    if report["merrors"]:
        out.append(f"{report['merrors']} MathJax errors")
    out += [f"image did not load: {src}" for src in report["broken"]]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--html", type=Path, help="an existing single-page build to print")
    ap.add_argument("--source", type=Path, default=REPO, help="the book (default: this one)")
    args = ap.parse_args(argv)
    html = args.html or build_single_page(args.source.resolve())
    if not (html / "index.html").is_file():
        print(f"{html} holds no index.html", file=sys.stderr)
        return 2
    report = print_to_pdf(html, args.out)
    problems = problems_of(report)
    print(f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB; {report['maths']} equations, "
          f"{report['images']} images")
    for p in problems:
        print("problem:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
