"""Tooling that no other test reaches whole: the index of the book's labels and references,
the bench's measures, the PDF's printer, and forked calls."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from attention_book.claims import claim_index
from book_tools import bench, browser, forked_calls, myst_index
from book_tools.notebooks import BOOK, REPO


def test_every_claim_of_the_index_is_a_label_of_its_page_with_its_heading():
    found = myst_index.targets(BOOK)
    for claim in claim_index():
        target = found[f"claim-{claim.lower()}"]
        assert target.page[0].isdigit() and target.text
        assert target.anchor == f"claim-{claim.lower()}"
    titles = myst_index.page_titles(BOOK)
    assert titles["references"] and all(titles[p.stem] for p in BOOK.glob("[0-9]*.md"))


def test_every_reference_has_an_author_year_key_and_an_entry():
    cited = myst_index.citations(REPO / "references.bib")
    assert cited and all(c.short.rstrip().split(", ")[-1][:4].isdigit() or "n.d." in c.short
                         for c in cited.values())
    assert all(c.entry for c in cited.values())
    # an address shown as a link's text is an autolink, without pybtex's escapes
    assert "<https://arxiv.org/abs/1706.03762>" in cited["vaswani2017attention"].entry
    assert not any("\\." in m["text"] and m["text"].replace("\\", "") == m["url"]
                   for c in cited.values() for m in myst_index.LINK.finditer(c.entry))


def test_a_directive_is_read_with_its_options_and_body():
    token = myst_index.parser().parse("```{prf:theorem} Title\n:label: thm-x\n\nBody.\n```\n")[0]
    d = myst_index.directive(token)
    assert (d.name, d.argument, d.options, d.body.strip()) == (
        "prf:theorem", "Title", {"label": "thm-x"}, "Body.")
    assert myst_index.directive(myst_index.parser().parse("```python\nx\n```\n")[0]) is None


def test_the_bench_times_a_process_with_its_peak_memory_and_each_cells_time():
    run = bench.timed([sys.executable, "-c", "b = bytearray(200 << 20)"])
    assert run.ok and run.mib >= 200 and run.seconds > 0
    assert not bench.timed([sys.executable, "-c", "raise SystemExit(3)"]).ok
    cell = nbformat.v4.new_code_cell("\n# how\nx = 1")
    cell.metadata["execution"] = {"iopub.execute_input": "2026-01-01T00:00:00.000Z",
                                  "shell.execute_reply": "2026-01-01T00:00:01.500Z"}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("untimed"), cell])
    assert bench.cell_seconds(nb) == [(2, 1.5, "# how")]
    phases = subprocess.run(["make", "-s", "--no-print-directory", "test-phases"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split()
    assert "chapters-and-book,unit" in phases and phases[-1] == "publish-rehearsal"
    assert bench.make_list("test-background") == ["background-rehearsal"]



@pytest.mark.slow
def test_the_bench_runs_a_chapter_in_a_fresh_kernel_with_its_peak_memory(tmp_path):
    header = "---\nkernelspec:\n  name: python3\n  display_name: Python 3\n---\n"
    cell = "```{{code-cell}} ipython3\n{}\n```\n"
    chapter = tmp_path / "chapter.md"
    slow_exit = "import atexit, time; atexit.register(time.sleep, 1.5)"
    chapter.write_text(header + cell.format("import os; here = os.getcwd()")
                       + cell.format("b = bytearray(200 << 20)") + cell.format(slow_exit))
    run, nb = bench.run_chapter(chapter)
    assert run.ok and run.mib >= 200 and run.seconds > 0
    assert run.shutdown >= 1.5  # the kernel's exit, after the last cell: not in its time
    assert [n for n, _, _ in bench.cell_seconds(nb)] == [1, 2, 3]
    chapter.write_text(header + cell.format("raise ValueError('planted')"))
    assert not bench.run_chapter(chapter)[0].ok

@pytest.mark.slow
@pytest.mark.skipif(browser.missing() is not None or not shutil.which("pdfunite"),
                    reason="needs Chromium and poppler-utils (make system-deps)")
def test_the_pdf_prints_each_page_in_order_and_names_an_image_that_did_not_load(tmp_path):
    from book_tools.pdf import print_pages

    display = ('<mjx-container display="true" style="display: block; overflow-x: auto">'
               '<span style="display: inline-block; width: {}em">{}</span></mjx-container>')
    (tmp_path / "a.html").write_text("<html><body><h1>First page</h1>"
                                     + display.format(70, "shrunk to fit") + "</body></html>")
    (tmp_path / "b.html").write_text(textwrap.dedent("""\
        <html><body><h1>Second page</h1><img src="gone.png">
        <p style="break-before: page">a page of its own</p>""") + display.format(
        200, "too wide") + "</body></html>")
    problems = print_pages(tmp_path, ["a", "b"], tmp_path / "out.pdf")
    assert problems == ["b: image did not load: gone.png",
                        "b: display math too wide for the page even at half size: too wide"]
    text = subprocess.run(["pdftotext", tmp_path / "out.pdf", "-"], capture_output=True,
                          text=True, check=True).stdout
    assert text.index("First page") < text.index("Second page") < text.index("of its own")
    info = subprocess.run(["pdfinfo", tmp_path / "out.pdf"], capture_output=True, text=True,
                          check=True).stdout
    assert "Pages:           3" in info


def _write(path: str, text: str) -> None:
    os.write(1, f"to the log: {text}\n".encode())  # (pytest holds sys.stdout, not fd 1)
    Path(path).write_text(json.dumps([text, os.environ["FORKED_CALL"]]))


def _fail() -> None:
    raise SystemExit("otter said no")


def test_forked_calls_run_with_their_environment_and_log_what_failed(tmp_path, monkeypatch):
    monkeypatch.delenv("FORKED_CALL", raising=False)
    calls = [forked_calls.Call(_write, (str(tmp_path / "out.json"), "hello"),
                               env={"FORKED_CALL": "1"}, log=tmp_path / "ok.log"),
             forked_calls.Call(_fail, log=tmp_path / "fail.log")]
    assert forked_calls.run_forked(calls, jobs=2) == [0, 1]
    assert json.loads((tmp_path / "out.json").read_text()) == ["hello", "1"]
    assert "to the log: hello" in forked_calls.tail(tmp_path / "ok.log", 200)
    assert "FORKED_CALL" not in os.environ  # only the forked call had it
    assert forked_calls.tail(tmp_path / "absent.log", 10) == ""


@pytest.mark.slow
def test_loadgroup_keeps_a_group_on_one_worker(tmp_path):
    """make site sends a page's checks to one browser with ``--dist loadgroup``; a pytest and
    pytest-xdist pair that ignores the groups (pytest-xdist issue 1386) would load every page
    many times, and no check would fail for it."""
    (tmp_path / "test_planted.py").write_text(textwrap.dedent("""
        import pytest

        @pytest.mark.parametrize("page", ["a", "b"])
        @pytest.mark.parametrize("k", range(4))
        def test_one(page, k):
            pass
        """))
    (tmp_path / "conftest.py").write_text(textwrap.dedent("""
        import pytest

        @pytest.hookimpl(tryfirst=True)  # as tests/site/conftest.py does
        def pytest_collection_modifyitems(items):
            for item in items:
                item.add_marker(pytest.mark.xdist_group(item.callspec.params["page"]))
        """))
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2",
                           "--dist", "loadgroup", "-v", str(tmp_path)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
    workers: dict[str, set[str]] = {}
    for line in done.stdout.splitlines():
        if "PASSED" in line and "@" in line:
            workers.setdefault(line.rsplit("@", 1)[1].strip(), set()).add(line.split("]")[0])
    assert sorted(workers) == ["a", "b"], done.stdout[-2000:]
    assert all(len(w) == 1 for w in workers.values()), workers
