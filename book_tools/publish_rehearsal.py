"""The publishing workflow, rehearsed offline: every step of ``pages.yml`` that is not a
GitHub-hosted action, run with the workflow's own command.

The steps are read from the workflow itself, in order. Each ``run:`` step runs here with
its own command, in the step's place, except three that ``make test`` has already run
(their output is reused, which keeps the rehearsal to seconds rather than a second book
build): the install (``make .venv/.installed``, this target's prerequisite), the book
(``make book``: the site ``make strict-book`` built, the same chapters executed and built
with ``--warningiserror``) and the PDF (``make pdf``, built and checked by ``make test``).
The site is copied, so the rehearsal's lay-out does not touch the strict build's.

What stands in for GitHub here: a local bare repository for the repository the notebooks are
pushed to (no token); a file for ``$GITHUB_OUTPUT``. The GitHub-hosted actions (checkout,
caches, artifacts, Pages) cannot run offline; each is named. The deploy guard is
expected to refuse this build when it used the offline checkpoint (the claims that need the
full one are not verified) or carries the placeholder address (no workflow repository): the
rehearsal checks that it refuses, and names what it listed.

Usage: python -m book_tools.publish_rehearsal [--site DIR] [--pdf FILE] [--ledger DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Step:
    job: str
    name: str
    run: str | None
    uses: str | None


def workflow_steps(workflow: Path) -> list[Step]:
    """The steps of every job, in the order the jobs depend on each other (as written)."""
    jobs = yaml.safe_load(workflow.read_text())["jobs"]
    return [Step(job, s.get("name") or s.get("uses") or s["run"], s.get("run"), s.get("uses"))
            for job, spec in jobs.items() for s in spec["steps"]]


def _run(step: Step, env: dict[str, str]) -> str:
    command = step.run.replace("make ", f"make -o {STAMP} ", 1) \
        if step.run.startswith("make ") else step.run
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", command], cwd=REPO, env=env,
                          capture_output=True, text=True)
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0 and "deploy-guard" not in step.run:
        raise StepFailed(f"step '{step.name}' ({step.job} job: {step.run.strip()}) failed "
                         f"with exit status {done.returncode}:\n{output}")
    return output if "deploy-guard" not in step.run else f"{done.returncode}\n{output}"


def check_guard(result: str, checkpoint_full: bool, site: Path) -> str:
    """The guard's verdict agrees with what the rehearsal knows of this build."""
    status, _, output = result.partition("\n")
    expected = [f"{c} " for c in unserved(checkpoint_full)]
    placeholder = any(PLACEHOLDER in p.read_text(errors="replace")
                      for p in site.rglob("*.html"))
    if placeholder:
        expected.append("placeholder address")
    if status == "0" and expected:
        raise StepFailed(f"the deploy guard let through a build it must refuse:\n{output}")
    absent = [e.strip() for e in expected if e not in output]
    if absent:
        raise StepFailed("the deploy guard's refusal does not name: " + ", ".join(absent)
                         + f"\n{output}")
    if status != "0" and not expected:
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
    for step in workflow_steps(WORKFLOW):
        head = f"[{step.job}] {step.name}: "
        if step.uses:
            report.append(head + f"not run ({step.uses.split('@')[0]}): a GitHub-hosted "
                          "action, which needs GitHub's services (checkout, caches, artifacts, "
                          "Pages) or runs in the checkout here")
        elif step.run.strip() in REUSED:
            report.append(head + REUSED[step.run.strip()])
        elif "deploy-guard" in step.run:
            report.append(head + check_guard(_run(step, env), full, copy))
        else:
            output = _run(step, env)
            if "publish-notebooks" in step.run:
                output = check_pushed(remote, copy / "notebooks")
            report.append(head + "ran: " + (output.splitlines() or ["ok"])[-1])
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=REPO / "_build" / "html")
    parser.add_argument("--pdf", type=Path, default=REPO / "_build" / "book.pdf")
    parser.add_argument("--ledger", type=Path, default=REPO / "_build" / "ledger")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="publish-rehearsal-") as work:
        try:
            report = rehearse(args.site.resolve(), args.pdf.resolve(), args.ledger.resolve(),
                              Path(work))
        except StepFailed as failure:
            print(f"publish rehearsal FAILED: {failure}")
            return 1
    print("publish rehearsal of .github/workflows/pages.yml: passed\n  "
          + "\n  ".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
