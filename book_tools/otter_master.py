"""A chapter as an otter-grader master notebook: each exercise one question, one point.

The text between exercises becomes plain notebook cells (``book_tools.plain_notebook``).
A question holds the prompt; the solution block (removed from the student's notebook), its
code ending in ``answer_<name> = <what it checked>`` where the chapter ends it with
``exercises.check(label, <what it checked>)``, and in its place for the student
``answer_<name> = None`` and that form check; and a hidden test that calls the answer key,
which only the autograder zip ships (``book_tools.assignment.key_files``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jupytext
import nbformat
import yaml

from book_tools.myst_to_markdown import Context, reference_list
from book_tools.plain_notebook import plain_cells
from book_tools.solutions import directives, find_exercises, find_solutions

GRADING_FOLDER = "grading"
v4 = nbformat.v4


def answer_name(label: str) -> str:
    """``ex-h1-medium`` -> ``answer_h1_medium``: one per exercise (otter's tests read the
    notebook's final globals)."""
    return "answer_" + re.sub(r"\W", "_", label.removeprefix("ex-"))


def cut(text: str, where: str) -> tuple[list[tuple[str, str, str, str]], str]:
    """The MyST document cut at its exercises: (text before, label, prompt, solution) of
    each, and the text after the last."""
    lines = text.splitlines(keepends=True)
    solutions = {s.label: s for s in find_solutions(text)}
    pieces, last = [], 0
    for ex in find_exercises(text):
        sol, start = solutions.get(ex.label), ex.line - 1
        if sol is None or sol.start < start:
            raise ValueError(f"{where}:{ex.line}: exercise {ex.label} is not followed by its "
                             "solution (```{solution-start} " + ex.label + "```)")
        pieces.append(("".join(lines[last:start]), ex.label, "".join(lines[start:sol.start]),
                       sol.text))
        last = sol.end
    return pieces, "".join(lines[last:])


def solution_body(sol_text: str, label: str, where: str) -> str:
    """The MyST between a solution's ``solution-start`` and ``solution-end`` directives."""
    found = list(directives(sol_text))
    if found[0][0].name != "solution-start":
        raise ValueError(f"{where}: the solution of {label} is a one-piece {{solution}} "
                         "directive; write it between solution-start and solution-end, with a "
                         f"code cell that ends in exercises.check(\"{label}\", ...)")
    return "".join(sol_text.splitlines(keepends=True)[found[0][2]:found[-1][1]])


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
    return plain_cells(jupytext.reads(text, fmt="md:myst").cells, ctx)


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
    pieces, rest = cut(source.read_text(), source.name)
    cells = [assignment_config(source.stem)]
    for before, label, prompt, solution in pieces:
        cells += [*_cells(before, ctx), *question(label, prompt, solution, ctx, source.name)]
    cells += _cells(rest, ctx)
    if refs := reference_list(ctx):
        cells.append(v4.new_markdown_cell(refs.strip("\n")))
    nb = v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    return nb
