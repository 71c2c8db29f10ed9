"""What the book's pages define and cite, for rendering MyST outside Sphinx: every label a
cross-reference can point at (targets, labelled directives, equations and figures, read
with markdown-it-py and its MyST plugins) with its page, anchor and link text; each page's
title; and ``references.bib`` read with pybtex into author–year keys and entries."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

DIRECTIVE_INFO = re.compile(r"^\{(?P<name>[\w:-]+)\}\s*(?P<argument>.*?)\s*$")
KINDS = {"prf:proposition": "Proposition", "prf:theorem": "Theorem",
         "prf:observation": "Observation", "prf:lemma": "Lemma",
         "prf:definition": "Definition", "prf:corollary": "Corollary"}


def parser() -> MarkdownIt:
    """A markdown-it parser with the MyST syntax the book's configuration enables."""
    return (MarkdownIt("commonmark").enable("table")
            .use(myst_role_plugin).use(myst_block_plugin).use(colon_fence_plugin)
            .use(dollarmath_plugin, allow_labels=True, allow_space=True, allow_digits=True,
                 double_inline=True)
            .use(amsmath_plugin))


@dataclass(frozen=True)
class Target:
    page: str     # the page's stem, e.g. "03a_qk_form"
    anchor: str   # the id the site gives it
    text: str     # what a link to it shows


@dataclass(frozen=True)
class Directive:
    name: str
    argument: str
    options: dict[str, str]
    body: str


def directive(token: Token) -> Directive | None:
    """The directive a fence token opens, or None for a plain code fence."""
    m = DIRECTIVE_INFO.match(token.info)
    if token.type not in ("fence", "colon_fence") or m is None:
        return None
    lines, options = token.content.splitlines(keepends=True), {}
    while lines and (opt := re.match(r"^:([\w-]+):\s*(.*?)\s*$", lines[0])):
        options[opt.group(1)] = opt.group(2)
        lines.pop(0)
    return Directive(m.group("name"), m.group("argument"), options, "".join(lines))


def _heading_after(tokens: list[Token], i: int) -> str:
    for t in tokens[i + 1:i + 3]:
        if t.type == "inline":
            return t.content
    return ""


def _page_targets(text: str, page: str, md: MarkdownIt, numbers: dict[str, int]) -> dict:
    found: dict[str, Target] = {}
    tokens = md.parse(text)
    for i, t in enumerate(tokens):
        if t.type == "myst_target":
            found[t.content] = Target(page, t.content, _heading_after(tokens, i) or t.content)
        elif t.type == "math_block_label":
            numbers["equation"] = numbers.get("equation", 0) + 1
            found[t.info] = Target(page, f"equation-{t.info}", f"({numbers['equation']})")
        elif (d := directive(t)) is not None:
            if d.name == "code-cell":
                found |= _figure_target(d.body, page, numbers)
                continue
            if "label" in d.options:
                kind = KINDS.get(d.name, d.name.removeprefix("prf:").capitalize())
                found[d.options["label"]] = Target(page, d.options["label"],
                                                   d.argument or kind)
            found |= _page_targets(d.body, page, md, numbers)
    return found


def _figure_target(body: str, page: str, numbers: dict[str, int]) -> dict[str, Target]:
    """A code cell whose metadata names a figure (myst-nb's ``figure: name:``)."""
    m = re.match(r"^---\n(.*?)\n---\n", body, re.DOTALL)
    meta = (yaml.safe_load(m.group(1)) or {}) if m else {}
    name = ((meta.get("mystnb") or {}).get("figure") or {}).get("name")
    if not name:
        return {}
    numbers["figure"] = numbers.get("figure", 0) + 1
    return {name: Target(page, name, f"Fig. {numbers['figure']}")}


def targets(book: Path) -> dict[str, Target]:
    """Every label the pages of ``book`` define, with where it is and how a link reads."""
    md, found = parser(), {}
    for src in sorted(book.glob("*.md")):
        found |= _page_targets(src.read_text(), src.stem, md, {})
    return found


def page_titles(book: Path) -> dict[str, str]:
    """Each page's title: its first level-1 heading."""
    out = {}
    for src in sorted(book.glob("*.md")):
        m = re.search(r"^# (.+)$", src.read_text(), re.MULTILINE)
        out[src.stem] = m.group(1).strip() if m else src.stem
    return out


@dataclass(frozen=True)
class Citation:
    short: str   # "Vaswani et al., 2017"
    entry: str   # the formatted reference, Markdown


def _surnames(persons: list) -> str:
    names = [" ".join(p.last_names) for p in persons]
    if len(names) > 2:
        return f"{names[0]} et al."
    return " and ".join(names)


LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?P<url>[^)\s]+)\)")


def _autolinked(markdown: str) -> str:
    """pybtex's Markdown with each link that shows its own address as an autolink,
    ``<url>``: pybtex escapes the address it shows (``arxiv\\.org``), and nbconvert's
    renderer (the slides) prints those backslashes inside a link's text."""
    return LINK.sub(lambda m: f"<{m['url']}>" if m["text"].replace("\\", "") == m["url"]
                    else m[0], markdown)


def citations(bibfile: Path) -> dict[str, Citation]:
    """Author–year keys and formatted entries of every reference in ``bibfile``."""
    from pybtex.database import parse_file
    from pybtex.style.formatting.plain import Style

    data = parse_file(str(bibfile))
    formatted = {e.key: _autolinked(e.text.render_as("markdown"))
                 for e in Style().format_entries(data.entries.values())}
    out = {}
    for key, entry in data.entries.items():
        persons = entry.persons.get("author") or entry.persons.get("editor") or []
        who = _surnames(persons) or entry.fields.get("organization", key)
        out[key] = Citation(f"{who}, {entry.fields.get('year', 'n.d.')}", formatted[key])
    return out
