"""The GitHub Pages artifact: laid out, then checked, before the workflow uploads it.

``lay-out SITE --pdf PDF`` puts into the built site what Pages serves beside the pages: the
book's PDF (``SITE/book.pdf``) and ``.nojekyll`` (the site's ``_static`` and ``_images``
folders start with an underscore, which Jekyll would drop if Pages ever ran it on the
artifact). ``check SITE`` then finds, where Pages serves them: ``index.html`` and the page it
leads to, every page of ``_toc.yml``, every chapter's notebook in ``notebooks/``, the PDF
and every link to a PDF, and ``.nojekyll``. It prints each problem and exits 1.

Usage: python -m book_tools.pages_artifact {lay-out,check} SITE [--pdf PDF]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

import yaml

from book_tools.notebooks import chapters

REPO = Path(__file__).resolve().parent.parent
PDF_NAME = "book.pdf"
_HREF = re.compile(r'href="([^"#?]+\.pdf)"')
_REFRESH = re.compile(r'http-equiv="refresh"[^>]*url=([^"\']+)', re.IGNORECASE)


def toc_pages(toc: Path) -> list[str]:
    """Every document of the table of contents (root first), as 'book/intro'."""
    spec = yaml.safe_load(toc.read_text())
    files = [spec["root"]]
    for part in spec.get("parts", []):
        files += [chapter["file"] for chapter in part.get("chapters", [])]
    return files


def lay_out(site: Path, pdf: Path) -> None:
    if not (site / "index.html").is_file():
        raise FileNotFoundError(f"no built site in {site} (no index.html): run make book")
    if not pdf.is_file():
        raise FileNotFoundError(f"no PDF at {pdf}: run make pdf")
    shutil.copyfile(pdf, site / PDF_NAME)
    (site / ".nojekyll").touch()


def _index_problems(site: Path) -> list[str]:
    index = site / "index.html"
    if not index.is_file():
        return ["index.html is missing: Pages would serve nothing at the site's address"]
    target = _REFRESH.search(index.read_text(errors="replace"))
    if target and not (site / target.group(1).strip()).is_file():
        return [f"index.html leads to {target.group(1).strip()}, which is not in the site"]
    return []


def _pdf_problems(site: Path) -> list[str]:
    problems = [] if (site / PDF_NAME).is_file() else [f"{PDF_NAME} is missing"]
    for page in sorted(site.rglob("*.html")):
        for href in _HREF.findall(page.read_text(errors="replace")):
            if "://" not in href and not (page.parent / href).resolve().is_file():
                problems.append(f"{page.relative_to(site)} links to {href}, not in the site")
    return problems


def check(site: Path, toc: Path, notebooks: list[str]) -> list[str]:
    """What Pages would not serve where the book expects it (empty: nothing)."""
    problems = _index_problems(site)
    problems += [f"{doc}.html is missing (a page of {toc.name})" for doc in toc_pages(toc)
                 if not (site / f"{doc}.html").is_file()]
    problems += [f"notebooks/{name} is missing (a chapter's notebook)" for name in notebooks
                 if not (site / "notebooks" / name).is_file()]
    problems += _pdf_problems(site)
    if not (site / ".nojekyll").is_file():
        problems.append(".nojekyll is missing: Jekyll would drop _static/ and _images/")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["lay-out", "check"])
    parser.add_argument("site", type=Path)
    parser.add_argument("--pdf", type=Path, default=REPO / "_build" / PDF_NAME)
    args = parser.parse_args(argv)
    if args.action == "lay-out":
        try:
            lay_out(args.site, args.pdf)
        except FileNotFoundError as missing:
            print(f"pages artifact: {missing}", file=sys.stderr)
            return 1
        print(f"pages artifact: {PDF_NAME} and .nojekyll added to {args.site}")
        return 0
    names = [p.stem + ".ipynb" for p in chapters()]
    problems = check(args.site, REPO / "_toc.yml", names)
    if problems:
        print(f"pages artifact {args.site}: {len(problems)} problem(s):")
        print("\n".join(f"  - {p}" for p in problems))
        return 1
    print(f"pages artifact {args.site}: index.html, {len(toc_pages(REPO / '_toc.yml'))} pages, "
          f"{len(names)} notebooks, {PDF_NAME} and .nojekyll where Pages serves them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
