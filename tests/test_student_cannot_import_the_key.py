"""Nothing a student can import holds the answer key, or any right answer.

A student who installs the book gets the packages ``pyproject.toml`` names; the key is the
top-level ``grading/`` folder, which only the autograder zips carry. No packaged module
imports it, and importing every one of them leaves it unimported. Each exercise's right
answer, computed with the key, is written in no file of the package in any form it could
take, is returned by no function of the student's check, and is not near any stored
fingerprint of a mistake (``tests/test_assignment.py`` and ``tests/test_plain_notebooks.py``
search the student's and the published notebooks).
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
import setuptools
from homework import distinctive, in_float32, literal_forms, occurrences

from attention_book import exercises
from attention_book.exercises.catalogue import CATALOGUE
from attention_book.exercises.fingerprint import digests
from attention_book.exercises.fingerprints import DIGESTS
from attention_book.exercises.mistakes import Known

REPO = Path(__file__).resolve().parent.parent
KEY = "grading"


def packaged() -> list[str]:
    find = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"]["find"]
    return setuptools.find_packages(str(REPO), include=find["include"],
                                    exclude=find.get("exclude", ()))


def test_the_key_is_not_packaged():
    packages = packaged()
    assert "attention_book.exercises" in packages and "book_tools" in packages
    assert not [p for p in packages if p.split(".")[0] == KEY]
    assert (REPO / KEY / "keys").is_dir()


def test_no_packaged_module_imports_the_key():
    importers = []
    for package in packaged():
        for path in (REPO / package.replace(".", "/")).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(n.split(".")[0] == KEY for n in names):
                    importers.append(str(path.relative_to(REPO)))
    assert not importers, f"packaged modules that import the key: {importers}"


IMPORT_ALL = """
import importlib, pkgutil, sys
import attention_book, book_tools
for package in (attention_book, book_tools):
    for mod in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(mod.name)
print(sorted(name for name in sys.modules if name.split(".")[0] == "grading"))
"""


def test_importing_everything_a_student_can_import_leaves_the_key_unimported():
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]", done.stdout


def test_the_student_check_carries_no_reference_answer():
    assert not hasattr(exercises, "registry")
    result = exercises.check("ex-h3-share", 0.5)
    assert not hasattr(result, "reference") and set(vars(result)) == {
        "label", "status", "feedback"}


# ------------------------------------- no right answer where a student can read or call it

PACKAGE = REPO / "attention_book"
EXERCISES = PACKAGE / "exercises"


def right_answers() -> dict[str, list]:
    """Each exercise's right answer as the key computes it and as its form reads it."""
    from grading.registry import registry

    found = {}
    for label, key in registry().items():
        answer = key.reference()
        found[label] = [answer, exercises.read(label, answer)]
    return found


RIGHT = right_answers()


@functools.cache
def package_files() -> dict[Path, str]:
    """Every file of the reader's package that is text: code, data, fingerprints."""
    files = {}
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            try:
                files[path] = path.read_text()
            except UnicodeDecodeError:
                continue
    return files


@pytest.mark.parametrize("label", sorted(RIGHT))
def test_no_right_answer_is_written_in_the_package(label):
    """The check's own package holds no text of five characters and no number of three
    significant digits (four for a part of an answer: a head width of 128 is given by the
    exercise) that writes the answer in any form; the rest of the package none with five
    digits or eight characters (shorter ones occur by chance)."""
    forms = set().union(*(literal_forms(a) for a in RIGHT[label]))
    scalar = isinstance(RIGHT[label][1], int | float)
    near, far = distinctive(forms, 3 if scalar else 4, 5), distinctive(forms, 5, 8)
    found = [(path.relative_to(REPO), hits) for path, text in package_files().items()
             if (hits := occurrences(text, near if EXERCISES in path.parents else far))]
    assert not found, f"{label}: the right answer is written in {found}"


def numbers(value) -> np.ndarray | None:
    """The numbers of an answer, flattened in order (None: not numeric)."""
    if isinstance(value, dict):
        value = [value[k] for k in sorted(value, key=repr)]
    if isinstance(value, list | tuple):
        parts = [numbers(v) for v in value]
        return None if any(p is None for p in parts) else np.concatenate(parts or [[]])
    try:
        return np.asarray(value, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        return None


def same_up_to_a_step(got, right) -> bool:
    """Whether ``got`` is ``right``, or ``right`` scaled, negated, transposed, reversed or
    sorted: what a reviewer would try on a value the package returns."""
    r, g = numbers(right), numbers(got)
    candidates = [r, np.sort(r), r[::-1]]
    if isinstance(right, np.ndarray) and right.ndim == 2:
        candidates.append(right.T.ravel())
    for c in candidates:
        if g is None or c.shape != g.shape or not c.size:
            continue
        for factor in (1, -1, 2, 0.5, 4, 0.25):
            if np.abs(g - factor * c).max() <= 1e-3 * max(np.abs(c).max(), 1e-12):
                return True
    return False


def test_no_function_of_the_students_check_returns_a_right_answer():
    """Every function the check's package defines that can be called without arguments
    (the mistakes computed at check time among them) is called, and what it returns is
    compared with every right answer, up to a scale, a sign, a transpose or an order."""
    import attention_book.exercises as package

    called = []
    for mod in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(mod.name)
        for name, func in vars(module).items():
            if not (inspect.isfunction(func) and func.__module__ == module.__name__):
                continue
            if any(p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                   for p in inspect.signature(func).parameters.values()):
                continue
            got = func()
            called.append(name)
            hits = [label for label, (_, right) in RIGHT.items()
                    if numbers(right) is not None and same_up_to_a_step(got, right)]
            assert not hits, f"{mod.name}.{name}() returns the answer of {hits}"
    assert {"_layer5_without_layernorm", "_first_head_keys_distance"} <= set(called), called


def test_no_stored_fingerprint_is_near_a_right_answer():
    from grading.registry import registry

    keys = registry()
    for label, exercise in CATALOGUE.items():
        answers = [RIGHT[label][0]] + ([in_float32(RIGHT[label][0])]
                                       if keys[label].float32 else [])
        for mistake in exercise.mistakes:
            if isinstance(mistake, Known):
                for answer in answers:
                    part = mistake.of(exercise.form.read(answer, ranges=False))
                    assert not digests(label, part) & DIGESTS[label, mistake.name], \
                        f"{label}: {mistake.name}'s fingerprint is the right answer's"


def test_the_search_finds_an_answer_planted_in_a_text():
    """The searches above are not vacuous: each answer, printed as a student's code would
    print it (its repr, or a part's), is found in a text that holds it."""
    for label, (_, read) in RIGHT.items():
        forms = distinctive(literal_forms(read), 1, 1)
        printed = repr(read) if len(repr(read)) <= 300 else forms[0]
        assert occurrences(f"print: {printed}\n", forms), label
