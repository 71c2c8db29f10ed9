"""A chapter as an otter-grader master notebook: its exercises as graded questions.

The chapter's MyST source is cut at its exercises: the text between them becomes plain
notebook cells (Markdown through ``book_tools.myst_to_markdown``, as for the notebooks
published for Colab and Binder); each exercise becomes one otter question, worth one point:

- the prompt: the exercise, as a headed Markdown section;
- the solution block (removed from the student's notebook): the chapter's solution, its
  prose and its code, the code ending in ``answer_<name> = <what it checked>`` where the
  chapter ends it with ``exercises.check(label, <what it checked>)``;
- in the student's notebook, in the solution's place, one answer cell:
  ``answer_<name> = None`` and the form check ``exercises.check(label, answer_<name>)``;
- one hidden test, which calls the answer key, ``grading.grade(label, answer_<name>)``;
  the key is shipped in the autograder zip only (``autograder_files``), the chapter's key
  module alone (``book_tools.assignment.key_files``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
import yaml

from book_tools.myst_to_markdown import Context, convert, reference_list
from book_tools.solutions import OPENING, find_exercises, find_solutions

GRADING_FOLDER = "grading"
v4 = nbformat.v4


def answer_name(label: str) -> str:
    """The variable that holds the answer to exercise ``label`` (``ex-h1-medium`` ->
    ``answer_h1_medium``): one per exercise, since otter tests read the notebook's final
    globals."""
    return "answer_" + re.sub(r"\W", "_", label.removeprefix("ex-"))


@dataclass(frozen=True)
class Piece:
    kind: str                  # "text", "prompt" or "solution"
    text: str
    label: str = ""


def cut(text: str, where: str) -> list[Piece]:
    """The MyST document cut into text, each exercise's prompt and each solution."""
    lines = text.splitlines(keepends=True)
    solutions = {s.label: s for s in find_solutions(text)}
    pieces, last = [], 0
    for ex in find_exercises(text):
        sol = solutions.get(ex.label)
        start = ex.line - 1
        if sol is None or sol.start < start:
            raise ValueError(f"{where}:{ex.line}: exercise {ex.label} is not followed by its "
                             "solution (```{solution-start} " + ex.label + "```)")
        pieces.append(Piece("text", "".join(lines[last:start])))
        pieces.append(Piece("prompt", "".join(lines[start:sol.start]), ex.label))
        pieces.append(Piece("solution", sol.text, ex.label))
        last = sol.end
    pieces.append(Piece("text", "".join(lines[last:])))
    return [p for p in pieces if p.text.strip()]


def solution_body(sol_text: str, label: str, where: str) -> str:
    """The MyST between a solution's ``solution-start`` and ``solution-end`` directives."""
    lines = sol_text.splitlines(keepends=True)
    first = OPENING.match(lines[0])
    if first is None or first.group("name") != "solution-start":
        raise ValueError(f"{where}: the solution of {label} is a one-piece {{solution}} "
                         "directive; write it between solution-start and solution-end, with a "
                         f"code cell that ends in exercises.check(\"{label}\", ...)")
    fence = first.group("fence")
    close = next(i for i in range(1, len(lines))
                 if re.fullmatch(rf"{re.escape(fence[0])}{{{len(fence)},}}\s*", lines[i]))
    end = max(i for i, line in enumerate(lines)
              if (m := OPENING.match(line)) and m.group("name") == "solution-end")
    return "".join(lines[close + 1:end])


def answer_cell(label: str, code: list[str], where: str) -> nbformat.NotebookNode:
    """The solution's code, ending in the answer's assignment, inside otter's solution
    markers, between the student's ``None`` and the form check."""
    source = "\n\n".join(c.rstrip() for c in code)
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body else None
    call = last.value if isinstance(last, ast.Expr) else None
    if not (isinstance(call, ast.Call) and ast.unparse(call.func) == "exercises.check"
            and len(call.args) == 2 and isinstance(call.args[0], ast.Constant)
            and call.args[0].value == label):
        raise ValueError(f"{where}: the solution of {label} does not end with "
                         f"exercises.check(\"{label}\", answer)")
    name = answer_name(label)
    lines = source.splitlines()
    answer = ast.get_source_segment(source, call.args[1])
    body = "\n".join(lines[:last.lineno - 1]).rstrip()
    solution = "\n".join(x for x in (body, f"{name} = {answer}") if x)
    return v4.new_code_cell(
        f"# Exercise {label}: your answer, in the form the exercise asks for, in place of\n"
        "# None (work it out in new cells above). exercises.check checks its form and\n"
        "# names a known mistake, with a hint; your marks come from your teacher's grader.\n"
        f"{name} = None\n"
        "# BEGIN SOLUTION NO PROMPT\n"
        f"{solution}\n"
        "# END SOLUTION\n"
        f'exercises.check("{label}", {name})')


def test_cell(label: str) -> nbformat.NotebookNode:
    """The exercise's hidden otter test (exception-based): the answer key's verdict."""
    name = answer_name(label)
    return v4.new_code_cell(
        "# HIDDEN\n"
        f"def test_{name}({name}):\n"
        f"    from {GRADING_FOLDER} import grade\n"
        f'    grade("{label}", {name})\n\n'
        f"test_{name}({name})")


def _cells(text: str, ctx: Context) -> list[nbformat.NotebookNode]:
    cells = jupytext.reads(text, fmt="md:myst").cells
    for cell in cells:
        if cell.cell_type == "markdown":
            cell.source = convert(cell.source, ctx).strip("\n")
    return [c for c in cells if c.source.strip()]


def question(label: str, prompt: str, solution: str, ctx: Context, where: str
             ) -> list[nbformat.NotebookNode]:
    """The cells of one otter question: prompt, solution block, hidden test."""
    body = _cells(solution_body(solution, label, where), ctx)
    prose = [c for c in body if c.cell_type == "markdown"]
    code = [c.source for c in body if c.cell_type == "code"]
    config = yaml.safe_dump({"name": label, "points": 1}, sort_keys=False)
    return [v4.new_raw_cell("# BEGIN QUESTION\n" + config), *_cells(prompt, ctx),
            v4.new_raw_cell("# BEGIN SOLUTION"), *prose, answer_cell(label, code, where),
            v4.new_raw_cell("# END SOLUTION"), v4.new_raw_cell("# BEGIN TESTS"),
            test_cell(label), v4.new_raw_cell("# END TESTS"),
            v4.new_raw_cell("# END QUESTION")]


def assignment_config(name: str) -> nbformat.NotebookNode:
    """Otter's ASSIGNMENT CONFIG: no otter cells in the student's notebook (students need
    no otter), exception-based tests, the answer key in the autograder only."""
    config = {"name": name, "run_tests": True, "init_cell": False, "check_all_cell": False,
              "export_cell": False, "autograder_files": [GRADING_FOLDER],
              "tests": {"ok_format": False}}
    return v4.new_raw_cell("# ASSIGNMENT CONFIG\n" + yaml.safe_dump(config, sort_keys=False))


def master_notebook(source: Path, ctx: Context) -> nbformat.NotebookNode:
    """The chapter ``source`` as an otter master notebook (one question per exercise)."""
    text = source.read_text()
    cells = [assignment_config(source.stem)]
    for piece in cut(text, source.name):
        if piece.kind == "text":
            cells += _cells(piece.text, ctx)
        elif piece.kind == "prompt":
            prompt = piece.text
        else:
            cells += question(piece.label, prompt, piece.text, ctx, source.name)
    if refs := reference_list(ctx):
        cells.append(v4.new_markdown_cell(refs.strip("\n")))
    nb = v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb
