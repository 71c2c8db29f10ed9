"""The contents manager of ``make lab``: saving a chapter leaves its header as it was.

JupyterLab sends two pieces of session metadata with every save that no jupytext setting
keeps out of the file (its default metadata filter keeps out the rest). The running
kernel's ``kernelspec`` replaces the header's (``display_name: Python 3`` becomes
``Python 3 (ipykernel)``), and ``language_info`` is read before any filter applies: its
``pygments_lexer`` is written after every ``{code-cell}`` directive (``{code-cell}
ipython3``). Here a save of a text notebook keeps the kernelspec of the file on disk (none
if it has none) and drops ``language_info``; everything else, cells and cell metadata
included, is saved as JupyterLab sent it. ``make lab`` passes this class to the server.
"""

from __future__ import annotations

from typing import Any

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from jupytext.async_contentsmanager import build_async_jupytext_contents_manager_class

SESSION_ONLY = ("language_info",)

JupytextContentsManager = build_async_jupytext_contents_manager_class(AsyncLargeFileManager)


class ChapterContentsManager(JupytextContentsManager):
    """Jupytext's contents manager that does not write a session's metadata into a source."""

    async def save(self, model: dict[str, Any], path: str = "") -> dict[str, Any]:
        if model.get("type") == "notebook" and not path.endswith(".ipynb"):
            await self._keep_header(model["content"]["metadata"], path)
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
