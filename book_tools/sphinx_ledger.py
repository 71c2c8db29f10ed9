"""Sphinx extension: the ``claims-ledger`` directive renders every claim with its status.

Chapters write their records while the build executes them (reading phase); the table
is filled in when the ledger page is resolved (writing phase), so it always shows this
build's outcome. A claim recorded under a chapter without its ``(claim-xx)=`` target
is a warning, and so a build error under ``-W``.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from attention_book.ledger import NOT_VERIFIED, STATED, VERIFIED, claim_index, read_records

logger = logging.getLogger(__name__)
# Status labels are words styled by _static/ledger.css (class ledger-<slug>), not emoji:
# they read the same in every browser, font and screen reader.
MARKS = {VERIFIED: "verified", NOT_VERIFIED: "not verified in this build",
         STATED: "stated with citations"}
SLUGS = {VERIFIED: "verified", NOT_VERIFIED: "not-verified", STATED: "stated"}
MISSING = "missing"
HEADERS = ("Claim", "Statement", "Chapter", "Status", "Evidence", "Measured (tolerance)")


class ledger_placeholder(nodes.General, nodes.Element):
    pass


class ClaimsLedgerDirective(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        self.env.claims_ledger_docs = getattr(self.env, "claims_ledger_docs", set())
        self.env.claims_ledger_docs.add(self.env.docname)
        return [ledger_placeholder()]


def claim_target(claim: str) -> str:
    return f"claim-{claim.lower()}"


def status_label(status: str | None) -> nodes.inline:
    """A status as a labelled badge: <span class="ledger-status ledger-verified">verified</span>."""
    text, slug = (MARKS[status], SLUGS[status]) if status else (MISSING, MISSING)
    return nodes.inline(text, text, classes=["ledger-status", f"ledger-{slug}"])


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for c in cells:
        entry = nodes.entry()
        entry += c if isinstance(c, nodes.paragraph) else nodes.paragraph("", "", c)
        row += entry
    return row


def _table(rows: list[list[nodes.Node]]) -> nodes.table:
    table, group = nodes.table(classes=["claims-ledger"]), nodes.tgroup(cols=len(HEADERS))
    table += group
    for width in (6, 30, 16, 12, 16, 20):
        group += nodes.colspec(colwidth=width)
    head, body = nodes.thead(), nodes.tbody()
    head += _row([nodes.Text(h) for h in HEADERS])
    for r in rows:
        body += _row(r)
    group += head
    group += body
    return table


def _chapter_link(app: Sphinx, fromdoc: str, claim: str, chapter: str) -> nodes.Node:
    labels = app.env.domaindata["std"]["labels"]
    target = labels.get(claim_target(claim))
    if chapter not in app.env.found_docs:
        logger.warning(f"claim {claim} is recorded by '{chapter}', which is not a page of the book")
        return nodes.Text(chapter)
    if target is None or target[0] != chapter:
        logger.warning(f"claim {claim} is recorded by '{chapter}' but that page has no "
                       f"target '({claim_target(claim)})='")
        return nodes.Text(chapter)
    title = app.env.titles[chapter].deepcopy()  # keeps math in a title as math
    uri = app.builder.get_relative_uri(fromdoc, chapter) + "#" + target[1]
    return nodes.reference("", "", *title.children, internal=True, refuri=uri)


def _cells(app: Sphinx, fromdoc: str, claim: str, title: str, rec) -> list[nodes.Node]:
    if rec is None:
        return [nodes.strong("", claim), nodes.Text(title), nodes.Text("-"),
                nodes.paragraph("", "", status_label(None), nodes.Text(": no chapter records it")),
                nodes.Text("-"), nodes.Text("-")]
    measured = rec.measured + (f" ({rec.tolerance})" if rec.tolerance else "")
    if rec.reason:
        measured = (measured.rstrip(". ") + ". " if measured else "") + f"Why: {rec.reason}"
    return [nodes.strong("", claim), nodes.Text(rec.statement),
            _chapter_link(app, fromdoc, claim, rec.chapter), status_label(rec.status),
            nodes.Text(", ".join(rec.evidence)), nodes.Text(measured or "-")]


def fill_ledger(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    placeholders = list(doctree.findall(ledger_placeholder))
    if not placeholders:
        return
    records = read_records()
    rows = [_cells(app, docname, cid, info["title"], records.get(cid))
            for cid, info in claim_index().items()]
    counts = {s: sum(r.status == s for r in records.values()) for s in MARKS}
    counts[None] = len(claim_index()) - len(records)
    summary = nodes.paragraph("", "In this build: ")
    for i, (status, n) in enumerate(counts.items()):
        summary += [nodes.Text(("; " if i else "") + f"{n} "), status_label(status)]
    summary += nodes.Text(".")
    for p in placeholders:
        p.replace_self([summary, _table(rows)])


def always_outdated(app: Sphinx, env, added, changed, removed) -> list[str]:
    return sorted(getattr(env, "claims_ledger_docs", set()))


def purge(app: Sphinx, env, docname: str) -> None:
    getattr(env, "claims_ledger_docs", set()).discard(docname)


def setup(app: Sphinx) -> dict:
    app.add_node(ledger_placeholder)
    app.add_directive("claims-ledger", ClaimsLedgerDirective)
    app.connect("doctree-resolved", fill_ledger)
    app.connect("env-get-outdated", always_outdated)
    app.connect("env-purge-doc", purge)
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
