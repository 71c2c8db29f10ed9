"""Static checks of the chapter sources: committed clean, ledger wired to the right page."""

import json
import re
from pathlib import Path

import pytest
import yaml

from attention_book.ledger import claim_index

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "book").glob("*.ipynb"))


def _toc_files() -> list[str]:
    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                yield node["file"]
            for v in node.values():
                yield from walk(v)
        elif isinstance(node, list):
            for v in node:
                yield from walk(v)

    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    return [toc["root"], *walk(toc["parts"])]


def _source(nb: Path) -> str:
    return "\n".join("".join(c["source"]) for c in json.loads(nb.read_text())["cells"])


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(nb):
    for cell in json.loads(nb.read_text())["cells"]:
        if cell["cell_type"] == "code":
            assert not cell["outputs"] and cell["execution_count"] is None


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_every_chapter_is_in_the_book(nb):
    assert f"book/{nb.stem}" in _toc_files()


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.name)
def test_ledger_records_name_this_page_and_known_claims(nb):
    src = _source(nb)
    pages = re.findall(r'Ledger\("([^"]+)"\)', src)
    assert pages in ([], [f"book/{nb.stem}"])
    recorded = set(re.findall(r'record\(\s*"([A-Z]\d+)"', src))
    assert recorded <= set(claim_index()), recorded - set(claim_index())
    for claim in recorded:  # the ledger links to the claim's section
        assert f"(claim-{claim.lower()})=" in src, f"{claim} has no (claim-{claim.lower()})= target"
