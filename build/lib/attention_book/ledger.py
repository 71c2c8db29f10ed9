"""The claims ledger: what each chapter derived and checked, and the outcome.

A chapter's ``Chapter`` (``attention_book.chapter``) owns one ``Ledger``. Verdicts
(``attention_book.verify``) and derivations (``attention_book.derivation``) reach it
directly as the chapter runs them; ``record(claim, ...)`` then enters the claim, with its
evidence inferred from what was run (a derivation: symbolic; a verdict on weights or rows:
GPT-2 weights or rows; counterfactuals: falsification) plus what the chapter names
(figure, constructed model, citation, numeric). Nothing is restated: the statement comes
from ``claims.yml``, the numbers from the verdicts.

Records go to one JSON file per chapter in the folder named by $ATTENTION_BOOK_LEDGER_DIR,
which only the book's build sets; the book's appendix collects them
(``book_tools.sphinx_ledger``). A chapter run anywhere else (a reader's notebook, a
homework) keeps its ledger in memory and writes nothing.

A claim declares in ``claims.yml`` how many checks it has (``checks``); a claim recorded
as verified with fewer is refused: on other weights it is recorded as failed, with how many
ran.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .claims import claim_index

LEDGER_DIR_VAR = "ATTENTION_BOOK_LEDGER_DIR"
REPO_ROOT = Path(__file__).resolve().parent.parent

VERIFIED = "verified"
NOT_VERIFIED = "not verified in this build"
STATED = "stated with citations"  # a prose claim about the literature: nothing to compute
FAILED = "check failed on these weights"  # stand-in or modified weights: never GPT-2
MODIFIED = "checked on modified weights"  # the reader opted in to other weights
STATUSES = (VERIFIED, NOT_VERIFIED, STATED, FAILED, MODIFIED)
SLUGS = {VERIFIED: "verified", NOT_VERIFIED: "not-verified", STATED: "stated",
         FAILED: "failed", MODIFIED: "modified"}  # CSS classes ledger-<slug>

GPT2_EVIDENCE = ("GPT-2 weights", "GPT-2 position rows", "GPT-2 token rows")
NAMED_EVIDENCE = ("constructed model", "numeric", "figure", "citation")
EVIDENCE = ("symbolic", *GPT2_EVIDENCE, *NAMED_EVIDENCE, "falsification")



def ledger_dir() -> Path:
    """Where the build's records are read from: $ATTENTION_BOOK_LEDGER_DIR, else
    _build/ledger in the repository."""
    return writing_dir() or REPO_ROOT / "_build" / "ledger"


def writing_dir() -> Path | None:
    """Where a chapter writes its records: only where the build asked for them."""
    env = os.environ.get(LEDGER_DIR_VAR)
    return Path(env) if env else None


@dataclass
class Record:
    claim: str
    chapter: str
    status: str
    evidence: list[str]
    reason: str = ""
    checks: list[dict] = field(default_factory=list)  # verdicts: kind, values, margin
    weights: str = ""  # what the GPT-2 checks ran on, when not GPT-2 small as released

    @property
    def statement(self) -> str:
        return claim_index()[self.claim]["title"]

    def _repr_markdown_(self) -> str:
        """One line: the claim's status in the ledger, and why when it is not verified."""
        badge = f'<span class="ledger-status ledger-{SLUGS[self.status]}">{self.status}</span>'
        line = f"{badge} **Ledger, {self.claim}** ({', '.join(self.evidence)})."
        if self.reason:
            line += f" Why: {self.reason}"
        if self.weights:
            line += f" Weights: {self.weights}."
        return line


def _known(claim: str) -> None:
    if claim not in claim_index():
        raise KeyError(f"'{claim}' is not a claim of the book (see attention_book/claims.yml)")


