"""Verdicts as a reader reads them: one line per check in view, the full table one click
away.

The line says what was measured, its value on GPT-2, the kind, and the result. The table
(folded, in a ``<details>`` element) has one row per subject and counterfactual and one
column per input set, so it fits a phone's width: ✓ passes, ✗ fails. A failure the kind's
rule asks for (a finding on the untrained model, any check on its counterfactual) reads
"✗ as it must"; only a failure the rule does not ask for is marked as one. The claims
ledger prints every table again, whole, in the book's appendix
(``book_tools.sphinx_ledger``), where the PDF carries them.
"""

from __future__ import annotations

from html import escape

from .checks import num
from .subjects import GPT2_NAME, SUBJECTS
from .verify import FINDING, GENERIC, IDENTITY, PARAMETRISATION, VALUES, Verdict

KEY = ('<p class="verdict-notes">✓ passes, ✗ fails; a grey ✗ fails as the check\'s kind '
       "asks (a control or a counterfactual on which the claim must fail).</p>")
# What each kind's rule asks of the controls, as the verdict line says it.
RULE = {
    IDENTITY: "holds on every control",
    GENERIC: "holds on every control",
    FINDING: "holds on the reparametrised model; fails on the permuted values and the "
             "untrained model",
    VALUES: "holds on the permuted values; fails on the untrained model",
    PARAMETRISATION: "fails on the reparametrised model",
}


def _sets(v: Verdict) -> list[str]:
    return [k.split(" / ")[1] for k in v.values if k.startswith(f"{GPT2_NAME} / ")]


def _gpt2_value(v: Verdict) -> str:
    sets = _sets(v)
    if not sets:
        return f"<b>{num(v.values[GPT2_NAME])}</b> on GPT-2"
    values = " / ".join(num(v.values[f"{GPT2_NAME} / {s}"]) for s in sets)
    return f"<b>{values}</b> on GPT-2 (input sets {' / '.join(sets)})"


def line(v: Verdict) -> str:
    """One sentence: the check, GPT-2's value, the threshold, the kind and the result."""
    if v.problems:
        mark, result = "✗", "<b>failed</b>: " + escape("; ".join(v.problems))
    else:
        mark = "✓"
        must = [f"<i>{escape(n)}</i>" for n in v.counterfactuals]
        result = RULE[v.kind] + ("; fails on " + ", ".join(must) if must else "") + \
            ", as it must"
    cls = "verdict-fail" if v.problems else "verdict-pass"
    return (f'<p class="verdict {cls}"><span class="verdict-mark">{mark}</span><span>'
            f"<b>{escape(v.claim)}</b> {escape(v.quantity)}: {_gpt2_value(v)}, "
            f"threshold {escape(v.threshold)} · <i>{v.kind}</i> · {result}.</span></p>")


def _cell(v: Verdict, key: str) -> str:
    if key not in v.values:
        return "<td>–</td>"
    ok, want = v.passed.get(key, False), v.expected(key)
    if key in v.errors:
        return f'<td class="v fail" title="{escape(v.errors[key])}">not measured ✗</td>'
    if ok:
        return f'<td class="v pass">{num(v.values[key])} ✓</td>'
    if want is False:
        return f'<td class="v expected">{num(v.values[key])} ✗ <small>as it must</small></td>'
    return f'<td class="v fail">{num(v.values[key])} ✗</td>'


def table(v: Verdict) -> str:
    """One check's full table: a row per subject and counterfactual, a column per input
    set."""
    sets = _sets(v)
    head = "".join(f"<th>set {s}</th>" for s in sets) or "<th>value</th>"
    rows = []
    for s in SUBJECTS:
        keys = [f"{s} / {x}" for x in sets] or [s]
        rows.append(f"<tr><th>{s}</th>{''.join(_cell(v, k) for k in keys)}</tr>")
    for name, x in v.counterfactuals.items():
        failed = name not in v.errors and not v.counterfactual_passed.get(name, False)
        value = (f'<td class="v expected" colspan="{max(len(sets), 1)}">{num(x)} ✗ '
                 f"<small>as it must (worst input set)</small></td>" if failed else
                 f'<td class="v fail" colspan="{max(len(sets), 1)}">{num(x)} ✓ '
                 f"<small>should fail</small></td>")
        rows.append(f"<tr><th>counterfactual: <i>{escape(name)}</i></th>{value}</tr>")
    notes = [f"<b>Threshold</b> {escape(v.threshold)} on a reach of {escape(v.reach)}: "
             f"{escape(v.why.rstrip('.'))}. GPT-2's margin: {escape(v.margin_text)}."]
    if v.exceptions:
        notes.append(f"<b>Exceptions</b> (where a generic property fails): "
                     f"{escape(v.exceptions)}.")
    notes += [f"<b>Not measured</b> on {escape(k)}: {escape(e)}." for k, e in v.errors.items()]
    caption = f"<b>{escape(v.claim)}</b> {escape(v.quantity)} · <i>{v.kind}</i>"
    return (f'<table class="verdict-table"><caption>{caption}</caption><thead><tr>'
            f"<th></th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f'<p class="verdict-notes">{" ".join(notes)}</p>')


def html(verdicts: list[Verdict]) -> str:
    """The lines in view, then every table in one fold."""
    lines = "".join(line(v) for v in verdicts)
    n = len(verdicts)
    summary = (f"The full table{'s' if n > 1 else ''}: every control, input set and "
               f"counterfactual")
    tables = "".join(table(v) for v in verdicts) + KEY
    return (f'<div class="verdicts">{lines}<details class="verdict-details"><summary>'
            f"{summary}</summary>{tables}</details></div>")


def text(verdicts: list[Verdict]) -> str:
    """The lines as plain text (a console, a test's message)."""
    import re

    return "\n".join(re.sub(r"<[^>]+>", "", line(v)) for v in verdicts)
