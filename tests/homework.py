"""What the homework tests share (not a test module).

The key's answers rounded to float32; every form in which an answer could appear in a
text (a repr, a rounded number, a tuple, SymPy's str, srepr and LaTeX); and what otter
assign keeps of a master notebook for the student.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from typing import Any

import nbformat
import numpy as np
import sympy as sp

from attention_book import exercises
from grading.registry import registry


def in_float32(answer: Any) -> Any:
    """The answer with every float in it rounded to float32 (ints and symbols as they are)."""
    if isinstance(answer, np.ndarray) and answer.dtype.kind == "f":
        return answer.astype(np.float32)
    if isinstance(answer, float | np.floating):
        return np.float32(answer)
    if isinstance(answer, tuple | list):
        return type(answer)(in_float32(a) for a in answer)
    if isinstance(answer, dict):
        return {k: in_float32(v) for k, v in answer.items()}
    return answer


def _plain(value: Any) -> Any:
    """Python's own types in place of numpy's, for the reprs a student's code prints."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | list):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _number_forms(x: float) -> set[str]:
    forms = {repr(x), str(x), repr(np.float32(x)), str(np.float32(x))}
    forms |= {f"{x:.{n}g}" for n in range(2, 11)} | {f"{x:.{n}f}" for n in range(1, 7)}
    fraction = Fraction(x).limit_denominator(100)
    if fraction.denominator > 1 and abs(float(fraction) - x) <= 1e-12 * abs(x):
        forms.add(f"{fraction.numerator}/{fraction.denominator}")
    return forms


def _short(forms: set[str]) -> set[str]:
    """The reprs short enough to be printed whole (a long array shows in its entries)."""
    return {f for f in forms if len(f) <= 300}


def literal_forms(value: Any) -> set[str]:
    """Every text in which ``value``, or a part of it, could be written."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int | np.integer):
        return {str(int(value)), f"{int(value):,}", f"{int(value):_}"}
    if isinstance(value, float | np.floating):
        return _number_forms(float(value))
    if isinstance(value, str):
        return {value, repr(value)}
    if isinstance(value, np.ndarray):
        flat = value.ravel()
        if flat.size <= 4:
            return {repr(flat.tolist()), repr(tuple(flat.tolist()))}.union(
                *(literal_forms(float(x)) for x in flat))
        chosen = {0, 1, 2, flat.size - 1, int(np.abs(flat).argmax())}
        return set().union(*(literal_forms(float(flat[i])) for i in chosen))
    if isinstance(value, dict):
        return _short({repr(_plain(value))}).union(*(literal_forms(v) for v in value.values()))
    if isinstance(value, set | frozenset):
        items = sorted(value, key=repr)  # a set prints in its hashes' order: any order
        orders = itertools.permutations(items) if len(items) <= 4 else (items, items[::-1])
        return {repr(items), repr(tuple(items))} | {"{" + ", ".join(map(repr, order)) + "}"
                                                    for order in orders}
    if isinstance(value, tuple | list):
        return _short({repr(_plain(value)), repr(tuple(_plain(value)))}).union(
            *(literal_forms(v) for v in value))
    if isinstance(value, sp.Basic):
        forms = {str(value), sp.srepr(value), sp.latex(value)}
        if isinstance(value, sp.Equality):
            forms |= {f"{value.lhs} = {value.rhs}", f"{value.lhs} - {value.rhs}"}
        return forms
    return {repr(value)}


def whole_forms(value: Any) -> set[str]:
    """The forms of ``value`` written whole: a tuple's or a dict's repr, not its parts'."""
    if isinstance(value, dict):
        return _short({repr(_plain(value))})
    if isinstance(value, tuple | list):
        return _short({repr(_plain(value)), repr(tuple(_plain(value)))})
    return literal_forms(value)


def digits(form: str) -> int | None:
    """How many significant digits a numeric form holds (None: not a number)."""
    body = form.strip().lstrip("-+")
    if not re.fullmatch(r"[\d,_]*\.?\d*(e[-+]?\d+)?|\d+/\d+", body) or not body:
        return None
    mantissa = re.sub(r"e.*", "", body).replace(",", "").replace("_", "").replace(".", "")
    mantissa = mantissa.replace("/", "")
    return len(mantissa.lstrip("0")) or None


def distinctive(forms: set[str], min_digits: int, min_length: int) -> list[str]:
    """The forms that would not occur in a text by chance: numbers with at least
    ``min_digits`` significant digits, other forms at least ``min_length`` long."""
    chosen = []
    for form in forms:
        n = digits(form)
        if (n is not None and n >= min_digits) or (n is None and len(form) >= min_length):
            chosen.append(form)
    return sorted(chosen)


def occurrences(text: str, forms: list[str]) -> list[str]:
    """The forms that occur in ``text`` as whole tokens."""
    if not forms:
        return []
    either = "|".join(map(re.escape, sorted(forms, key=len, reverse=True)))
    return sorted(set(re.findall(rf"(?<![\w.])(?:{either})(?![\w])", text)))


def right_answer_forms(label: str) -> list[str]:
    """The forms of exercise ``label``'s right answer (the key's) that cannot occur in a
    chapter by chance: the answer written whole (numbers of four significant digits, texts
    of eight characters) and its parts with five digits (a shorter part, such as a model
    width of 8192, is a size the chapter gives)."""
    answers = [registry()[label].reference()]
    answers.append(exercises.read(label, answers[0]))
    whole = set().union(*(whole_forms(a) for a in answers))
    parts = set().union(*(literal_forms(a) for a in answers))
    return sorted(set(distinctive(whole, 4, 8)) | set(distinctive(parts, 5, 10**6)))


def student_view(nb: nbformat.NotebookNode) -> str:
    """What otter assign keeps for the student, found with a plain scan: no raw cell, no
    cell between BEGIN SOLUTION and END SOLUTION or BEGIN TESTS and END TESTS except the
    answer cell, and in it no line between the solution markers."""
    kept, block = [], None
    for cell in nb.cells:
        if cell.cell_type == "raw":
            marker = cell.source.split("\n")[0].strip()
            block = {"# BEGIN SOLUTION": "solution", "# BEGIN TESTS": "tests"}.get(
                marker, None if marker.startswith("# END") else block)
            continue
        if block == "tests" or (block == "solution" and cell.cell_type == "markdown"):
            continue
        lines, inside = [], False
        for line in cell.source.split("\n"):
            if line.startswith("# BEGIN SOLUTION"):
                inside = True
            elif line.startswith("# END SOLUTION"):
                inside = False
            elif not inside:
                lines.append(line)
        kept.append("\n".join(lines))
    return "\n".join(kept)
