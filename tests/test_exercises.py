"""Exercises a student can check, and the student edition without the solutions.

Every exercise in the book's sources has a registered checker and a title that carries its
difficulty and time; every checker accepts its reference answer, rejects a plausible wrong
one with what is wrong and a hint, and never gives the answer away. The student edition
(``book_tools.student``) removes every solution and puts a checking cell in its place.
"""

from __future__ import annotations

import math
import numbers
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from attention_book import exercises
from book_tools.notebooks import BOOK, chapters
from book_tools.student import (
    EXERCISE_TITLE,
    find_exercises,
    find_solutions,
    generate,
    strip_solutions,
)

REGISTRY = exercises.registry()
LABELS = sorted(REGISTRY)
SOURCES = chapters()
CHECK_CALL = re.compile(r"""exercises\.check\(\s*["']([\w.:-]+)["']\s*,""")


def book_exercises():
    """(source, ExerciseInfo) of every exercise in the book's MyST sources."""
    return [(src, ex) for src in sorted(BOOK.glob("*.md"))
            for ex in find_exercises(src.read_text())]


def revealing_forms(answer) -> list[str]:
    """How the reference answer would look if feedback printed it."""
    forms = {repr(answer)}
    if isinstance(answer, np.ndarray) and answer.size == 1:
        answer = answer.item()
    if isinstance(answer, numbers.Real) and not isinstance(answer, bool):
        forms.add(str(answer))
        if math.isfinite(answer) and float(answer) != int(answer):
            forms |= {f"{answer:.3g}", f"{answer:.4f}"}
    return [f for f in forms if f.strip()]


def reveals(feedback: str, answer) -> list[str]:
    """The forms of the answer that the feedback contains (as whole tokens)."""
    return [form for form in revealing_forms(answer)
            if re.search(rf"(?<![\w.]){re.escape(form)}(?![\w])", feedback)]


# ------------------------------------------------------------------- the checkers


def test_the_book_has_registered_exercises():
    assert REGISTRY, "attention_book.exercises has no registered exercise"


@pytest.mark.parametrize("label", LABELS)
def test_the_reference_answer_is_accepted(label):
    ex = REGISTRY[label]
    result = exercises.check(label, ex.reference())
    assert result.correct, f"{label}: the reference answer is refused: {result.feedback}"


@pytest.mark.parametrize("label", LABELS)
def test_a_wrong_answer_is_rejected_with_a_hint_and_without_the_answer(label):
    ex = REGISTRY[label]
    result = exercises.check(label, ex.wrong())
    assert not result.correct, f"{label}: the wrong answer is accepted"
    assert ex.hint.strip(), f"{label}: no hint registered"
    problem, _, hint = result.feedback.partition(" Hint: ")
    assert problem.strip() and hint.strip() == ex.hint.strip(), (
        f"{label}: feedback must say what is wrong, then the hint: {result.feedback!r}")
    shown = reveals(result.feedback, ex.reference())
    assert not shown, f"{label}: the feedback gives the answer away ({shown}): {result.feedback!r}"


@pytest.mark.parametrize("label", LABELS)
def test_an_empty_answer_is_not_yet_and_not_a_crash(label):
    """The student edition runs its checking cells with ``your_answer = None``."""
    ex = REGISTRY[label]
    result = exercises.check(label, None)
    assert not result.correct, f"{label}: None is accepted as an answer"
    assert not reveals(result.feedback, ex.reference()), result.feedback


@pytest.mark.parametrize("label", LABELS)
def test_the_registration_is_well_formed(label):
    ex = REGISTRY[label]
    assert ex.difficulty in exercises.DIFFICULTIES
    assert isinstance(ex.minutes, int) and 1 <= ex.minutes <= 120, ex.minutes
    assert not reveals(ex.hint, ex.reference()), f"{label}: the hint gives the answer away"


# ------------------------------------------------------- the exercises in the book


def test_every_exercise_in_the_book_has_a_checker_and_a_title_with_difficulty_and_time():
    found = book_exercises()
    assert found, "no {exercise} directive in book/*.md"
    problems = []
    for src, ex in found:
        where = f"{src.name}:{ex.line}"
        if not ex.label:
            problems.append(f"{where}: exercise without :label:")
            continue
        if ex.label not in REGISTRY:
            problems.append(f"{where}: {ex.label} has no checker in attention_book.exercises")
        title = EXERCISE_TITLE.match(ex.title)
        if title is None:
            problems.append(f"{where}: {ex.label}'s title {ex.title!r} does not end in "
                            "'(warm-up|standard|challenging, N min)'")
        elif ex.label in REGISTRY:
            reg = REGISTRY[ex.label]
            if (title["difficulty"], int(title["minutes"])) != (reg.difficulty, reg.minutes):
                problems.append(f"{where}: {ex.label} is titled ({title['difficulty']}, "
                                f"{title['minutes']} min) but registered ({reg.difficulty}, "
                                f"{reg.minutes} min)")
    assert not problems, "\n".join(problems)


def test_exercise_labels_are_unique_and_every_checker_has_its_exercise():
    labels = [ex.label for _, ex in book_exercises()]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    assert not twice, f"exercise labels used twice: {twice}"
    orphans = sorted(set(REGISTRY) - set(labels))
    assert not orphans, f"checkers registered for no exercise in the book: {orphans}"


