"""The book's PDF (``make pdf`` -> _build/book.pdf), when it has been built: long enough to
be the whole book, and with every equation typeset (no raw TeX left in its text).

``make pdf`` builds it and then runs this; elsewhere it is skipped when there is no PDF or
no poppler-utils
(``pdfinfo``, ``pdftotext``: Debian's poppler-utils). ATTENTION_BOOK_PDF points at
another PDF.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REQUIRE = os.environ.get("ATTENTION_BOOK_REQUIRE_PDF") == "1"  # make pdf, after building it
PDF = Path(os.environ.get("ATTENTION_BOOK_PDF", REPO / "_build" / "book.pdf"))
MIN_PAGES, MAX_PAGES = 50, 300  # the whole book; what the page shows unfolded, no more
# TeX that MathJax should have turned into typeset mathematics.
RAW_TEX = re.compile(r"(?<!\\)\\(frac|begin\{|end\{|sqrt\{|mathbb|top\b|\(|\[)|\$\$")
# The book's code may hold TeX in Python strings (labels for typeset output, "\\frac" or
# r"$\sqrt{d_k}$"): string literals, and the rest of a line after an unclosed one (a code
# line wrapped on paper), are not prose and are left out of the search.
# (Single quotes count only after r or f: in prose they are apostrophes.)
STRING = re.compile(r"""[rRbBfFuU]{0,2}"[^"\n]*("|$)|[rRfF]'[^'\n]*('|$)""")

if REQUIRE and not PDF.is_file():
    pytest.fail(f"no PDF at {PDF}: make pdf builds it", pytrace=False)
if REQUIRE and not (shutil.which("pdfinfo") and shutil.which("pdftotext")):
    pytest.fail("poppler-utils (pdfinfo, pdftotext) is not installed", pytrace=False)
pytestmark = [
    pytest.mark.skipif(not PDF.is_file(), reason=f"no PDF at {PDF} (make pdf builds it)"),
    pytest.mark.skipif(not (shutil.which("pdfinfo") and shutil.which("pdftotext")),
                       reason="poppler-utils (pdfinfo, pdftotext) not installed"),
]


def pdf_text() -> str:
    return subprocess.run(["pdftotext", "-layout", str(PDF), "-"], check=True,
                          capture_output=True, text=True).stdout


def test_the_pdf_is_the_whole_book():
    info = subprocess.run(["pdfinfo", str(PDF)], check=True, capture_output=True,
                          text=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert MIN_PAGES < pages <= MAX_PAGES, f"{PDF.name} has {pages} pages"
    text = pdf_text()
    for title in ("The four matrices of attention", "One row, three lenses", "Claims ledger"):
        assert title.lower() in text.lower(), f"{title!r} is not in the PDF"


def test_every_verdict_table_prints_whole():
    """The appendix (the claims ledger) prints every check's table with every row and every
    column: each check's quantity, a random-init row, and for a check that reads rows the
    last input set's column."""
    from attention_book.ledger import read_records

    text = " ".join(pdf_text().split())
    ledger = text[text.lower().rindex("claims ledger"):]
    checks = [c for r in read_records().values() for c in r.checks]
    assert checks, "no check in this build's ledger"
    rows = [c for c in checks if any(" / " in k for k in c["values"])]
    missing = [c["quantity"] for c in checks if " ".join(c["quantity"].split()) not in ledger]
    assert not missing, f"{len(missing)} checks' tables are not in the PDF, e.g. {missing[:3]}"
    assert ledger.count("random init") >= len(checks)
    assert ledger.count("set C") >= len(rows), "a table lost its last column"


def test_the_pdf_has_no_raw_tex():
    leaks = [line.strip() for line in pdf_text().splitlines()
             if RAW_TEX.search(STRING.sub("", line))]
    assert not leaks, f"{len(leaks)} lines with raw TeX, e.g. {leaks[:5]}"


def test_code_strings_are_not_taken_for_raw_tex():
    assert not RAW_TEX.search(STRING.sub("", 'lines.append(r"| $1/\\sqrt{d_k}$ | the'))
    assert RAW_TEX.search(STRING.sub("", "the scale \\frac{1}{\\sqrt{d_k}} in prose"))
    assert RAW_TEX.search(STRING.sub("", "display math left raw: $$ x $$"))
    assert RAW_TEX.search(STRING.sub("", "GPT-2's scale \\frac{1}{8}, left raw"))
