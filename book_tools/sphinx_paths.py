"""Sphinx extension: the instructor's guide's tables of reading paths, built from sources.

``{reading-paths}`` renders one row per path of ``book/reading_paths.yml`` (its sessions,
chapters and exercises, and its times); ``{reading-path} ID`` renders one path chapter by
chapter, with the exercises assigned and a total row. Every time in them is a sum of the
chapters' ``**Time.**`` lines and the exercises' titled minutes
(``book_tools.reading_paths``); the page is read again whenever one of those files changes.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from book_tools.reading_paths import PATHS_FILE, Assignment, ReadingPath, hours, reading_paths

SUMMARY_HEADERS = ("Path", "Sessions", "Chapters", "Exercises", "Reading and running",
                   "Exercises' time", "Total")
DETAIL_HEADERS = ("Session", "Chapter", "Reading and running", "Exercises assigned",
                  "Exercises' time")
HEADING = re.compile(r"^# (.+)$", re.MULTILINE)
logger = logging.getLogger(__name__)


def _cell(content: nodes.Node | str) -> nodes.entry:
    node = nodes.Text(content) if isinstance(content, str) else content
    entry = nodes.entry()
    entry += node if isinstance(node, nodes.paragraph) else nodes.paragraph("", "", node)
    return entry


def _table(headers: tuple[str, ...], rows: list[list[nodes.Node | str]],
           cls: str) -> nodes.table:
    table, group = nodes.table(classes=["reading-paths", cls]), nodes.tgroup(cols=len(headers))
    table += group
    for _ in headers:
        group += nodes.colspec(colwidth=1)
    head, body = nodes.thead(), nodes.tbody()
    for target, cells in ((head, [headers]), (body, rows)):
        for cells_of_row in cells:
            row = nodes.row()
            for c in cells_of_row:
                row += _cell(c)
            target += row
    group += head
    group += body
    return table


def _title_nodes(markdown_title: str) -> list[nodes.Node]:
    """A chapter's title with its $...$ parts as mathematics."""
    parts = markdown_title.split("$")
    return [nodes.math("", p) if i % 2 else nodes.Text(p) for i, p in enumerate(parts) if p]


class chapter_link(nodes.General, nodes.Inline, nodes.Element):
    """A link to a chapter, made when the page is written (``resolve_chapter_links``):
    Sphinx's own doc references show a title as plain text, and these keep its math."""


def _chapter_link(assignment: Assignment) -> nodes.Node:
    source = assignment.chapter.source
    title = HEADING.search(source.read_text())
    text = _title_nodes(title.group(1)) if title else [nodes.Text(source.stem)]
    return chapter_link("", *text, docname=f"book/{source.stem}")


def resolve_chapter_links(app: Sphinx, doctree: nodes.document, fromdoc: str) -> None:
    for link in list(doctree.findall(chapter_link)):
        todoc = link["docname"]
        if todoc not in app.env.found_docs:
            logger.warning(f"{PATHS_FILE.name}: {todoc} is not a page of the book (add it "
                           "to _toc.yml or fix the path's chapter)", location=link)
            link.replace_self(nodes.Text(todoc))
            continue
        link.replace_self(nodes.reference(
            "", "", *link.children, internal=True,
            refuri=app.builder.get_relative_uri(fromdoc, todoc)))


def _exercise_list(assignment: Assignment, fromdoc: str) -> nodes.Node:
    if not assignment.exercises:
        return nodes.Text("none")
    items = nodes.bullet_list()
    for ex in assignment.exercises:
        ref = addnodes.pending_xref("", refdomain="std", reftype="ref", reftarget=ex.label,
                                    refexplicit=True, refdoc=fromdoc)
        ref += nodes.inline("", ex.title)
        items += nodes.list_item("", nodes.paragraph(
            "", "", ref, nodes.Text(f" ({ex.difficulty}, {ex.minutes} min)")))
    return items


def summary_rows(paths: list[ReadingPath]) -> list[list[nodes.Node | str]]:
    return [[nodes.strong("", p.title), str(len(p.sessions)), str(len(p.assignments)),
             str(sum(len(a.exercises) for a in p.assignments)), hours(p.reading),
             hours(p.exercise_minutes), nodes.strong("", hours(p.total))] for p in paths]


def detail_rows(path: ReadingPath, fromdoc: str) -> list[list[nodes.Node | str]]:
    rows: list[list[nodes.Node | str]] = []
    for session in path.sessions:
        for i, a in enumerate(session.assignments):
            rows.append([session.name if i == 0 else "", _chapter_link(a),
                         f"{a.reading} min", _exercise_list(a, fromdoc),
                         f"{a.exercise_minutes} min"])
    rows.append([nodes.strong("", "Total"), "", nodes.strong("", hours(path.reading)), "",
                 nodes.strong("", hours(path.exercise_minutes))])
    return rows


class _PathsDirective(SphinxDirective):
    def paths(self) -> list[ReadingPath]:
        found = reading_paths()
        self.env.note_dependency(str(PATHS_FILE))
        for a in {a.chapter.source for p in found for a in p.assignments}:
            self.env.note_dependency(str(a))
        return found


class ReadingPathsDirective(_PathsDirective):
    """The summary: one row per path."""

    def run(self) -> list[nodes.Node]:
        return [_table(SUMMARY_HEADERS, summary_rows(self.paths()), "reading-paths-summary")]


class ReadingPathDirective(_PathsDirective):
    """One path, chapter by chapter: ``{reading-path} one-week``."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        by_id = {p.id: p for p in self.paths()}
        path = by_id.get(self.arguments[0])
        if path is None:
            raise self.error(f"no reading path '{self.arguments[0]}' in {PATHS_FILE.name}; "
                             f"the paths are {sorted(by_id)}")
        table = _table(DETAIL_HEADERS, detail_rows(path, self.env.docname),
                       "reading-path-detail")
        table["ids"].append(f"path-{path.id}")
        return [table]


def setup(app: Sphinx) -> dict:
    app.add_directive("reading-paths", ReadingPathsDirective)
    app.add_directive("reading-path", ReadingPathDirective)
    app.add_node(chapter_link)
    app.connect("doctree-resolved", resolve_chapter_links)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
