"""The strict build checks the book's internal links: a page that links a missing page, a
missing label or a missing anchor stops ``jupyter-book build`` with make's flags and the
book's configuration of MyST and Sphinx, and the same book with the links mended builds."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
BROKEN = {"missing page": "[gone](nowhere.md)", "missing label": "{ref}`no-such-label`",
          "missing anchor": "[there](other.md#no-such-heading)"}


def build(book: Path, links: str) -> subprocess.CompletedProcess:
    book.mkdir()
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    (book / "_config.yml").write_text(yaml.safe_dump({
        "title": "links", "execute": {"execute_notebooks": "off"}, "parse": config["parse"],
        "sphinx": {"config": {"nitpicky": config["sphinx"]["config"]["nitpicky"]}}}))
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n- file: other\n")
    (book / "intro.md").write_text(f"# Intro\n\n(a-label)=\n## Here\n\n{links}\n")
    (book / "other.md").write_text("# Other\n\n(there)=\n## A heading\n\nText.\n")
    make_flags = "--warningiserror --keep-going"  # the Makefile's BUILD_FLAGS
    return subprocess.run([Path(sys.executable).with_name("jupyter-book"), "build", book,
                           *make_flags.split()], capture_output=True, text=True)


@pytest.mark.slow
def test_a_broken_link_label_or_anchor_stops_the_strict_build(tmp_path):
    assert "--warningiserror" in (REPO / "Makefile").read_text()
    broken = build(tmp_path / "broken", " ".join(BROKEN.values()))
    assert broken.returncode != 0
    for what in ("nowhere", "no-such-label", "no-such-heading"):
        assert what in broken.stdout + broken.stderr, what
    mended = build(tmp_path / "mended", "[other](other.md) {ref}`there` {ref}`a-label`")
    assert mended.returncode == 0, (mended.stdout + mended.stderr)[-2000:]
