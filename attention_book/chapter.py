"""What every chapter opens with: the weights, the controls, the input sets, the ledger.

``ch = open_chapter("book/03a_qk_form")`` loads GPT-2 small (and says what it is), its
three controls and the two input sets, each once per process, and returns the chapter's
``Chapter``. Through it the chapter

- derives: ``with ch.derive("Q1") as d: ...`` (``attention_book.derivation``);
- checks: ``ch.verify(check, ...)`` runs every check on GPT-2 and the controls over every
  input set and displays one verdict table (``attention_book.verify``);
- asserts what is not a check on GPT-2 (a constructed model, a numeric example):
  ``ch.require(claim, ok, message)``;
- records: ``ch.record(claim, evidence=("figure",))``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html import escape

import numpy as np
from IPython.display import display

from .checkpoint import Checkpoint, load_checkpoint
from .checks import ClaimCheckFailed
from .claims import claim_index, unserved
from .derivation import Derivation
from .gpt2 import GPT2, load_gpt2
from .ledger import Ledger, Record
from .subjects import (
    GPT2_NAME,
    Case,
    InputSet,
    Subjects,
    control_models,
    position_sets,
    token_sets,
)
from .verdict_view import html as verdicts_html
from .verdict_view import text as verdicts_text
from .verify import Check, Verdict, run


@functools.lru_cache(maxsize=1)
def input_sets() -> tuple[InputSet, ...]:
    """Token rows of three sentences with the full checkpoint, else three sets of
    positions (``attention_book.subjects``)."""
    model = load_gpt2()
    if not model.has_wte:
        return position_sets(model.config.n_ctx)
    from .tokenizer import load_tokenizer  # only a chapter that reads tokens pays for it

    tok = load_tokenizer(load_checkpoint().path.parent)
    return token_sets(tok.encode, tok.decode, model.config.n_ctx)


def rows_a(model: GPT2) -> np.ndarray:
    """Input set A as ``model`` embeds it: the rows the chapters' figures and exercises
    read."""
    return input_sets()[0].rows(model)


@functools.lru_cache(maxsize=1)
def subjects() -> Subjects:
    return Subjects({GPT2_NAME: load_gpt2(), **control_models()}, input_sets())


@dataclass
class Chapter:
    """One chapter's weights, controls, input sets and ledger."""

    name: str
    checkpoint: Checkpoint
    subjects: Subjects
    ledger: Ledger
    _cases: dict[bool, list[Case]] = field(default_factory=dict, repr=False)
    _derivations: dict[str, Derivation] = field(default_factory=dict, repr=False)

    @property
    def model(self) -> GPT2:
        return self.subjects.models[GPT2_NAME]

    @property
    def controls(self) -> dict[str, GPT2]:
        return {k: m for k, m in self.subjects.models.items() if k != GPT2_NAME}

    @property
    def inputs(self) -> InputSet:
        """Input set A, the one the chapter's figures show."""
        return self.subjects.input_sets[0]

    @property
    def x(self) -> np.ndarray:
        """GPT-2's rows of input set A."""
        return self.inputs.rows(self.model)

    def cases(self, *, rows: bool) -> list[Case]:
        """Every subject (on every input set when rows=True), built once per chapter."""
        if rows not in self._cases:
            self._cases[rows] = self.subjects.cases(rows=rows)
        return self._cases[rows]

    def case(self, subject: str = GPT2_NAME, input_set: int = 0) -> Case:
        """One subject on one input set (its traces computed once)."""
        return next(c for c in self.cases(rows=True)
                    if c.subject == subject and c.inputs is self.subjects.input_sets[input_set])

    def layers_together(self, case: Case, key: str | tuple,
                       compute: Callable[[list[Case]], Iterable[list]]) -> list:
        """``compute(cases)``'s results for ``case``, a list over layers, made for every case
        of the chapter on the case's model together (the case alone if it is not among
        them, as a counterfactual's is): ``compute`` yields, layer after layer, one result
        per case, so a layer's weights, and what the cases share of them, are read once for
        all. Each case keeps its own list under ``key``."""
        cases = [c for c in self.cases(rows=True) if c.model is case.model]
        if not any(c is case for c in cases):
            cases = [case]

        def every_case(_: Case) -> list:
            per_case = [list(layers) for layers in zip(*compute(cases), strict=True)]
            for c, layers in zip(cases, per_case, strict=True):
                if c is not case:
                    c.memo(key, lambda _, kept=layers: kept)
            return per_case[next(i for i, c in enumerate(cases) if c is case)]
        return case.memo(key, every_case)

    def verify(self, *checks: Check) -> VerdictTable:
        """Run each check everywhere, hand its verdict to the ledger, show one table."""
        verdicts = []
        for check in checks:
            verdict = run(check, self.cases(rows=check.rows), self.ledger.weights_note)
            self.ledger.add_verdict(verdict, list(verdict.problems))
            verdicts.append(verdict)
        return VerdictTable(verdicts)

    def derive(self, claim: str) -> Derivation:
        """The claim's derivation, whose record reaches the ledger whenever a ``with``
        block on it ends; a derivation spread over several cells is one record."""
        if claim not in self._derivations:
            self._derivations[claim] = Derivation(claim, self.name,
                                                  on_done=self.ledger.add_derivation)
        return self._derivations[claim]

    def require(self, claim: str, ok: bool, message: str) -> None:
        """Stop with "<claim> failed: <message>" unless ok (on other weights: record it)."""
        if ok:
            return
        text = f"{claim} failed: {message}"
        if not self.ledger.weights_note:
            raise ClaimCheckFailed(text)
        if claim in claim_index():  # a page's own assert (notation) has no record
            self.ledger.add_failure(claim, text)
        print(f"[{self.ledger.weights_note.split(':')[0]}] {text}")

    def record(self, claim: str, **kwargs) -> Record:
        return self.ledger.record(claim, **kwargs)


