"""Roles that published work gives to GPT-2 small heads, and what the book's evidence can
say about each.

The list lives in ``head_roles.yml`` beside this module (role, bibtex keys, the chapter
that discusses it, the source's method, the heads); ``load_roles`` reads and checks it. A
role no chapter discusses (``chapter: null``) is listed so that the atlas can say it does
not cover it.

``role_evidence`` decides what the atlas may say of one head's role. A role is a behaviour
on text, so only rows of text can test it: with the full checkpoint the atlas's example
rows are a sentence's real residual stream and the previous-token role is tested on them;
the atlas runs no input that defines the other roles (repeated random tokens for
induction, repeated tokens for duplicate-token), so it does not test them; offline the
example rows are position rows, which test no role. Weight-only numbers (the negative mass
share nu) are shown beside a role but never decide it: chapter 03a compares groups of
heads by nu (claim Q4), not single heads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.resources import files

import yaml

from .head_detectors import THRESHOLD

AGREES, DISAGREES = "the book's evidence agrees", "the book's evidence does not agree"
NOT_TESTABLE_OFFLINE = "not testable offline"
NOT_TESTED = "not tested by the atlas"
NOT_COVERED = "not covered by the atlas"
# What defines each role the chapters discuss: the input a test of it must run.
DEFINED_ON = {
    "previous-token": "text (attention from each token to the one before it)",
    "induction": "repeated random tokens (chapter 10's probe, claim I2)",
    "duplicate-token": "text in which a token repeats",
}
# The roles the atlas tests with the full checkpoint: heads.json field, threshold.
TESTS = {"previous-token": ("previous_token_score", THRESHOLD)}


@dataclass(frozen=True)
class RoleGroup:
    """Heads one source gives one role."""

    role: str
    cite: tuple[str, ...]   # bibtex keys in references.bib
    chapter: str | None     # the chapter (book/<chapter>.md) that discusses it, if any
    method: str
    heads: tuple[tuple[int, int], ...]


def parse_head(name: str) -> tuple[int, int]:
    """``"5.10"`` -> ``(5, 10)``; a clear error for anything else."""
    layer, sep, head = str(name).partition(".")
    if not (sep and layer.isdigit() and head.isdigit()):
        raise ValueError(f"head {name!r} is not of the form 'layer.head', e.g. '5.5'")
    return int(layer), int(head)


def load_roles() -> list[RoleGroup]:
    """Every role group of head_roles.yml, in file order."""
    entries = yaml.safe_load(files(__package__).joinpath("head_roles.yml").read_text())
    groups = []
    for i, e in enumerate(entries):
        missing = {"role", "cite", "chapter", "method", "heads"} - set(e)
        if missing:
            raise ValueError(f"head_roles.yml entry {i} lacks {sorted(missing)}")
        groups.append(RoleGroup(e["role"], tuple(e["cite"]), e["chapter"], e["method"],
                                tuple(parse_head(h) for h in e["heads"])))
    return groups


def roles_of(head: tuple[int, int], groups: list[RoleGroup]) -> list[RoleGroup]:
    """The groups that name this head."""
    return [g for g in groups if head in g.heads]


def _rank(values: dict[str, float], name: str, ascending: bool) -> int:
    return sorted(values, key=values.get, reverse=not ascending).index(name) + 1


def role_evidence(name: str, group: RoleGroup, heads: Mapping[str, Mapping[str, float]],
                  rows_are_tokens: bool) -> dict:
    """What the atlas says of head ``name``'s role in ``group``: ``verdict`` (one of AGREES,
    DISAGREES, NOT_TESTABLE_OFFLINE, NOT_TESTED, NOT_COVERED), ``agrees`` (None unless
    tested) and ``measure``, the numbers shown and why they decide or do not.
    ``heads`` holds heads.json's fields per head ("L.H")."""
    if group.chapter is None:
        return {"verdict": NOT_COVERED, "agrees": None,
                "measure": "the book has no measure of this role"}
    n = len(heads)
    nus = {k: v["negative_mass_share"] for k, v in heads.items()}
    prev = {k: v["previous_token_score"] for k, v in heads.items()}
    shown = (f"previous-token score on the example rows {prev[name]:.3f} (rank "
             f"{_rank(prev, name, False)} of {n}); weight-only ν = {nus[name]:.3f} (rank "
             f"{_rank(nus, name, True)} of {n} from the most positive-leaning), which no "
             "single head's role rests on (chapter 03a compares groups by it, claim Q4)")
    defined = f"the role is defined on {DEFINED_ON.get(group.role, 'text')}"
    if not rows_are_tokens:
        return {"verdict": NOT_TESTABLE_OFFLINE, "agrees": None,
                "measure": f"{defined}, and the example rows are position rows without "
                           f"tokens; shown: {shown}"}
    if group.role not in TESTS:
        return {"verdict": NOT_TESTED, "agrees": None,
                "measure": f"{defined}, which the atlas does not run; shown: {shown}"}
    field, threshold = TESTS[group.role]
    agrees = bool(heads[name][field] > threshold)
    return {"verdict": AGREES if agrees else DISAGREES, "agrees": agrees,
            "measure": f"the test is {field.replace('_', ' ')} > {threshold} on the "
                       f"sentence's residual stream; {shown}"}
