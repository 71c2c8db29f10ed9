"""The publishing workflow's checks of the GitHub Pages artifact. ``lay-out`` adds the PDF
and ``.nojekyll`` (Jekyll would drop ``_static/`` and ``_images/``); ``check`` finds, where
Pages serves them, ``index.html`` and its target, every page of ``_toc.yml``, every
chapter's notebook, the PDF and every link to a PDF, and ``.nojekyll``; ``guard``, the last
step, refuses a build not on the full GPT-2 small checkpoint as released, whose ledger does
not hold every claim verified (or stated with citations), or whose site carries the
placeholder address (``book_tools.address``). Each lists its problems and exits 1.

Usage: python -m book_tools.pages {lay-out,check,guard} [--site DIR] [--pdf PDF] [--ledger DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

import yaml

from book_tools.address import PLACEHOLDER
from book_tools.notebooks import REPO, chapters

PDF_NAME = "book.pdf"
TEXT_SUFFIXES = {".html", ".js", ".json", ".ipynb", ".txt", ".xml", ".md", ".css"}
_HREF = re.compile(r'href="([^"#?]+\.pdf)"')
_REFRESH = re.compile(r'http-equiv="refresh"[^>]*url=([^"\']+)', re.IGNORECASE)


def toc_pages(toc: Path) -> list[str]:
    """Every document of the table of contents (root first), as 'book/intro'."""
    spec = yaml.safe_load(toc.read_text())
    return [spec["root"], *(chapter["file"] for part in spec.get("parts", [])
                            for chapter in part.get("chapters", []))]


def _site(site: Path) -> Path:
    if not (site / "index.html").is_file():
        raise FileNotFoundError(f"no built site in {site} (no index.html): run make book")
    return site


def lay_out(site: Path, pdf: Path) -> None:
    if not pdf.is_file():
        raise FileNotFoundError(f"no PDF at {pdf}: run make pdf")
    shutil.copyfile(pdf, _site(site) / PDF_NAME)
    (site / ".nojekyll").touch()


def check(site: Path, toc: Path, notebooks: list[str]) -> list[str]:
    """What Pages would not serve where the book expects it (empty: nothing)."""
    problems = []
    if (target := _REFRESH.search((_site(site) / "index.html").read_text(errors="replace"))) \
            and not (site / target[1].strip()).is_file():
        problems.append(f"index.html leads to {target[1].strip()}, which is not in the site")
    problems += [f"{doc}.html is missing (a page of {toc.name})" for doc in toc_pages(toc)
                 if not (site / f"{doc}.html").is_file()]
    problems += [f"notebooks/{name} is missing (a chapter's notebook)" for name in notebooks
                 if not (site / "notebooks" / name).is_file()]
    problems += [] if (site / PDF_NAME).is_file() else [f"{PDF_NAME} is missing"]
    problems += [f"{page.relative_to(site)} links to {href}, not in the site"
                 for page in sorted(site.rglob("*.html"))
                 for href in _HREF.findall(page.read_text(errors="replace"))
                 if "://" not in href and not (page.parent / href).resolve().is_file()]
    if not (site / ".nojekyll").is_file():
        problems.append(".nojekyll is missing: Jekyll would drop _static/ and _images/")
    return problems


def checkpoint_problems(is_full: bool, weights_note: str, missing: list[str]) -> list[str]:
    """Why the checkpoint the build used cannot be published, if it cannot."""
    return ([] if is_full else ["the build did not use the full GPT-2 small checkpoint "
                                f"(missing: {', '.join(missing)})"]) + \
        ([f"the build's weights are not GPT-2 small as released: {weights_note}"]
         if weights_note else [])


def ledger_records(folder: Path) -> dict[str, dict]:
    """Every record of the ledger folder, by claim id, as the chapters wrote it."""
    if not (files := sorted(folder.glob("*.json"))):
        raise FileNotFoundError(f"no ledger in {folder} (the book's build writes one JSON file "
                                "per chapter there: run make book first)")
    return {r["claim"]: r for f in files for r in json.loads(f.read_text())["records"]}


def ledger_problems(records: dict[str, dict], claims: list[str]) -> list[str]:
    """Every claim the ledger did not verify: unrecorded, or recorded with another status."""
    from attention_book.ledger import STATED, VERIFIED

    problems = [f"{claim}: not recorded by any chapter" for claim in claims
                if claim not in records]
    return problems + [f"{c} ({r['chapter']}): {r['status']}"
                       + (f" ({r['reason']})" if r.get("reason") else "")
                       for c in claims if (r := records.get(c)) is not None
                       and r["status"] not in (VERIFIED, STATED)]


def placeholder_problems(site: Path) -> list[str]:
    """The site's files that carry the placeholder repository address."""
    return [f"{path.relative_to(site)} carries the placeholder address {PLACEHOLDER}"
            for path in sorted(_site(site).rglob("*"))
            if path.suffix in TEXT_SUFFIXES and path.is_file()
            and PLACEHOLDER in path.read_text(errors="replace")]


def guard(ledger: Path, site: Path) -> list[str]:
    from attention_book.checkpoint import load_checkpoint
    from attention_book.claims import claim_index

    ckpt = load_checkpoint()
    return (checkpoint_problems(ckpt.is_full, ckpt.weights_note, ckpt.missing)
            + ledger_problems(ledger_records(ledger), list(claim_index()))
            + placeholder_problems(site))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=["lay-out", "check", "guard"])
    ap.add_argument("--site", type=Path, default=REPO / "_build" / "html")
    ap.add_argument("--pdf", type=Path, default=REPO / "_build" / PDF_NAME)
    ap.add_argument("--ledger", type=Path, default=REPO / "_build" / "ledger")
    args = ap.parse_args(argv)
    notebooks = [p.stem + ".ipynb" for p in chapters()]
    try:
        problems = {"lay-out": lambda: lay_out(args.site, args.pdf) or [],
                    "check": lambda: check(args.site, REPO / "_toc.yml", notebooks),
                    "guard": lambda: guard(args.ledger, args.site)}[args.action]()
    except FileNotFoundError as missing:
        problems = [str(missing)]
    if problems:
        print(f"pages {args.action}: not fit to publish, {len(problems)} problem(s):\n"
              + "\n".join(f"  - {p}" for p in problems))
        return 1
    print(f"pages {args.action} {args.site}: " + {
        "lay-out": f"{PDF_NAME} and .nojekyll added",
        "check": f"index.html, every page of _toc.yml, {len(notebooks)} notebooks, "
                 f"{PDF_NAME} and .nojekyll where Pages serves them",
        "guard": "fit to publish (every claim verified or stated, the full GPT-2 small "
                 "checkpoint, no placeholder address)"}[args.action])
    return 0


if __name__ == "__main__":
    sys.exit(main())
