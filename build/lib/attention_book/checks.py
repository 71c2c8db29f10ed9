"""The error a failed claim stops with, and numbers as a reader reads them.

``ClaimCheckFailed("Q1 failed: ...")`` names the claim and the measured numbers; in a
notebook it shows as that message alone, without a library traceback. Checks themselves
are declared and run through ``attention_book.verify``.
"""

from __future__ import annotations


class ClaimCheckFailed(AssertionError):
    """A claim's check failed; the message names the claim and the measured value."""

    def _render_traceback_(self) -> list[str]:  # IPython: the message, no traceback
        return [f"\x1b[1;31mClaimCheckFailed\x1b[0m: {self}"]


def num(x: float) -> str:
    """A number as a person reads it: 3 significant figures, no float noise."""
    x = float(x)
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        return f"{x:.3g}"
    return f"{x:.2e}"
