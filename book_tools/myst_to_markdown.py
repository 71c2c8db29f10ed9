"""MyST Markdown turned into plain notebook Markdown, for the notebooks read outside the site
(Colab, Binder, a download, plain Jupyter), parsed with markdown-it-py and the MyST plugins
the book's configuration enables. Propositions and proofs become labelled quoted blocks,
exercises headed sections, admonitions quoted blocks; ``{cite}`` author–year (the references
listed at the notebook's end); ``{ref}``, ``{doc}``, ``{eq}``, ``{numref}`` and
``{prf:ref}`` links to the published page; targets HTML anchors; labelled equations
``\\tag``; ``{literalinclude}`` the code it includes. A construct with no rule is an error
that names it, never left raw.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it.token import Token

from book_tools.myst_index import KINDS, Citation, Directive, Target, directive, parser

ROLE_TARGET = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
ADMONITIONS = ("note", "tip", "important", "warning", "caution", "attention", "hint",
               "seealso", "danger", "error")


@dataclass
class Context:
    """What a conversion needs to know about the book, and what it finds while converting."""
    site: str                        # the published site's address, ending in "/"
    page: str                        # the stem of the page being converted
    source: Path                     # its file (literalinclude paths are relative to it)
    targets: dict[str, Target]
    titles: dict[str, str]           # page stem -> title
    citations: dict[str, Citation]
    cited: list[str] = field(default_factory=list)   # keys cited so far, in order

    def page_url(self, page: str) -> str:
        return f"{self.site}book/{page}.html"


class UnconvertedMyST(ValueError):
    """A MyST construct with no plain-Markdown rule."""


def _quote(text: str) -> str:
    return "\n".join("> " + line if line.strip() else ">" for line in text.strip().split("\n"))


def _anchor(label: str | None) -> str:
    return f'<a id="{label}"></a>\n' if label else ""


def _split_target(content: str) -> tuple[str, str]:
    m = ROLE_TARGET.match(content)
    return (m.group("text"), m.group("target").strip()) if m else ("", content.strip())


def _cite(content: str, ctx: Context) -> str:
    shorts = []
    for key in (k.strip() for k in content.split(",")):
        if key not in ctx.citations:
            raise UnconvertedMyST(f"{ctx.page}: {{cite}} of {key!r}, which references.bib "
                                  "does not hold")
        if key not in ctx.cited:
            ctx.cited.append(key)
        shorts.append(ctx.citations[key].short)
    return "(" + "; ".join(shorts) + ")"


def _link_to_label(name: str, content: str, ctx: Context) -> str:
    text, label = _split_target(" ".join(content.split()))
    target = ctx.targets.get(label)
    if target is None:
        raise UnconvertedMyST(f"{ctx.page}: {{{name}}} to {label!r}, which no page defines")
    return f"[{text or target.text}]({ctx.page_url(target.page)}#{target.anchor})"


def _doc(content: str, ctx: Context) -> str:
    text, path = _split_target(content)
    page = Path(path).name.removesuffix(".md")
    if page not in ctx.titles:
        raise UnconvertedMyST(f"{ctx.page}: {{doc}} to {path!r}, which is not a page of book/")
    return f"[{text or ctx.titles[page]}]({ctx.page_url(page)})"


def role(name: str, content: str, ctx: Context) -> str:
    """The plain Markdown of one MyST role."""
    if name == "cite" or name.startswith("cite:"):
        return _cite(content, ctx)
    if name in ("ref", "numref", "eq", "prf:ref", "label"):
        return _link_to_label(name, content, ctx)
    if name == "doc":
        return _doc(content, ctx)
    if name in ("math",):
        return f"${content}$"
    raise UnconvertedMyST(f"{ctx.page}: the role {{{name}}} has no plain-Markdown rule "
                          "(add one in book_tools.myst_to_markdown)")


def _roles_in(tokens: list[Token]) -> list[Token]:
    out = []
    for t in tokens:
        if t.type == "myst_role":
            out.append(t)
        out += _roles_in(t.children or [])
    return out


def replace_roles(text: str, roles: list[Token], ctx: Context) -> str:
    """``text`` with each of the parsed ``roles``, in order, replaced by its Markdown."""
    out, pos = [], 0
    for r in roles:
        name = r.meta["name"]
        content = r"\s+".join(re.escape(part) for part in r.content.split())
        literal = re.compile(r"\{" + re.escape(name) + r"\}(`+)\s*" + content + r"\s*\1")
        m = literal.search(text, pos)
        if m is None:
            raise UnconvertedMyST(f"{ctx.page}: the role {{{name}}}`{r.content}` was parsed but "
                                  "not found in its text")
        out += [text[pos:m.start()], role(name, r.content, ctx)]
        pos = m.end()
    return "".join(out) + text[pos:]


def pyobject(path: Path, name: str) -> str | None:
    """The source of the function or class ``name`` in ``path``, its decorators included."""
    code = path.read_text()
    node = next((n for n in ast.walk(ast.parse(code)) if getattr(n, "name", None) == name
                 and isinstance(n, ast.FunctionDef | ast.ClassDef)), None)
    if node is None:
        return None
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return "\n".join(code.splitlines()[first - 1:node.end_lineno])


def _literalinclude(d: Directive, ctx: Context) -> str:
    path = (ctx.source.parent / d.argument).resolve()
    code = pyobject(path, d.options["pyobject"]) if "pyobject" in d.options else \
        path.read_text()
    if code is None:
        raise UnconvertedMyST(f"{path} has no function or class {d.options['pyobject']!r}")
    return f"```{d.options.get('language', 'python')}\n{code.rstrip()}\n```"


def convert_directive(d: Directive, ctx: Context) -> str:
    """The plain Markdown of one MyST directive (its body converted too)."""
    body = convert(d.body, ctx).strip() if d.name != "literalinclude" else ""
    label = d.options.get("label")
    if d.name in KINDS:
        title = f" ({d.argument})" if d.argument else ""
        return _anchor(label) + _quote(f"**{KINDS[d.name]}{title}.** {body}")
    if d.name == "prf:proof":
        return _anchor(label) + _quote(f"*Proof.* {body} ∎")
    if d.name in ("exercise", "exercise-start"):
        return f"{_anchor(label)}#### Exercise: {d.argument}\n\n{body}"
    if d.name == "admonition":
        return _quote(f"**{d.argument}**\n\n{body}")
    if d.name in ADMONITIONS:
        return _quote(f"**{d.name.capitalize()}.** {body}")
    if d.name == "literalinclude":
        return _literalinclude(d, ctx)
    if d.name == "bibliography":
        return ""  # the notebook ends with the references it cites
    raise UnconvertedMyST(f"{ctx.page}: the directive {{{d.name}}} has no plain-Markdown rule "
                          "(add one in book_tools.myst_to_markdown)")


def _blocks(tokens: list[Token]) -> list[tuple[Token, list[Token]]]:
    """The top-level blocks: each opening token with the tokens inside it."""
    blocks: list[tuple[Token, list[Token]]] = []
    for t in tokens:
        if t.level == 0 and t.map is not None:
            blocks.append((t, []))
        elif blocks:
            blocks[-1][1].append(t)
    return blocks


def convert(text: str, ctx: Context) -> str:
    """A MyST Markdown text as plain notebook Markdown."""
    lines = text.splitlines(keepends=True)
    out, last = [], 0
    for opening, inside in _blocks(parser().parse(text)):
        start, end = opening.map
        out.append("".join(lines[last:start]))
        segment = "".join(lines[start:end])
        if opening.type == "myst_target":
            out.append(_anchor(opening.content))
        elif opening.type == "myst_line_comment":
            pass
        elif opening.type == "math_block_label":
            n = ctx.targets[opening.info].text.strip("()")
            out.append(f"$$\n{opening.content.strip()}\n\\tag{{{n}}}\n$$\n")
        elif (d := directive(opening)) is not None:
            out.append(convert_directive(d, ctx).rstrip("\n") + "\n")
        else:
            out.append(replace_roles(segment, _roles_in([opening, *inside]), ctx))
        last = end
    out.append("".join(lines[last:]))
    return "".join(out)


def reference_list(ctx: Context) -> str:
    """The Markdown list of the references the converted cells cited, in citing order."""
    if not ctx.cited:
        return ""
    items = "\n".join(f"- **{ctx.citations[k].short}.** {ctx.citations[k].entry}"
                      for k in ctx.cited)
    return f"## References\n\n{items}\n"


def remaining_myst(text: str) -> list[str]:
    """The MyST constructs a Markdown text still holds: directive fences, roles, targets."""
    found = []
    for t in parser().parse(text):
        if directive(t) is not None:
            found.append(f"directive {t.info.split()[0]}")
        elif t.type in ("myst_target", "myst_line_comment", "math_block_label"):
            found.append(f"{t.type} {t.content or t.info}")
        found += [f"role {{{r.meta['name']}}}" for r in _roles_in(t.children or [])]
    return found
