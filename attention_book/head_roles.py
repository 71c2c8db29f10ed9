"""Roles that published work gives to GPT-2 small heads, as the chapters cite them.

The list lives in ``head_roles.yml`` beside this module (role, bibtex keys, the chapter
that discusses it, the source's method, the heads); ``load_roles`` reads and checks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files

import yaml


@dataclass(frozen=True)
class RoleGroup:
    """Heads one source gives one role."""

    role: str
    cite: tuple[str, ...]   # bibtex keys in references.bib
    chapter: str            # the chapter (book/<chapter>.md) that discusses it
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
