"""The book's Sphinx extensions, piece by piece, without a build (the strict build and the
site's checks see them whole): the ledger's tables and badges, the guide's tables as MyST
list-tables, each chapter's launch line, and the scripts each page keeps once."""

from __future__ import annotations

from types import SimpleNamespace

from docutils import nodes
from docutils.core import publish_doctree
from myst_parser.parsers.docutils_ import Parser

from attention_book.ledger import NOT_VERIFIED, VERIFIED
from book_tools import sphinx_launch, sphinx_ledger, sphinx_paths, sphinx_site
from book_tools.cloud_cell import launch_urls
from book_tools.course import reading_paths
from book_tools.notebooks import chapters


def test_a_status_is_a_labelled_badge_and_a_missing_claim_says_so():
    badge = sphinx_ledger.status_label(NOT_VERIFIED)
    assert badge.astext() == NOT_VERIFIED and "ledger-status" in badge["classes"]
    assert sphinx_ledger.status_label(None)["classes"] == ["ledger-status", "ledger-missing"]
    cells = sphinx_ledger._cells(None, "book/claims_ledger", "Q9", "A title", None)
    assert "no chapter records it" in cells[3].astext() and cells[1].astext() == "A title"


def test_a_table_has_its_class_headers_and_one_row_per_claim():
    rec = SimpleNamespace(checks=[{"kind": "finding"}, {"kind": "finding"},
                                  {"kind": "identity"}], evidence=("figure",))
    assert sphinx_ledger._kind_counts(rec) == "2 finding; 1 identity"
    assert sphinx_ledger._kind_counts(SimpleNamespace(checks=[], evidence=("cited",))) \
        == "no GPT-2 check (cited)"
    table = sphinx_ledger._table([[nodes.Text("L1"), nodes.Text(VERIFIED)]],
                                 ("Claim", "Status"), (1, 1), "claims-checks")
    assert table["classes"] == ["claims-checks"]
    assert [r.astext() for r in table.findall(nodes.row)] == ["Claim\n\nStatus",
                                                              f"L1\n\n{VERIFIED}"]


def test_a_cited_theorem_becomes_author_and_year_linked_to_the_references():
    app = SimpleNamespace(builder=SimpleNamespace(get_relative_uri=lambda a, b: "refs.html"))
    bib = {"vaswani2017": SimpleNamespace(short="Vaswani et al., 2017")}
    out = sphinx_ledger._with_citations(app, "x", "Rests on {cite}`vaswani2017`.", bib)
    assert "".join(n.astext() for n in out) == "Rests on (Vaswani et al., 2017)."
    assert [n["refuri"] for n in out if isinstance(n, nodes.reference)] == ["refs.html"]


def parsed(markdown: str) -> nodes.document:
    return publish_doctree(markdown, parser=Parser(), settings_overrides={
        "myst_enable_extensions": ["dollarmath"], "report_level": 5, "doctitle_xform": False})


def test_the_guides_tables_are_list_tables_of_every_path():
    paths = reading_paths()
    summary = parsed(sphinx_paths.list_table(sphinx_paths.summary_rows(paths), "summary"))
    (table,) = summary.findall(nodes.table)
    assert table["classes"] == ["reading-paths", "summary"]
    rows = list(table.findall(nodes.row))
    assert len(rows) == len(paths) + 1 and rows[0].astext().startswith("Path")
    path = paths[0]
    detail = parsed(sphinx_paths.list_table(sphinx_paths.detail_rows(path), "d", "path-x"))
    (table,) = detail.findall(nodes.table)
    assert "path-x" in table["ids"]
    *chapter_rows, total = list(table.findall(nodes.row))[1:]
    assert len(chapter_rows) == len(path.assignments) and total.astext().startswith("Total")
    chapter_cell = sphinx_paths.detail_rows(path)[1][1]  # a link to the chapter's source
    assert chapter_cell.startswith("[") and chapter_cell.endswith(
        f"]({path.assignments[0].chapter.source.name})")
    assert len(list(chapter_rows[0].findall(nodes.list_item))) == len(
        path.assignments[0].exercises)


def test_every_chapter_page_gets_its_launch_line_under_its_title(monkeypatch):
    monkeypatch.delenv("ATTENTION_BOOK_REPOSITORY_URL", raising=False)
    chapter = chapters()[0]
    doc = parsed(f"# {chapter.stem}\n\nText.\n")
    app = SimpleNamespace(builder=SimpleNamespace(get_relative_uri=lambda a, b: "../index.html"))
    sphinx_launch.add_launch_line(app, doc, f"book/{chapter.stem}")
    section = next(doc.findall(nodes.section))
    line = section[1]
    assert isinstance(line, nodes.raw) and 'class="launch-line"' in line.astext()
    url = sphinx_launch.repository(sphinx_launch.REPO / "_config.yml")[0]
    for href in launch_urls(url, f"{chapter.stem}.ipynb").values():
        assert href in line.astext()
    assert f'href="../notebooks/{chapter.stem}.ipynb" download' in line.astext()
    other = parsed("# Not a chapter\n")
    sphinx_launch.add_launch_line(app, other, "book/references")
    assert not list(other.findall(nodes.raw))


def test_each_page_keeps_one_copy_of_each_script_and_loads_mathjax_everywhere():
    inline = SimpleNamespace(filename=None, attributes={"body": "const X = 1;"})
    again = SimpleNamespace(filename="", attributes={"body": "const X = 1;"})
    context = {"script_files": ["a.js", inline, again, "a.js", "b.js"]}
    sphinx_site.dedupe_scripts(None, "page", "page.html", context, None)
    assert context["script_files"] == ["a.js", inline, "b.js"]
    calls = []
    app = SimpleNamespace(set_html_assets_policy=lambda p: calls.append(p),
                          connect=lambda *a, **k: calls.append(a[0]))
    sphinx_site.setup(app)
    assert calls == ["always", "html-page-context", "build-finished"]


def test_a_figures_phone_drawing_is_served_to_phones(tmp_path):
    """The phone drawing comes out of the figure's PNG into <name>.phone.png, the figure
    keeps its pixels without it, and the page serves it below 600 px through <picture>."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from attention_book.plotting import PHONE_KEY, figure_png

    fig, ax = plt.subplots(figsize=(6.4, 3))
    ax.plot([0, 1], label="a line")
    ax.legend()
    png = figure_png(fig, phone=True)
    plt.close(fig)
    images = tmp_path / "_images"
    images.mkdir()
    (images / "f.png").write_bytes(png)
    (images / "other.png").write_bytes(sphinx_site.split_phone_png(png)[0])  # no drawing
    page = tmp_path / "book" / "p.html"
    page.parent.mkdir()
    page.write_text('<img alt="x" src="../_images/f.png"><img src="../_images/other.png">')
    app = SimpleNamespace(builder=SimpleNamespace(format="html"), outdir=str(tmp_path))
    sphinx_site.phone_figures(app, None)
    page_png, phone = sphinx_site.split_phone_png((images / "f.png").read_bytes())
    assert phone is None and PHONE_KEY.encode() not in page_png
    assert (images / "f.phone.png").read_bytes().startswith(b"\x89PNG")
    html = page.read_text()
    assert html.count("<picture>") == 1 and \
        '<source media="screen and (max-width: 600px)" srcset="../_images/f.phone.png">' in html
    sphinx_site.phone_figures(app, None)  # a second run changes nothing
    assert page.read_text() == html
