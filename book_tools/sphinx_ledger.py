"""Sphinx extension: the ``claims-ledger`` directive renders every claim with its status and
every check with its values on GPT-2, its controls and its counterfactuals; the
``derivations-table`` directive lists every derivation as recorded from what SymPy did. Both are
filled when the page is written, from this build's ledger. A claim recorded under a
chapter without its ``(claim-xx)=`` target is a warning, a build error under ``-W``."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from attention_book.claims import claim_index
from attention_book.derivation import DECORATIVE, GENUINE, PARTIAL
from attention_book.ledger import SLUGS, STATUSES, read_derivations, read_records
from attention_book.verdict_view import table as verdict_table
from attention_book.verify import Verdict
from book_tools.myst_index import citations

logger = logging.getLogger(__name__)
# Status labels are words styled by _static/ledger.css (class ledger-<slug>), not emoji:
# they read the same in every browser, font and screen reader.
MISSING = "missing"
HEADERS = ("Claim", "Statement", "Chapter", "Status", "Checks by kind", "Why / weights")
WIDTHS = (6, 30, 16, 12, 18, 18)


class generated_table(nodes.General, nodes.Element):
    """Where a table goes, filled when the page is written (its ``table`` attribute: the
    directive's name)."""


class GeneratedTable(SphinxDirective):
    """``{claims-ledger}`` or ``{derivations-table}``."""

    def run(self) -> list[nodes.Node]:
        self.env.claims_ledger_docs = getattr(self.env, "claims_ledger_docs", set())
        self.env.claims_ledger_docs.add(self.env.docname)
        return [generated_table(table=self.name)]


def claim_target(claim: str) -> str:
    return f"claim-{claim.lower()}"


def status_label(status: str | None) -> nodes.inline:
    """A status as a labelled badge: <span class="ledger-status ledger-verified">verified</span>."""
    text, slug = (status, SLUGS[status]) if status else (MISSING, MISSING)
    return nodes.inline(text, text, classes=["ledger-status", f"ledger-{slug}"])


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for c in cells:
        entry = nodes.entry()
        entry += c if isinstance(c, nodes.paragraph) else nodes.paragraph("", "", c)
        row += entry
    return row


def _table(rows: list[list[nodes.Node]], headers=HEADERS, widths=WIDTHS,
           cls: str = "claims-ledger") -> nodes.table:
    table, group = nodes.table(classes=[cls]), nodes.tgroup(cols=len(headers))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head, body = nodes.thead(), nodes.tbody()
    head += _row([nodes.Text(h) for h in headers])
    for r in rows:
        body += _row(r)
    group += head
    group += body
    return table


def _chapter_link(app: Sphinx, fromdoc: str, claim: str, chapter: str,
                  text: str = "") -> nodes.Node:
    labels = app.env.domaindata["std"]["labels"]
    target = labels.get(claim_target(claim))
    if chapter not in app.env.found_docs:
        logger.warning(f"claim {claim} is recorded by '{chapter}', which is not a page of the book")
        return nodes.Text(chapter)
    if target is None or target[0] != chapter:
        logger.warning(f"claim {claim} is recorded by '{chapter}' but that page has no "
                       f"target '({claim_target(claim)})='")
        return nodes.Text(chapter)
    uri = app.builder.get_relative_uri(fromdoc, chapter) + "#" + target[1]
    if text:
        return nodes.reference("", "", nodes.strong("", text), internal=True, refuri=uri)
    title = app.env.titles[chapter].deepcopy()  # keeps math in a title as math
    return nodes.reference("", "", *title.children, internal=True, refuri=uri)


def _cells(app: Sphinx, fromdoc: str, claim: str, title: str, rec) -> list[nodes.Node]:
    if rec is None:
        return [nodes.strong("", claim), nodes.Text(title), nodes.Text("-"),
                nodes.paragraph("", "", status_label(None), nodes.Text(": no chapter records it")),
                nodes.Text("-"), nodes.Text("-")]
    notes = " ".join(t for t in (f"Why: {rec.reason}" if rec.reason else "",
                                 f"Weights: {rec.weights}." if rec.weights else "") if t)
    return [nodes.strong("", claim), nodes.Text(rec.statement),
            _chapter_link(app, fromdoc, claim, rec.chapter), status_label(rec.status),
            nodes.Text(_kind_counts(rec)), nodes.Text(notes or "-")]


def _kind_counts(rec) -> str:
    if not rec.checks:
        return "no GPT-2 check (" + ", ".join(rec.evidence) + ")"
    return "; ".join(f"{n} {k}" for k, n in Counter(c["kind"] for c in rec.checks).items())


def _check_tables(records: dict) -> list[nodes.Node]:
    """Every check's full table (attention_book.verdict_view), claim by claim: the same
    tables the chapters fold, printed whole here."""
    out = []
    known = set(Verdict.__dataclass_fields__)
    for cid in claim_index():
        rec = records.get(cid)
        if not rec or not rec.checks:
            continue
        tables = "".join(verdict_table(Verdict(**{k: v for k, v in c.items() if k in known}))
                         for c in rec.checks)
        out.append(nodes.raw("", f'<div class="verdict-tables">{tables}</div>',
                             format="html"))
    return out


CITE = re.compile(r"\{cite(?::\w+)?\}`([^`]+)`")


def _with_citations(app: Sphinx, fromdoc: str, text: str, bib: dict) -> list[nodes.Node]:
    """Text whose {cite}`key` roles become '(Author, Year)' linked to the references page."""
    refs = app.builder.get_relative_uri(fromdoc, "book/references")
    out, last = [], 0
    for m in CITE.finditer(text):
        names = "; ".join(bib[k.strip()].short if k.strip() in bib else k.strip()
                          for k in m.group(1).split(","))
        out += [nodes.Text(text[last:m.start()]),
                nodes.reference("", f"({names})", internal=True, refuri=refs)]
        last = m.end()
    return [*out, nodes.Text(text[last:])]


def _derivation_item(app: Sphinx, fromdoc: str, d: dict, bib: dict) -> nodes.list_item:
    """One derivation: its claim and status, the sizes left symbolic, the steps SymPy
    performed, and what it concluded, one conclusion a line (a list, not a table: the
    conclusions are wider than a table's column)."""
    head = nodes.paragraph()
    head += [_chapter_link(app, fromdoc, d["claim"], d["chapter"], text=d["claim"]),
             nodes.Text(": "), nodes.strong("", d["status"])]
    if d["status"] == PARTIAL:
        head += [nodes.Text(", resting on "),
                 *_with_citations(app, fromdoc, f"{d['theorem']} {{cite}}`{d['cite']}`", bib)]
    head += nodes.Text(". Sizes left symbolic: ")
    head += _maths(d["sizes"], ", ").children if d["sizes"] else [nodes.Text("none")]
    steps = "; ".join(f"{s['name']} ({s['operation']})" for s in d["steps"] if s["changed"])
    head += nodes.Text(". Steps SymPy performed: ")
    head += _text_and_maths(steps or "none").children
    item = nodes.list_item()
    item += head
    item += _maths(d["conclusions"], "", classes=["derivation-conclusions"])
    return item


def _text_and_maths(text: str) -> nodes.paragraph:
    """A step's name, whose $...$ spans are maths."""
    out = nodes.paragraph()
    for k, part in enumerate(text.split("$")):
        out += nodes.math(part, part) if k % 2 else nodes.Text(part)
    return out


def _maths(texts: list[str], sep: str, classes: list[str] | None = None) -> nodes.paragraph:
    """LaTeX texts (SymPy's) as maths in one paragraph."""
    out = nodes.paragraph(classes=classes or [])
    for i, tex in enumerate(texts):
        out += [nodes.Text(sep)] if i else []
        out += nodes.math(tex, tex)
    return out


def _derivations(app: Sphinx, docname: str) -> list[nodes.Node]:
    derivations = read_derivations()
    bib = citations(Path(app.srcdir) / app.config.bibtex_bibfiles[0])
    items = nodes.bullet_list(classes=["derivations-list"])
    items += [_derivation_item(app, docname, derivations[c], bib)
              for c in claim_index() if c in derivations]
    counts = {s: sum(d["status"] == s for d in derivations.values())
              for s in (GENUINE, PARTIAL, DECORATIVE)}
    summary = nodes.paragraph("", f"In this build: {len(derivations)} derivations, " +
                              ", ".join(f"{n} {s}" for s, n in counts.items()) + ".")
    return [summary, items]


def _ledger(app: Sphinx, docname: str) -> list[nodes.Node]:
    records = read_records()
    rows = [_cells(app, docname, cid, info["title"], records.get(cid))
            for cid, info in claim_index().items()]
    counts = {s: sum(r.status == s for r in records.values()) for s in STATUSES}
    counts[None] = len(claim_index()) - len(records)
    summary = nodes.paragraph("", "In this build: ")
    for i, (status, n) in enumerate((k, v) for k, v in counts.items() if v or k is None):
        summary += [nodes.Text(("; " if i else "") + f"{n} "), status_label(status)]
    summary += nodes.Text(".")
    n = sum(len(r.checks) for r in records.values())
    intro = nodes.paragraph("", f"Every check ({n} in this build), claim by claim: its value "
                                "on GPT-2 and on each control, on each input set, and on each "
                                "counterfactual (✓ passes, ✗ fails; a failure the check's "
                                "kind asks for reads \"as it must\").")
    return [summary, _table(rows), intro, *_check_tables(records)]


def fill_tables(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """The tables of this build's ledger, where the directives placed them."""
    for node in list(doctree.findall(generated_table)):
        fill = _ledger if node["table"] == "claims-ledger" else _derivations
        node.replace_self(fill(app, docname))


def always_outdated(app: Sphinx, env, added, changed, removed) -> list[str]:
    return sorted(getattr(env, "claims_ledger_docs", set()))


def purge(app: Sphinx, env, docname: str) -> None:
    getattr(env, "claims_ledger_docs", set()).discard(docname)


def setup(app: Sphinx) -> dict:
    app.add_node(generated_table)
    app.add_directive("claims-ledger", GeneratedTable)
    app.add_directive("derivations-table", GeneratedTable)
    app.connect("doctree-resolved", fill_tables)
    app.connect("env-get-outdated", always_outdated)
    app.connect("env-purge-doc", purge)
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
