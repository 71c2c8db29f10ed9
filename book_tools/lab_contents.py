"""The contents manager of ``make lab``: a chapter opens as a notebook that reads as the site
does, and saving it leaves its source as it was. A save keeps the header's ``kernelspec`` as
on disk and drops ``language_info`` (session values no jupytext setting keeps out). As
JupyterLab's MyST renderer resolves neither citations, references to other pages nor
``literalinclude``, each such role opens as a link to the published site (the role kept as
its title) and each listing as the code it includes, and a save turns them back."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from jupytext.async_contentsmanager import build_async_jupytext_contents_manager_class

SESSION_ONLY = ("language_info",)
REPO = Path(__file__).resolve().parent.parent
ROLE = re.compile(r"\{(?P<name>cite(?::\w+)?|ref|numref|eq|prf:ref|doc)\}`(?P<content>[^`]+)`")
# A link made from a role: its text, the site's URL, and the role itself as the title.
LINKED = re.compile(r'\[[^\]\n]*\]\([^\s)]+ "(?P<role>\{[a-z:]+\}`[^`"]+`)"\)')
MARKDOWN_LINK = re.compile(r"^\[(?P<text>[^\]\n]*)\]\((?P<url>[^\s)]+)\)$")
LISTING = re.compile(r"^```\{literalinclude\} (?P<path>\S+)\n(?P<options>(?::[\w-]+:.*\n)*)```$",
                     re.M)
SHOWN = re.compile(r"^```python\n# listing: \{literalinclude\} (?P<path>\S+)(?P<options>.*)\n"
                   r"(?:.*\n)*?```$", re.M)


def listings_as_code(text: str, page: Path) -> str:
    """``text`` with each ``literalinclude`` of a Python object shown as that object's code,
    under a first line that names the directive (and its options, in order)."""
    from book_tools.myst_to_markdown import pyobject

    def shown(m: re.Match) -> str:
        options = re.findall(r"^:([\w-]+):\s*(.*)$", m["options"], re.M)
        name, source = dict(options).get("pyobject"), (page.parent / m["path"]).resolve()
        code = pyobject(source, name) if name and source.is_file() else None
        if code is None:
            return m.group(0)
        opts = "".join(f" :{k}: {v}" for k, v in options)
        return f"```python\n# listing: {{literalinclude}} {m['path']}{opts}\n{code}\n```"

    return LISTING.sub(shown, text)


def code_as_listings(text: str) -> str:
    """The inverse of ``listings_as_code``: each shown listing is its directive again (an
    edit made to the shown code is not saved: the package's file is the source)."""
    def directive(m: re.Match) -> str:
        options = re.findall(r" :([\w-]+): (\S+(?: \S+)*?)(?= :[\w-]+: |$)", m["options"])
        return f"```{{literalinclude}} {m['path']}\n" + \
            "".join(f":{k}: {v}\n" for k, v in options) + "```"

    return SHOWN.sub(directive, text)


def roles_as_links(text: str, page: Path) -> str:
    """``text`` (a Markdown cell of ``page``) with each citation and cross-reference shown
    as a link to the published site; a role that cannot be shown so stays as it is."""
    from book_tools.myst_to_markdown import UnconvertedMyST, role
    from book_tools.plain_notebook import book_context

    ctx = book_context(page, REPO)

    def link(m: re.Match) -> str:
        original = m.group(0)
        try:
            shown = role(m["name"], m["content"], ctx)
        except UnconvertedMyST:
            return original
        if m["name"].startswith("cite"):
            shown = f"[{shown}]({ctx.page_url('references')})"
        parts = MARKDOWN_LINK.match(shown)
        made = f'[{parts["text"]}]({parts["url"]} "{original}")' if parts else original
        return made if links_as_roles(made) == original else original

    return ROLE.sub(link, text)


def links_as_roles(text: str) -> str:
    """The inverse of ``roles_as_links``: every link it made is its role again."""
    return LINKED.sub(lambda m: m["role"], text)


JupytextContentsManager = build_async_jupytext_contents_manager_class(AsyncLargeFileManager)


class ChapterContentsManager(JupytextContentsManager):
    """Jupytext's contents manager that does not write a session's metadata into a source."""

    async def get(self, path: str, content: bool = True, type: str | None = None,  # noqa: A002
                  format: str | None = None, **kwargs: Any) -> dict[str, Any]:  # noqa: A002
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        page = path.strip("/")  # the server asks for "/book/x.md", a caller for "book/x.md"
        if model.get("type") == "notebook" and model.get("content") is not None \
                and page.startswith("book/") and page.endswith(".md"):
            for cell in model["content"].cells:
                if cell.cell_type == "markdown":
                    cell.source = listings_as_code(roles_as_links(cell.source, REPO / page),
                                                   REPO / page)
        return model

    async def save(self, model: dict[str, Any], path: str = "") -> dict[str, Any]:
        if model.get("type") == "notebook" and not path.endswith(".ipynb"):
            await self._keep_header(model["content"]["metadata"], path)
            for cell in model["content"]["cells"]:
                if cell["cell_type"] == "markdown":
                    text = "".join(cell["source"])  # (a string, or its lines)
                    cell["source"] = code_as_listings(links_as_roles(text))
        return await super().save(model, path)

    async def _keep_header(self, metadata: dict[str, Any], path: str) -> None:
        for key in SESSION_ONLY:
            metadata.pop(key, None)
        if not await self.file_exists(path):
            return
        on_disk = (await self.get(path, content=True, type="notebook"))["content"].metadata
        if "kernelspec" in on_disk:
            metadata["kernelspec"] = on_disk["kernelspec"]
        else:
            metadata.pop("kernelspec", None)
