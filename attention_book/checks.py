"""The error a failed claim stops with, numbers as a reader reads them, and the
pre-layer check API (``check``, ``versus_control``) that chapters not yet moved onto
``attention_book.verify`` still use; a chapter on the layer uses ``Chapter.require`` and
``Chapter.verify`` instead.

``check(claim, ok, message)`` stops with ``"Q1 failed: <message>"``, a message that names
the claim and the measured numbers, shown in a notebook without a library traceback.

``versus_control`` runs one GPT-2 check beside the same check on the random-init control
(``attention_book.control``) and says which kind of check it is:

- an *identity* holds for any weights: on GPT-2 it shows that the code is right, and it
  must pass on the control too;
- a *finding* is a fact about trained GPT-2: it must pass on GPT-2 and fail on the control.

On weights that are not GPT-2 small as released (the rehearsal stand-in, or weights the
reader opted in to, ``checkpoint.weights_note``), a failed check is information about those
weights, not a bug: it is printed and recorded instead of raised, so that the rest of the
chapter still runs; ``failures`` holds what failed, and the ledger records such a claim as
failed, never as verified.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

IDENTITY = "identity"
FINDING = "finding"
KINDS = (IDENTITY, FINDING)

failures: dict[str, str] = {}  # claim -> message, for checks that failed on the stand-in


class ClaimCheckFailed(AssertionError):
    """A claim's check failed; the message names the claim and the measured value."""

    def _render_traceback_(self) -> list[str]:  # IPython: the message, no traceback
        return [f"\x1b[1;31mClaimCheckFailed\x1b[0m: {self}"]


def _other_weights() -> str:
    """'' for GPT-2 small as released; otherwise what the loaded weights are."""
    from .checkpoint import load_checkpoint

    try:
        return load_checkpoint().weights_note
    except Exception:  # no checkpoint at all: a real failure, raise it
        return ""


def check(claim: str, ok: bool, message: str) -> None:
    """Stop with "<claim> failed: <message>" unless ok (on other weights: record, go on)."""
    if ok:
        return
    text = f"{claim} failed: {message}"
    if (weights := _other_weights()):
        failures.setdefault(claim, text)
        print(f"[{weights.split(':')[0]}] {text}")
        return
    raise ClaimCheckFailed(text)


def num(x: float) -> str:
    """A number as a person reads it: 3 significant figures, no float noise."""
    x = float(x)
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        return f"{x:.3g}"
    return f"{x:.2e}"


@dataclass(frozen=True)
class Verdict:
    """One check run on GPT-2 and on the random-init control."""

    claim: str
    kind: str
    quantity: str
    expected: str
    gpt2: float
    control: float
    gpt2_passes: bool
    control_passes: bool

    @property
    def control_result(self) -> str:
        verdict = "passes" if self.control_passes else "fails"
        return f"{verdict} on the control ({self.quantity} = {num(self.control)})"

    def summary(self) -> str:
        return (f"{self.kind}: {self.quantity} = {num(self.gpt2)} on GPT-2, "
                f"{num(self.control)} on the random-init control (expected {self.expected})")

    def _repr_markdown_(self) -> str:
        mark = {True: "passes", False: "fails"}
        return (f"**{self.claim}, {self.kind}.** {self.quantity}, expected {self.expected}\n\n"
                "| | GPT-2 small | random-init control |\n|---|---:|---:|\n"
                f"| measured | {num(self.gpt2)} | {num(self.control)} |\n"
                f"| check | {mark[self.gpt2_passes]} | {mark[self.control_passes]} |\n")


def versus_control(claim: str, kind: str, quantity: str, *, gpt2: float, control: float,
                   passes: Callable[[float], bool], expected: str) -> Verdict:
    """Run ``passes`` on GPT-2's value and the control's; check each against the kind."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    g, c = bool(passes(gpt2)), bool(passes(control))
    weights = "GPT-2" if not _other_weights() else "the loaded weights (not GPT-2 as released)"
    check(claim, g, f"{quantity} = {num(gpt2)} on {weights}, expected {expected}")
    if kind == IDENTITY:
        check(claim, c, f"the identity fails on the random-init control: {quantity} = "
                        f"{num(control)}, expected {expected}; the code, not the model, is wrong")
    else:
        check(claim, not c, f"the finding does not separate trained GPT-2 from the random-init "
                            f"control: {quantity} = {num(control)} there, also {expected}")
    return Verdict(claim, kind, quantity, expected, float(gpt2), float(control), g, c)