def test_every_exercise_has_a_folded_solution_that_ends_by_checking_itself():
    problems = []
    for src in SOURCES:
        text = src.read_text()
        labels = [ex.label for ex in find_exercises(text)]
        solutions = find_solutions(text)
        answered = [s.label for s in solutions]
        problems += [f"{src.name}: {label} has no solution"
                     for label in labels if label not in answered]
        for sol in solutions:
            if sol.label not in labels:
                problems.append(f"{src.name}:{sol.start + 1}: solution to {sol.label}, "
                                "which is not an exercise of this chapter")
            head = sol.text.split("\n", 3)
            if sol.text.lstrip("`:").startswith("{solution-start}") and not any(
                    re.match(r"^:class:.*\bdropdown\b", line) for line in head[1:3]):
                problems.append(f"{src.name}:{sol.start + 1}: solution to {sol.label} is not "
                                "folded on the site (:class: dropdown)")
            calls = CHECK_CALL.findall(sol.text)
            if not calls or calls[-1] != sol.label:
                problems.append(f"{src.name}:{sol.start + 1}: the solution to {sol.label} "
                                f"does not end with exercises.check(\"{sol.label}\", ...)")
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------- the student edition

SYNTHETIC = """\
# A chapter

```{code-cell}
x = 1
```

```{exercise} Double it (warm-up, 5 min)
:label: ex-double
Double $x$.
```

```{solution-start} ex-double
:class: dropdown
```
The secret prose of the answer.

```{code-cell}
secret_answer = 2 * x
exercises.check("ex-double", secret_answer)
```

```{solution-end}
```

:::{exercise} Triple it (standard, 10 min)
:label: ex-triple
:::

````{solution} ex-triple
:class: dropdown
Nested code, also secret:
```python
hidden_triple = 3 * x
```
````

Text after the answers stays.
"""


def test_strip_solutions_on_a_synthetic_chapter():
    stripped = strip_solutions(SYNTHETIC)
    for secret in ("secret", "hidden_triple", "{solution", "dropdown"):
        assert secret not in stripped, secret
    for kept in ("x = 1", "Double $x$.", ":label: ex-triple", "Text after the answers stays."):
        assert kept in stripped, kept
    assert CHECK_CALL.findall(stripped) == ["ex-double", "ex-triple"]
    assert stripped.count('your_answer)') == 2
    assert [e.title for e in find_exercises(SYNTHETIC)] == [
        "Double it (warm-up, 5 min)", "Triple it (standard, 10 min)"]


def test_strip_solutions_refuses_a_broken_structure():
    with pytest.raises(ValueError, match="without a solution-end"):
        strip_solutions("```{solution-start} ex-a\n```\nsecret\n")
    with pytest.raises(ValueError, match="without a solution-start"):
        strip_solutions("```{solution-end}\n```\n")
    with pytest.raises(ValueError, match="never closed"):
        strip_solutions("````{solution} ex-a\nsecret\n")


def solution_lines(text: str) -> list[str]:
    """The substantive lines inside the chapter's solutions that appear nowhere else in it
    (found with a plain scan, independently of book_tools.student)."""
    inside, outside, active = [], [], False
    for line in text.splitlines():
        if re.match(r"^(`{3,}|:{3,})\{solution-start\}", line):
            active = True
        if active:
            inside.append(line.strip())
        else:
            outside.append(line.strip())
        if re.match(r"^(`{3,}|:{3,})\{solution-end\}", line):
            active = False
    rest = set(outside)
    return [line for line in inside if len(line) >= 12 and line not in rest
            and not line.startswith(("```", ":::", ":class:", ":label:"))]


@pytest.fixture(scope="module")
def student_edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    generate(out)
    return out


def test_the_student_edition_has_every_chapter_and_a_readme(student_edition):
    names = sorted(p.name for p in student_edition.glob("*.ipynb"))
    assert names == sorted(src.stem + ".ipynb" for src in SOURCES)
    readme = (student_edition / "README.md").read_text()
    assert "exercises.check" in readme
    for _, ex in book_exercises():
        assert ex.label in readme, f"{ex.label} is missing from the student README"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_the_student_edition_holds_no_solution_content(source, student_edition):
    path = student_edition / (source.stem + ".ipynb")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    text = "\n".join(cell.source for cell in nb.cells)
    assert not re.search(r"\{solution(-start|-end)?\}", text)
    leaked = [line for line in solution_lines(source.read_text()) if line in text]
    assert not leaked, f"{source.name}: solution text in the student edition: {leaked[:5]}"
    labels = [ex.label for ex in find_exercises(source.read_text())]
    checks = [cell for cell in nb.cells if cell.cell_type == "code" and CHECK_CALL.search(
        cell.source)]
    assert [CHECK_CALL.search(c.source).group(1) for c in checks] == [
        s.label for s in find_solutions(source.read_text())]
    assert all("your_answer)" in c.source for c in checks), "a check of something else"
    assert set(labels) <= {CHECK_CALL.search(c.source).group(1) for c in checks}


def test_a_checking_cell_that_shows_no_verdict_is_caught():
    from book_tools.student import check_cell, unanswered_checks

    def cell(label: str, shown: str | None) -> nbformat.NotebookNode:
        source = check_cell(label).split("\n", 1)[1].rsplit("```", 1)[0]
        outputs = [] if shown is None else [nbformat.v4.new_output(
            "execute_result", data={"text/markdown": shown}, execution_count=1)]
        return nbformat.v4.new_code_cell(source, outputs=outputs)

    nb = nbformat.v4.new_notebook(cells=[
        cell("ex-a", "**ex-a: not yet.** the answer could not be read. Hint: ..."),
        cell("ex-b", None), nbformat.v4.new_code_cell("x = 1")])
    assert unanswered_checks(nb) == ["ex-b"]
