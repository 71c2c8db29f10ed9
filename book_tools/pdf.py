"""The whole book as one PDF, without LaTeX: the built site's pages, in the order of
``_toc.yml``, each opened from disk in headless Chromium, its images loaded and MathJax
done, made ready for paper (navigation, set-up cell and launch links removed, folded cells
and solutions opened, long code lines wrapped), printed by ``Page.printToPDF`` (A4, page
numbers in the footer), and joined by ``pdfunite``. A page that does not typeset or show an
image stops the PDF.

Usage: python -m book_tools.pdf OUT.pdf
"""

from __future__ import annotations

import base64
import subprocess
import sys
import tempfile
from pathlib import Path

from book_tools.browser import chromium
from book_tools.pages import toc_pages

REPO = Path(__file__).resolve().parent.parent
MARGIN = 0.55  # inches, every side
PAPER_WIDTH, SCALE = 8.27, 0.8  # A4, inches; printed at 80%
PRINT_WIDTH = round((PAPER_WIDTH - 2 * MARGIN) / SCALE * 96)  # CSS px across a printed page
FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555;">'
          '<span class="pageNumber"></span></div>')
PREPARE_JS = Path(__file__).with_name("pdf_prepare.js")


def print_pages(site: Path, pages: list[str], out: Path) -> list[str]:
    """Print each page (e.g. "book/intro") to a PDF and join them into out; the problems."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp, chromium(width=PRINT_WIDTH) as browser:
        # laid out as printed, so that what is measured before printing is what prints
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        parts = []
        for i, page in enumerate(pages):
            browser.get((site / f"{page}.html").resolve().as_uri())
            problems += [f"{page}: {p}" for p in browser.execute_async_script(
                PREPARE_JS.read_text())]
            pdf = browser.execute_cdp_cmd("Page.printToPDF", {
                "paperWidth": PAPER_WIDTH, "paperHeight": 11.69, "scale": SCALE,
                **{f"margin{side}": MARGIN for side in ("Top", "Bottom", "Left", "Right")},
                "printBackground": True, "displayHeaderFooter": True,
                "headerTemplate": "<div></div>", "footerTemplate": FOOTER})
            parts.append(Path(tmp) / f"{i:03d}.pdf")
            parts[-1].write_bytes(base64.b64decode(pdf["data"]))
            print(f"printed {page}", flush=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["pdfunite", *map(str, parts), str(out)], check=True)
    return problems


def main(out: Path, site: Path = REPO / "_build" / "html") -> int:
    pages = toc_pages(REPO / "_toc.yml")
    if missing := [p for p in pages if not (site / f"{p}.html").is_file()]:
        print(f"{site} lacks {missing}: build the book first (make book)", file=sys.stderr)
        return 2
    problems = print_pages(site, pages, out)
    print(f"{out}: {len(pages)} pages of the site, {out.stat().st_size / 1e6:.1f} MB")
    for p in problems:
        print("problem:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])) if len(sys.argv) == 2 else __doc__.rsplit("\n\n", 1)[-1])
