"""Opening a page of book/ in ``make lab`` and saving it leaves the file byte-identical.

A save is simulated as JupyterLab makes it: the page is read through the contents manager
``make lab`` uses (``book_tools.lab_contents``), the
session's metadata is put on the notebook (the running kernel's kernelspec, the kernel's
``language_info``, cell timing), and the model is saved back, on a copy of book/.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import jupytext
import pytest

from book_tools.lab_contents import ChapterContentsManager, JupytextContentsManager
from book_tools.notebooks import chapters

REPO = Path(__file__).resolve().parent.parent
PAGES = sorted((REPO / "book").glob("*.md"))
CHAPTERS = chapters()  # the pages with code cells, each with a jupytext header
# What JupyterLab 4 puts on a notebook once its kernel (the venv's ipykernel) is running.
SESSION_KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python",
                      "name": "python3"}
SESSION_LANGUAGE_INFO = {"codemirror_mode": {"name": "ipython", "version": 3},
                         "file_extension": ".py", "mimetype": "text/x-python",
                         "name": "python", "nbconvert_exporter": "python",
                         "pygments_lexer": "ipython3", "version": "3.11.2"}


def as_lab_saves(manager_class: type, root: Path, name: str) -> str:
    manager = manager_class(root_dir=str(root))

    async def open_and_save() -> None:
        model = await manager.get(f"book/{name}")
        nb = model["content"]
        nb.metadata["kernelspec"] = dict(SESSION_KERNELSPEC)
        nb.metadata["language_info"] = dict(SESSION_LANGUAGE_INFO)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.execution_count = 1
                cell.metadata["execution"] = {"iopub.status.idle": "2026-01-01T00:00:00Z"}
        await manager.save(model, f"book/{name}")

    asyncio.run(open_and_save())
    return (root / "book" / name).read_text()


@pytest.fixture
def book_copy(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "book", tmp_path / "book")
    return tmp_path


@pytest.mark.parametrize("page", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_jupytext_read_write_is_byte_identical(page):
    text = page.read_text()
    again = jupytext.writes(jupytext.reads(text, fmt="md:myst"), fmt="md:myst")
    assert again == text, f"{page.name}: jupytext's round trip rewrites the file"


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_a_lab_save_leaves_the_page_byte_identical(page, book_copy):
    saved = as_lab_saves(ChapterContentsManager, book_copy, page.name)
    assert saved == page.read_text(), f"{page.name}: a save from make lab rewrote the file"


def test_without_it_a_lab_save_rewrites_the_chapter_header(book_copy):
    """The failure the contents manager prevents, on the first chapter."""
    page = CHAPTERS[0]
    saved = as_lab_saves(JupytextContentsManager, book_copy, page.name)
    assert "display_name: Python 3 (ipykernel)" in saved
    assert "```{code-cell} ipython3" in saved


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_opened_in_lab_citations_and_cross_references_are_links_to_the_site(page):
    """JupyterLab's MyST renderer resolves neither: the page opens with each one a link."""
    from book_tools.lab_contents import LINKED, ROLE
    from book_tools.plain_notebook import book_context

    # (as the server asks for it: the path from the root, with a leading slash)
    model = asyncio.run(ChapterContentsManager(root_dir=str(REPO)).get(f"/book/{page.name}"))
    text = "\n".join(c.source for c in model["content"].cells if c.cell_type == "markdown")
    assert not [m.group(0) for m in ROLE.finditer(LINKED.sub("", text))]
    site = book_context(page, REPO).site
    roles_in_source = len(ROLE.findall(page.read_text()))
    links = LINKED.findall(text)
    assert len(links) == roles_in_source
    assert all(f"]({site}" in m.group(0) for m in LINKED.finditer(text))


def test_a_role_becomes_a_link_and_back():
    from book_tools.lab_contents import links_as_roles, roles_as_links

    page = REPO / "book" / "03a_qk_form.md"
    text = "As {cite}`vaswani2017attention` and {ref}`the bound\n<claim-q3>` show."
    shown = roles_as_links(text, page)
    assert "[(Vaswani et al., 2017)](" in shown and "references.html" in shown
    assert "{cite}" not in shown.replace('"{cite}`vaswani2017attention`"', "")
    assert links_as_roles(shown) == text
    unknown = "See {ref}`no-such-label`."
    assert roles_as_links(unknown, page) == unknown  # left as it is, never guessed


def test_a_listing_opens_as_the_code_the_site_shows(book_copy):
    """make lab shows what the site shows: 01's literalinclude of ``attention`` opens as
    that function's code, and a save writes the directive back."""
    import inspect

    from attention_book.gpt2 import attention

    manager = ChapterContentsManager(root_dir=str(book_copy))
    model = asyncio.run(manager.get("book/01_one_row_three_lenses.md"))
    shown = "\n".join(c.source for c in model["content"].cells if c.cell_type == "markdown")
    assert "{literalinclude}" not in shown.replace("# listing: {literalinclude}", "")
    assert inspect.getsource(attention).rstrip() in shown
    name = "01_one_row_three_lenses.md"
    assert as_lab_saves(ChapterContentsManager, book_copy, name) == \
        (REPO / "book" / name).read_text()