@dataclass
class Ledger:
    """The records of one chapter; the chapter's JSON file is rewritten on every entry."""

    chapter: str
    weights_note: str = ""
    full: bool = False  # the checkpoint has the token embeddings and MLP weights
    verdicts: dict[str, list] = field(default_factory=dict)
    derivations: dict[str, dict] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    records: dict[str, Record] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._write()

    @property
    def path(self) -> Path | None:
        folder = writing_dir()
        return folder / (self.chapter.replace("/", "__") + ".json") if folder else None

    def add_verdict(self, verdict, problems: list[str]) -> None:
        _known(verdict.claim)
        self.verdicts.setdefault(verdict.claim, []).append(verdict)
        if problems:
            self.failures.setdefault(verdict.claim, "; ".join(problems))

    def add_failure(self, claim: str, message: str) -> None:
        _known(claim)
        self.failures.setdefault(claim, message)

    def add_derivation(self, derivation) -> None:
        _known(derivation.claim)
        self.derivations[derivation.claim] = derivation.as_record() | {"chapter": self.chapter}
        self._write()

    def record(self, claim: str, *, evidence: tuple[str, ...] = (), status: str = VERIFIED,
               reason: str = "") -> Record:
        """Enter a claim, after its derivation and checks have run."""
        _known(claim)
        if status not in (VERIFIED, NOT_VERIFIED, STATED):
            raise ValueError(f"status must be one of {STATUSES[:3]}, got '{status}'")
        if set(evidence) - set(NAMED_EVIDENCE):
            raise ValueError(f"named evidence is drawn from {NAMED_EVIDENCE}, got {evidence}")
        if status == NOT_VERIFIED and not reason:
            raise ValueError("a claim not verified in this build must say why (reason=...)")
        verdicts = self.verdicts.get(claim, [])
        found = self._evidence(claim, verdicts) + list(evidence)
        if not found:
            raise ValueError(f"{claim}: nothing was derived or checked for it")
        weights = self.weights_note if verdicts else ""
        info = claim_index()[claim]
        declared = info.get("checks_full", info.get("checks", 0)) if self.full else \
            info.get("checks", 0)
        if status == VERIFIED and len(verdicts) != declared:
            missing = (f"{len(verdicts)} of its {declared} checks ran; a claim is verified "
                       "only when every check it declares (claims.yml) has run")
            if not self.weights_note:
                raise ValueError(f"{claim}: {missing}")
            self.failures.setdefault(claim, missing)
        if claim in self.failures:
            status, reason = FAILED, self.failures[claim]
        elif weights and status == VERIFIED:
            status = MODIFIED
        rec = Record(claim, self.chapter, status, found, reason,
                     [asdict(v) for v in verdicts], weights)
        self.records[claim] = rec
        self._write()
        return rec

    def _evidence(self, claim: str, verdicts: list) -> list[str]:
        found = ["symbolic"] if claim in self.derivations else []
        keys = {k for v in verdicts for k in v.values}
        if any(" / " not in k for k in keys):
            found.append("GPT-2 weights")
        if any(" / " in k for k in keys):
            tokens = any(v.rows_are_tokens for v in verdicts)
            found.append("GPT-2 token rows" if tokens else "GPT-2 position rows")
        if any(v.counterfactuals for v in verdicts):
            found.append("falsification")
        return found

    def _write(self) -> None:
        if self.path is None:
            return
        data = {"chapter": self.chapter,
                "records": [asdict(r) for r in self.records.values()],
                "derivations": list(self.derivations.values())}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(data, indent=1))


def _files(folder: Path | None) -> list[dict]:
    return [json.loads(f.read_text()) for f in sorted((folder or ledger_dir()).glob("*.json"))]


def read_records(folder: Path | None = None) -> dict[str, Record]:
    """All records in the ledger folder, by claim id."""
    known = set(Record.__dataclass_fields__)  # an older build's file may hold other fields
    return {r["claim"]: Record(**{k: v for k, v in r.items() if k in known})
            for f in _files(folder) for r in f["records"]}


def read_derivations(folder: Path | None = None) -> dict[str, dict]:
    """All derivation records in the ledger folder, by claim id."""
    return {d["claim"]: d for f in _files(folder) for d in f.get("derivations", [])}
