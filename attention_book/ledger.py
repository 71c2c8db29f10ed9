"""The claims ledger: what each chapter checked, with what evidence, and the outcome.

A chapter opens ``Ledger("book/<notebook name without .ipynb>")`` and calls ``record``
after the asserts of a claim have passed. Records go to one JSON file per chapter in
the ledger folder; the book's appendix (``attention_book.sphinx_ledger``) collects them.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

LEDGER_DIR_VAR = "ATTENTION_BOOK_LEDGER_DIR"
REPO_ROOT = Path(__file__).resolve().parent.parent

VERIFIED = "verified"
NOT_VERIFIED = "not verified in this build"
STATED = "stated with citations"  # a prose claim about the literature: nothing to compute
STATUSES = (VERIFIED, NOT_VERIFIED, STATED)

EVIDENCE = ("symbolic", "GPT-2 weights", "GPT-2 position rows", "GPT-2 full model",
            "constructed model", "numeric", "falsification", "figure", "citation")


@functools.lru_cache(maxsize=1)
def claim_index() -> dict[str, dict[str, str]]:
    """Every claim id the book must carry: {id: {"part", "title", "needs"}}, where needs is
    "none", "attention" or "full" (the GPT-2 tensors its verification needs)."""
    spec = yaml.safe_load((Path(__file__).parent / "claims.yml").read_text())
    return {cid: {"part": p["part"], **info}
            for p in spec["parts"] for cid, info in p["claims"].items()}


def ledger_dir() -> Path:
    """Where records go: $ATTENTION_BOOK_LEDGER_DIR, else _build/ledger in the repository."""
    env = os.environ.get(LEDGER_DIR_VAR)
    if env:
        return Path(env)
    if (REPO_ROOT / "_toc.yml").is_file():
        return REPO_ROOT / "_build" / "ledger"
    return Path.home() / ".cache" / "attention_book" / "ledger"


@dataclass
class Record:
    claim: str
    chapter: str
    statement: str
    status: str
    evidence: list[str]
    measured: str = ""
    tolerance: str = ""
    reason: str = ""

    def _repr_markdown_(self) -> str:
        slug = {VERIFIED: "verified", NOT_VERIFIED: "not-verified", STATED: "stated"}[self.status]
        badge = f'<span class="ledger-status ledger-{slug}">{self.status}</span>'
        lines = [f"{badge} **Ledger, {self.claim}: {self.status}.** {self.statement}",
                 f"Evidence: {', '.join(self.evidence)}."]
        if self.measured:
            lines.append(f"Measured: {self.measured}" +
                         (f" (tolerance: {self.tolerance})." if self.tolerance else "."))
        if self.reason:
            lines.append(f"Why: {self.reason}")
        return "\n\n".join(lines)


@dataclass
class Ledger:
    """The records of one chapter; the chapter's JSON file is rewritten on every record."""

    chapter: str
    records: dict[str, Record] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write()

    @property
    def path(self) -> Path:
        return ledger_dir() / (self.chapter.replace("/", "__") + ".json")

    def record(self, claim: str, *, statement: str, evidence: list[str], status: str = VERIFIED,
               measured: str = "", tolerance: str = "", reason: str = "") -> Record:
        """Enter a claim; call it after the claim's asserts have passed."""
        if claim not in claim_index():
            raise KeyError(f"'{claim}' is not a claim of the book (see attention_book/claims.yml)")
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got '{status}'")
        unknown = set(evidence) - set(EVIDENCE)
        if unknown or not evidence:
            raise ValueError(f"evidence must be a non-empty list drawn from {EVIDENCE}, "
                             f"got {evidence}")
        if status == NOT_VERIFIED and not reason:
            raise ValueError("a claim not verified in this build must say why (reason=...)")
        rec = Record(claim, self.chapter, statement, status, list(evidence),
                     measured, tolerance, reason)
        self.records[claim] = rec
        self._write()
        return rec

    def _write(self) -> None:
        data = [asdict(r) for r in self.records.values()]
        self.path.write_text(json.dumps({"chapter": self.chapter, "records": data}, indent=1))


def read_records(folder: Path | None = None) -> dict[str, Record]:
    """All records in the ledger folder, by claim id."""
    out: dict[str, Record] = {}
    for f in sorted((folder or ledger_dir()).glob("*.json")):
        for r in json.loads(f.read_text())["records"]:
            out[r["claim"]] = Record(**r)
    return out
