"""Sphinx extension: the instructor's guide's tables of reading paths (``book_tools.course``).

``{reading-paths}`` renders one row per path of ``book/reading_paths.yml``; ``{reading-path}
ID`` one path, chapter by chapter, with a total row. Each table is a MyST ``list-table``
parsed as the page's own Markdown, read again whenever a file it sums changes."""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from book_tools.course import PATHS_FILE, ReadingPath, hours, reading_paths
from book_tools.myst_index import page_titles
from book_tools.notebooks import BOOK

SUMMARY = ("Path", "Sessions", "Chapters", "Exercises", "Reading and running",
           "Exercises' time", "Total")
DETAIL = ("Session", "Chapter", "Reading and running", "Exercises assigned",
          "Exercises' time")


def list_table(rows: list[list[str]], cls: str, name: str = "") -> str:
    """A MyST list-table: the first row is the header; a cell is Markdown, lines indented."""
    body = "".join("* " + "".join(
        ("- " if i == 0 else "  - ") + (cell.replace("\n", "\n    ") or "&nbsp;") + "\n"
        for i, cell in enumerate(row)) for row in rows)
    return (f"```{{list-table}}\n:header-rows: 1\n:class: reading-paths {cls}\n"
            + (f":name: {name}\n" if name else "") + "\n" + body + "```\n")


def summary_rows(paths: list[ReadingPath]) -> list[list[str]]:
    return [list(SUMMARY)] + [
        [f"**{p.title}**", str(len(p.sessions)), str(len(p.assignments)),
         str(sum(len(a.exercises) for a in p.assignments)), hours(p.reading),
         hours(p.exercise_minutes), f"**{hours(p.total)}**"] for p in paths]


def detail_rows(path: ReadingPath) -> list[list[str]]:
    rows, last, titles = [list(DETAIL)], None, page_titles(BOOK)
    for a in path.assignments:
        exercises = "\n".join(f"- {{ref}}`{ex.title} <{ex.label}>` ({ex.difficulty}, "
                              f"{ex.minutes} min)" for ex in a.exercises) or "none"
        rows.append(["" if a.session == last else a.session,
                     f"[{titles[a.chapter.source.stem]}]({a.chapter.source.name})",
                     f"{a.reading} min", exercises,
                     f"{a.exercise_minutes} min"])
        last = a.session
    return rows + [["**Total**", "", f"**{hours(path.reading)}**", "",
                    f"**{hours(path.exercise_minutes)}**"]]


class ReadingPaths(SphinxDirective):
    """``{reading-paths}``: one row per path; ``{reading-path} ID``: that path in detail."""

    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        paths = reading_paths()
        for source in {PATHS_FILE, *(a.chapter.source for p in paths for a in p.assignments)}:
            self.env.note_dependency(str(source))
        if self.name == "reading-paths":
            return self.parse_text_to_nodes(list_table(summary_rows(paths),
                                                       "reading-paths-summary"))
        by_id = {p.id: p for p in paths}
        if not self.arguments or self.arguments[0] not in by_id:
            raise self.error(f"no reading path {self.arguments} in {PATHS_FILE.name}; the "
                             f"paths are {sorted(by_id)}")
        path = by_id[self.arguments[0]]
        return self.parse_text_to_nodes(list_table(detail_rows(path), "reading-path-detail",
                                                   f"path-{path.id}"))


def setup(app: Sphinx) -> dict:
    app.add_directive("reading-paths", ReadingPaths)
    app.add_directive("reading-path", ReadingPaths)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
