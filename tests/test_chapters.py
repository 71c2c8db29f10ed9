"""Static checks of the chapter sources: MyST Markdown only, ledger wired to the right page."""

import re
import subprocess
from pathlib import Path

import nbformat
import pytest
import yaml

from attention_book.claims import claim_index
from book_tools.myst_to_markdown import pyobject
from book_tools.notebooks import chapters, generate, read

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = chapters()


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


def test_no_notebook_is_committed():
    tracked = subprocess.run(["git", "ls-files", "*.ipynb"], cwd=REPO, capture_output=True,
                             text=True, check=True).stdout.split()
    assert tracked == [], "chapters are MyST Markdown (book/*.md); notebooks are generated"


def test_every_chapter_is_a_myst_notebook_in_the_book():
    assert len(CHAPTERS) >= 12
    toc = _toc_files()
    for md in CHAPTERS:
        assert md.read_text().startswith("---\njupytext:"), f"{md.name}: no jupytext header"
        assert f"book/{md.stem}" in toc, f"{md.name} is not in _toc.yml"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.name)
def test_ledger_records_name_this_page_and_known_claims(md):
    src = md.read_text()
    pages = re.findall(r'Ledger\("([^"]+)"\)', src)
    assert pages in ([], [f"book/{md.stem}"])
    recorded = set(re.findall(r'(?:record|derived)\(\s*"([A-Z]\d+)"', src))
    assert recorded <= set(claim_index()), recorded - set(claim_index())
    for claim in recorded:  # the ledger links to the claim's section
        assert f"(claim-{claim.lower()})=" in src, f"{claim} has no (claim-{claim.lower()})= target"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.name)
def test_code_lines_fit_the_page(md):
    """The site shows about 80 characters of code at a 1300-px window: no line is cut off."""
    for cell in read(md).cells:
        if cell.cell_type == "code":
            long = [line for line in cell.source.splitlines() if len(line) > 79]
            assert not long, f"{md.name}: code lines over 79 characters: {long[:2]}"
    for path, name in re.findall(r"```\{literalinclude\} (\S+)\n:pyobject: (\w+)",
                                 md.read_text()):
        shown = pyobject((md.parent / path).resolve(), name)
        assert shown is not None, f"{md.name}: {path} has no {name}"
        long = [line for line in shown.splitlines() if len(line) > 79]
        assert not long, f"{md.name}: {name}, shown from {path}, has lines over 79: {long[:2]}"


def test_generated_notebooks_match_their_sources(tmp_path):
    [nb_path] = generate(tmp_path, [CHAPTERS[0]])
    nb = nbformat.read(nb_path, as_version=4)
    src = read(CHAPTERS[0])
    assert [c.source for c in nb.cells] == [c.source for c in src.cells]
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_no_function_is_defined_in_two_chapters():
    """A helper two chapters use lives in the package (d2l's rule)."""
    import ast

    where: dict[str, set[str]] = {}
    for md in CHAPTERS:
        for cell in read(md).cells:
            if cell.cell_type != "code":
                continue
            try:
                tree = ast.parse(cell.source)
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, ast.FunctionDef | ast.ClassDef):
                    where.setdefault(node.name, set()).add(md.stem)
    twice = {name: sorted(stems) for name, stems in where.items() if len(stems) > 1}
    assert not twice, twice
