"""Nothing a student can import holds the answer key.

A student who installs the book gets the package ``pyproject.toml`` names
(``attention_book*``; the build tooling, ``book_tools``, is the repository's); the key is the
top-level ``grading/`` folder, which only the autograder zips carry. No packaged module
imports it, and importing every one of them leaves it unimported.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import setuptools

from attention_book import exercises

REPO = Path(__file__).resolve().parent.parent
KEY = "grading"


def packaged() -> list[str]:
    find = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"]["find"]
    return setuptools.find_packages(str(REPO), include=find["include"],
                                    exclude=find.get("exclude", ()))


def test_the_key_is_not_packaged():
    packages = packaged()
    assert "attention_book.exercises" in packages
    assert {p.split(".")[0] for p in packages} == {"attention_book"}  # no tooling, no key
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
import attention_book
for mod in pkgutil.walk_packages(attention_book.__path__, "attention_book."):
    importlib.import_module(mod.name)
print(sorted(name for name in sys.modules if name.split(".")[0] == "grading"))
"""


@pytest.mark.slow  # imports every module of the package in a new process
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
