"""attention_book has no import cycle, and never imports book_tools (the build tooling).

The graph is read from the source with ``ast``: every import, at module level or inside a
function (a deferred import still closes a cycle when it runs), absolute or relative, and
``importlib.import_module("...")`` with a literal name. Importing ``a.b.c`` also runs the
``__init__`` of the package ``a.b``, so that edge is drawn too, unless the importer lives
inside ``a.b`` (its package is then already being imported).
"""

import ast
import graphlib
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "attention_book"
TOOLING = "book_tools"


def modules(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> source file, for every .py under root/package."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_package(name: str, files: dict[str, Path]) -> bool:
    return name in files and files[name].name == "__init__.py"


def _imported_names(tree: ast.AST, name: str, files: dict[str, Path]) -> list[str]:
    """Every module name an importer's source imports (resolved, possibly outside files)."""
    here = name if _is_package(name, files) else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")[:len(here.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            # 'from pkg import mod' imports the module pkg.mod; 'from mod import name', mod
            out += [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base
                    for a in node.names]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(
                node.func, "id", "")) in ("import_module", "__import__") and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            out.append(node.args[0].value)
    return out


def _known(target: str, files: dict[str, Path]) -> str | None:
    """The module of files that an imported name is (its longest known prefix)."""
    parts = target.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in files:
            return ".".join(parts[:n])
    return None


def import_graph(root: Path, package: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(edges between the package's modules, every outside top-level name each imports)."""
    files = modules(root, package)
    graph: dict[str, set[str]] = {name: set() for name in files}
    outside: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for target in _imported_names(ast.parse(path.read_text()), name, files):
            known = _known(target, files)
            if known is None:
                outside[name].add(target.split(".")[0])
                continue
            parts = known.split(".")
            for n in range(2, len(parts) + 1):  # the module and the packages it is in
                dep = ".".join(parts[:n])
                if dep != name and not name.startswith(dep + "."):
                    graph[name].add(dep)
    return graph, outside


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as e:
        return e.args[1]
    return None


def test_attention_book_has_no_import_cycle():
    graph, _ = import_graph(REPO, PACKAGE)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in attention_book: " + " -> ".join(cycle)


def test_attention_book_never_imports_book_tools():
    _, outside = import_graph(REPO, PACKAGE)
    importers = sorted(name for name, names in outside.items() if TOOLING in names)
    assert not importers, f"{TOOLING} is build tooling; these modules import it: {importers}"


def test_the_graph_sees_the_imports_it_must():
    """Relative, absolute, deferred and submodule imports, read from today's source."""
    graph, outside = import_graph(REPO, PACKAGE)
    assert "attention_book.checkpoint.location" in graph["attention_book.checkpoint"]
    assert "attention_book.checkpoint.names" in graph["attention_book.checkpoint.fingerprints"]
    assert "attention_book.schema" in graph["attention_book.checkpoint.names"]
    # The loader's modules import their siblings, never the package that holds them.
    assert "attention_book.checkpoint" not in graph["attention_book.checkpoint.hub"]
    assert "attention_book.checkpoint" in graph["attention_book.gpt2"]
    assert "huggingface_hub" in outside["attention_book.checkpoint.hub"]  # inside a function


@pytest.mark.parametrize("a, b, closes", [
    ("from . import b\n", "def later():\n    from .a import x\n", True),
    ("import pkg.sub.c\n", "", True),  # pkg.sub's __init__ imports a: a cycle through it
    ("import importlib\nimportlib.import_module('pkg.b')\n", "from pkg import a\n", True),
    ("from .b import x\n", "import os\n", False),
])
def test_cycles_are_found_wherever_the_import_is(tmp_path, a, b, closes):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(textwrap.dedent(a))
    (pkg / "b.py").write_text(textwrap.dedent(b))
    (pkg / "sub" / "__init__.py").write_text("from .. import a\n")
    (pkg / "sub" / "c.py").write_text("")
    graph, _ = import_graph(tmp_path, "pkg")
    cycle = find_cycle(graph)
    assert (cycle is not None) == closes, (graph, cycle)
