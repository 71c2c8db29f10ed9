"""The publishing workflow, rehearsed offline: every ``run:`` step of ``pages.yml``, read
from the workflow in order and run with its own command, on a copy of the strict build's
site. Three steps reuse what ``make test`` has done (the install, the book: the strict
build, and the PDF); a local bare repository stands in for the one the notebooks are pushed
to, a file for ``$GITHUB_OUTPUT``; each GitHub-hosted action is named, not run. The deploy
guard must refuse this build when it used the offline checkpoint or carries the placeholder
address: the rehearsal checks that it does, and names what it listed.

Usage: python -m book_tools.publish_rehearsal
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from attention_book.checkpoint import load_checkpoint
from attention_book.claims import unserved
from book_tools.address import PLACEHOLDER
from book_tools.cloud_cell import NOTEBOOKS_BRANCH

REPO = Path(__file__).resolve().parent.parent
WORKFLOW = REPO / ".github" / "workflows" / "pages.yml"
STAMP = ".venv/.installed"
REUSED = {
    f"make {STAMP}": "reused: the install ran as make publish-rehearsal's prerequisite",
    "make book": "reused: make strict-book's site (same chapters, executed and built with "
                 "--warningiserror); building it again would double make test's time",
    "make pdf": "reused: make test built and checked the PDF (make pdf) before the rehearsal",
}


class StepFailed(RuntimeError):
    """A step of the workflow failed in the rehearsal."""


def _run(command: str, env: dict[str, str]) -> tuple[int, str]:
    """A step's command as the workflow runs it (the install already done): status, output."""
    if command.startswith("make "):
        command = command.replace("make ", f"make -o {STAMP} ", 1)
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", command], cwd=REPO, env=env,
                          capture_output=True, text=True)
    return done.returncode, (done.stdout + done.stderr).strip()


def check_guard(status: int, output: str, checkpoint_full: bool, site: Path) -> str:
    """The guard's verdict agrees with what the rehearsal knows of this build."""
    expected = [f"{c} " for c in unserved(checkpoint_full)]
    placeholder = any(PLACEHOLDER in p.read_text(errors="replace")
                      for p in site.rglob("*.html"))
    if placeholder:
        expected.append("placeholder address")
    if status == 0 and expected:
        raise StepFailed(f"the deploy guard let through a build it must refuse:\n{output}")
    absent = [e.strip() for e in expected if e not in output]
    if absent:
        raise StepFailed("the deploy guard's refusal does not name: " + ", ".join(absent)
                         + f"\n{output}")
    if status != 0 and not expected:
        raise StepFailed(f"the deploy guard refused a publishable build:\n{output}")
    listed = [line.strip() for line in output.splitlines() if line.strip().startswith("- ")]
    return ("refused, as it must for this build (offline checkpoint or placeholder address); "
            "it listed:\n      " + "\n      ".join(listed) if expected else "fit to publish")


def check_pushed(remote: Path, notebooks: Path) -> str:
    listed = subprocess.run(["git", f"--git-dir={remote}", "ls-tree", "--name-only",
                             NOTEBOOKS_BRANCH], capture_output=True, text=True)
    pushed = sorted(listed.stdout.split())
    wanted = sorted(p.name for p in notebooks.iterdir())
    if listed.returncode != 0 or pushed != wanted:
        raise StepFailed(f"branch {NOTEBOOKS_BRANCH} of {remote} holds {pushed}, not the "
                         f"site's notebooks {wanted} {listed.stderr.strip()}")
    return f"branch {NOTEBOOKS_BRANCH} of the local bare repository holds {len(pushed)} files"


def rehearse(site: Path, pdf: Path, ledger: Path, work: Path) -> list[str]:
    """Run the workflow's steps; one line per step. Raises StepFailed at the first failure."""
    if not (site / "index.html").is_file():
        raise StepFailed(f"no built site in {site}: make strict-book first")
    copy, remote = work / "html", work / "origin.git"
    shutil.copytree(site, copy)
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    env = os.environ | {"PAGES_SITE": str(copy), "PAGES_PDF": str(pdf),
                        "PAGES_LEDGER": str(ledger), "NOTEBOOKS_REMOTE": str(remote),
                        "GITHUB_OUTPUT": str(work / "github_output")}
    env.pop("NOTEBOOKS_PUSH_TOKEN", None)
    full = load_checkpoint().is_full
    report = []
    for job, spec in yaml.safe_load(WORKFLOW.read_text())["jobs"].items():
        for step in spec["steps"]:
            name, run = step.get("name") or step.get("uses"), step.get("run")
            head = f"[{job}] {name}: "
            if run is None:
                report.append(head + f"not run ({step['uses'].split('@')[0]}): a GitHub-hosted "
                              "action, which needs GitHub's services (checkout, caches, "
                              "artifacts, Pages) or runs in the checkout here")
            elif run.strip() in REUSED:
                report.append(head + REUSED[run.strip()])
            elif "deploy-guard" in run:
                report.append(head + check_guard(*_run(run, env), full, copy))
            elif (ran := _run(run, env))[0] != 0:
                raise StepFailed(f"step '{name}' ({job} job: {run.strip()}) failed with exit "
                                 f"status {ran[0]}:\n{ran[1]}")
            else:
                output = check_pushed(remote, copy / "notebooks") \
                    if "publish-notebooks" in run else (ran[1].splitlines() or ["ok"])[-1]
                report.append(head + "ran: " + output)
    return report


def main() -> int:
    build = REPO / "_build"
    with tempfile.TemporaryDirectory(prefix="publish-rehearsal-") as work:
        try:
            report = rehearse(build / "html", build / "book.pdf", build / "ledger", Path(work))
        except StepFailed as failure:
            print(f"publish rehearsal FAILED: {failure}")
            return 1
    print("publish rehearsal of .github/workflows/pages.yml: passed\n  " + "\n  ".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
