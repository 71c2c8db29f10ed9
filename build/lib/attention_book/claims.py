"""The index of the claims the book carries (``claims.yml``): a leaf module.

Nothing here imports the rest of the package, so the loader, the ledger and the build can
all read it without an import cycle.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

NEEDS = ("none", "attention", "full")


@functools.lru_cache(maxsize=1)
def claim_index() -> dict[str, dict[str, str]]:
    """Every claim id the book must carry: {id: {"part", "title", "needs"}}, where needs is
    "none", "attention" or "full" (the GPT-2 tensors its verification needs)."""
    spec = yaml.safe_load((Path(__file__).parent / "claims.yml").read_text())
    return {cid: {"part": p["part"], **info}
            for p in spec["parts"] for cid, info in p["claims"].items()}


def needs_full(claim: str) -> bool:
    """Whether the claim's verification needs wte and the MLP weights."""
    return claim_index()[claim]["needs"] == "full"


def unserved(is_full: bool) -> list[str]:
    """The claims a checkpoint cannot verify: those that need the full one, unless it is."""
    return [] if is_full else [c for c in claim_index() if needs_full(c)]