@dataclass(frozen=True)
class VerdictTable:
    """The verdicts of one ``verify`` call, displayed as one table."""

    verdicts: list[Verdict]

    def __getitem__(self, i: int) -> Verdict:
        return self.verdicts[i]

    def _repr_html_(self) -> str:
        return verdicts_html(self.verdicts)

    def __repr__(self) -> str:
        return verdicts_text(self.verdicts)


READING = "intro.html#reading-the-checks"  # the intro's section, beside every chapter


@dataclass(frozen=True)
class Opening:
    """What a chapter's first output says: the weights, what this build leaves out, the
    input sets; how the checks are read is the intro's, linked."""

    weights: str
    missing: list[str]
    sets: list[tuple[str, str]]

    def _lines(self, link: str) -> list[str]:
        lines = [f"<b>Weights.</b> {escape(self.weights)}."]
        if self.missing:
            lines.append("Not in this checkpoint: the token embeddings and MLP weights; "
                         f"{', '.join(self.missing)} are not verified in this build.")
        sets = "; ".join(f"<b>{n}</b>: {escape(label)}" for n, label in self.sets)
        lines.append(f"<b>Input sets.</b> {sets}. Every check also runs on three controls; "
                     f"{link} says how to read the checks.")
        return lines

    def _repr_html_(self) -> str:
        link = f'<a href="{READING}">How to read a check</a>'
        return "".join(f"<p>{line}</p>" for line in self._lines(link))

    def __repr__(self) -> str:
        return "\n".join(re.sub(r"<[^>]+>", "", ln) for ln in self._lines("the book's intro"))


def open_chapter(name: str) -> Chapter:
    """The chapter ``name`` ("book/NN_short_name"), its weights, controls and ledger."""
    checkpoint = load_checkpoint()
    ch = Chapter(name, checkpoint, subjects(),
                 Ledger(name, checkpoint.weights_note, checkpoint.is_full))
    display(Opening(checkpoint.found(), unserved(checkpoint.is_full),
                    [(s.name, s.label) for s in ch.subjects.input_sets]))
    return ch
