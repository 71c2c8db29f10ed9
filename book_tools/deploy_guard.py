"""The publishing workflow's last check before it deploys: is this build fit to publish?

Three conditions, each reported with what failed:

1. the build used the full GPT-2 small checkpoint, as released (not the offline attention
   tensors, not a stand-in, not modified weights);
2. the ledger (``_build/ledger/*.json``) holds every claim of ``claims.yml``, each verified
   (or, for a claim about the literature, stated with citations): a claim "not verified in
   this build", a failed check or a check on other weights stops the deploy, listed with its
   chapter and the ledger's reason;
3. no file of the site carries the placeholder repository address (``book_tools.address``).

Usage: python -m book_tools.deploy_guard [--ledger DIR] [--site DIR]
Exit status 0 when fit to publish; 1 with the list of problems otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from attention_book.checkpoint import load_checkpoint
from attention_book.claims import claim_index
from attention_book.ledger import STATED, VERIFIED
from book_tools.address import PLACEHOLDER

REPO = Path(__file__).resolve().parent.parent
PUBLISHABLE = (VERIFIED, STATED)
TEXT_SUFFIXES = {".html", ".js", ".json", ".ipynb", ".txt", ".xml", ".md", ".css"}


def checkpoint_problems(is_full: bool, weights_note: str, missing: list[str]) -> list[str]:
    """Why the checkpoint the build used cannot be published, if it cannot."""
    problems = []
    if not is_full:
        problems.append("the build did not use the full GPT-2 small checkpoint (missing: "
                        + ", ".join(missing) + ")")
    if weights_note:
        problems.append(f"the build's weights are not GPT-2 small as released: {weights_note}")
    return problems


def ledger_records(folder: Path) -> dict[str, dict]:
    """Every record of the ledger folder, by claim id, as the chapters wrote it."""
    files = sorted(folder.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"no ledger in {folder} (the book's build writes one JSON file "
                                "per chapter there: run make book first)")
    return {r["claim"]: r for f in files for r in json.loads(f.read_text())["records"]}


def ledger_problems(records: dict[str, dict], claims: list[str]) -> list[str]:
    """Every claim the ledger did not verify: unrecorded, or recorded with another status."""
    problems = [f"{claim}: not recorded by any chapter" for claim in claims
                if claim not in records]
    for claim in claims:
        rec = records.get(claim)
        if rec is not None and rec["status"] not in PUBLISHABLE:
            why = f" ({rec['reason']})" if rec.get("reason") else ""
            problems.append(f"{claim} ({rec['chapter']}): {rec['status']}{why}")
    return problems


def placeholder_problems(site: Path) -> list[str]:
    """The site's files that carry the placeholder repository address."""
    if not (site / "index.html").is_file():
        raise FileNotFoundError(f"no built site in {site} (no index.html): run make book first")
    return [f"{path.relative_to(site)} carries the placeholder address {PLACEHOLDER}"
            for path in sorted(site.rglob("*"))
            if path.suffix in TEXT_SUFFIXES and path.is_file()
            and PLACEHOLDER in path.read_text(errors="replace")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ledger", type=Path, default=REPO / "_build" / "ledger")
    parser.add_argument("--site", type=Path, default=REPO / "_build" / "html")
    args = parser.parse_args(argv)
    ckpt = load_checkpoint()
    try:
        problems = (checkpoint_problems(ckpt.is_full, ckpt.weights_note, ckpt.missing)
                    + ledger_problems(ledger_records(args.ledger), list(claim_index()))
                    + placeholder_problems(args.site))
    except FileNotFoundError as missing:
        print(f"deploy guard: {missing}", file=sys.stderr)
        return 1
    if problems:
        print(f"deploy guard: not fit to publish, {len(problems)} problem(s):")
        print("\n".join(f"  - {p}" for p in problems))
        return 1
    print(f"deploy guard: fit to publish ({len(claim_index())} claims verified or stated, "
          "full GPT-2 small checkpoint, no placeholder address)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
