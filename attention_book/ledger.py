"""The claims ledger: what each chapter derived and checked, and the outcome.

A chapter opens ``Ledger("book/<chapter file name without extension>")`` once, then, after
a claim's checks have passed, calls

- ``ledger.derived(claim, symbolic=..., step=..., partial=...)`` for its SymPy derivation:
  what is symbolic, which step SymPy performs, and, when a named theorem that SymPy cannot
  perform carries a step, that theorem (the derivation is then *partial*);
- ``ledger.record(claim, evidence=[...], checks=[verdict, ...], measured=...)`` for the
  claim: the statement comes from ``claims.yml``, the kind of each GPT-2 check (identity or
  finding) and the control's result from its ``Verdict`` (``attention_book.checks``).

Records go to one JSON file per chapter in the ledger folder; the book's appendix
collects them (``book_tools.sphinx_ledger``).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import checks as _checks
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

GPT2_EVIDENCE = ("GPT-2 weights", "GPT-2 position rows", "GPT-2 full model")
EVIDENCE = ("symbolic", *GPT2_EVIDENCE, "constructed model", "numeric", "falsification",
            "figure", "citation")


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
    status: str
    evidence: list[str]
    measured: str = ""
    tolerance: str = ""
    reason: str = ""
    checks: list[dict] = field(default_factory=list)  # Verdicts: kind, GPT-2 and control
    weights: str = ""  # what the GPT-2 checks ran on, when not GPT-2 small as released

    @property
    def statement(self) -> str:
        return claim_index()[self.claim]["title"]

    def _repr_markdown_(self) -> str:
        badge = f'<span class="ledger-status ledger-{SLUGS[self.status]}">{self.status}</span>'
        lines = [f"{badge} **Ledger, {self.claim}: {self.status}.** {self.statement}.",
                 f"Evidence: {', '.join(self.evidence)}."]
        lines += [f"Check: {c['summary']}." for c in self.checks]
        if self.measured:
            lines.append(f"Measured: {self.measured}" +
                         (f" (tolerance: {self.tolerance})." if self.tolerance else "."))
        if self.reason:
            lines.append(f"Why: {self.reason}")
        if self.weights:
            lines.append(f"Weights: {self.weights}.")
        return "\n\n".join(lines)


@dataclass
class Derivation:
    claim: str
    chapter: str
    symbolic: str  # what is left symbolic (sizes, entries)
    step: str      # the step that carries the claim, performed by SymPy
    partial: str = ""  # the named, cited theorem that carries a step SymPy cannot perform

    @property
    def genuine(self) -> bool:
        return not self.partial

    def _repr_markdown_(self) -> str:
        kind = "genuine" if self.genuine else f"partial, resting on {self.partial}"
        return (f"*Derivation of {self.claim} ({kind}).* Symbolic: {self.symbolic}. "
                f"SymPy performs: {self.step}.")


def _weights_problem(evidence: list[str]) -> str:
    """'' when GPT-2 evidence came from GPT-2 small as released, else what it came from."""
    if not set(evidence) & set(GPT2_EVIDENCE):
        return ""
    from .checkpoint import load_checkpoint

    return load_checkpoint().weights_note


@dataclass
class Ledger:
    """The records of one chapter; the chapter's JSON file is rewritten on every record."""

    chapter: str
    records: dict[str, Record] = field(default_factory=dict)
    derivations: dict[str, Derivation] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write()

    @property
    def path(self) -> Path:
        return ledger_dir() / (self.chapter.replace("/", "__") + ".json")

    def derived(self, claim: str, *, symbolic: str, step: str, partial: str = "") -> Derivation:
        """Enter a claim's derivation; call it after the derivation's asserts have passed."""
        _known(claim)
        if not symbolic or not step:
            raise ValueError("a derivation says what is symbolic and which step SymPy performs")
        self.derivations[claim] = Derivation(claim, self.chapter, symbolic, step, partial)
        self._write()
        return self.derivations[claim]

    def record(self, claim: str, *, evidence: list[str], checks: tuple = (),
               status: str = VERIFIED, measured: str = "", tolerance: str = "",
               reason: str = "") -> Record:
        """Enter a claim; call it after the claim's checks have passed."""
        _known(claim)
        if status not in (VERIFIED, NOT_VERIFIED, STATED):
            raise ValueError(f"status must be one of {STATUSES[:3]}, got '{status}'")
        unknown = set(evidence) - set(EVIDENCE)
        if unknown or not evidence:
            raise ValueError(f"evidence must be a non-empty list drawn from {EVIDENCE}, "
                             f"got {evidence}")
        if status == NOT_VERIFIED and not reason:
            raise ValueError("a claim not verified in this build must say why (reason=...)")
        if any(v.claim != claim for v in checks):
            raise ValueError(f"{claim}: a check of another claim was passed")
        if status == VERIFIED and set(evidence) & set(GPT2_EVIDENCE) and not checks:
            raise ValueError(f"{claim}: a check on GPT-2 needs its Verdict against the control "
                             "(attention_book.checks.versus_control)")
        weights = _weights_problem(evidence)
        if claim in _checks.failures:
            status, reason = FAILED, _checks.failures[claim]
        elif weights and status == VERIFIED:
            status = MODIFIED
        rec = Record(claim, self.chapter, status, list(evidence), measured, tolerance, reason,
                     [asdict(v) | {"summary": v.summary()} for v in checks], weights)
        self.records[claim] = rec
        self._write()
        return rec

    def _write(self) -> None:
        data = {"chapter": self.chapter,
                "records": [asdict(r) for r in self.records.values()],
                "derivations": [asdict(d) for d in self.derivations.values()]}
        self.path.write_text(json.dumps(data, indent=1))


def _known(claim: str) -> None:
    if claim not in claim_index():
        raise KeyError(f"'{claim}' is not a claim of the book (see attention_book/claims.yml)")


def _files(folder: Path | None) -> list[dict]:
    return [json.loads(f.read_text()) for f in sorted((folder or ledger_dir()).glob("*.json"))]


def read_records(folder: Path | None = None) -> dict[str, Record]:
    """All records in the ledger folder, by claim id."""
    return {r["claim"]: Record(**r) for f in _files(folder) for r in f["records"]}


def read_derivations(folder: Path | None = None) -> dict[str, Derivation]:
    """All derivations in the ledger folder, by claim id."""
    return {d["claim"]: Derivation(**d) for f in _files(folder) for d in f.get("derivations", [])}
