"""The package's import graph has no circle.

The graph is read from the source with the standard library's ``ast``, so it holds every import
the code can make: those at the top of a module and those made inside functions. Imports under
``if TYPE_CHECKING:`` never run and are left out. The compiled modules' sources (``.pyx`` and their
``.pxd`` declarations, which ``ast`` cannot read) are read line by line for their ``import`` and
``cimport`` statements, so a circle through C is seen too. The folders map to packages as pyproject's
``package-dir`` says (``agents/`` is ``newmarket_env.agents``, and so on). docs/architecture.md
explains the layers this protects.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # mypy (of the dev extra) brings tomli there
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent

# The optional libraries (the extras of pyproject: train, eval, render, web, ray, spiel, torchrl, bench and
# the test tools): a module may import these, or a module of the house that imports one of them at its
# top, inside a function, so that importing the package does not need them or pay for them.
OPTIONAL_LIBRARIES = frozenset(
    {
        "torch",
        "stable_baselines3",
        "sb3_contrib",
        "yaml",
        "tensorboard",
        "tqdm",
        "rich",
        "openskill",
        "matplotlib",
        "scipy",
        "threadpoolctl",
        "ray",
        "pyspiel",
        "open_spiel",
        "torchrl",
        "tensordict",
        "PIL",
        "fastapi",
        "uvicorn",
        "starlette",
        "rlcard",
        "pygame",
        "moviepy",
        "playwright",
        "httpx",
        "mutmut",
    }
)


# Circles known when the test was written, each named by the sorted modules of its strongly
# connected component. The list only shrinks: an entry is removed when its circle is broken.
KNOWN_CIRCLES: list[frozenset[str]] = []

# Circles between the parts of the package (a module of part A imports one of part B, and one of B one
# of A), the parts being the modules and sub-packages right under newmarket_env. None is allowed.
KNOWN_PART_CIRCLES: list[frozenset[str]] = []

# Imports made inside functions of anything but an optional library (or a house module that needs one),
# counted as the rule was set; the budget only shrinks, towards zero. Left: the package facade's two reaches
# into the agents (docs/architecture.md, "Known exceptions") and train/config.py's table baselines, which
# load the compiled engine only for the methods that play compiled tables.
LATE_IMPORT_BUDGET = 3
# Imports inside functions without a comment saying why.
SILENT_LATE_IMPORT_BUDGET = 0


def package_roots() -> dict[str, Path]:
    """Package name -> folder, from pyproject's package-dir plus the top package itself."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    package_dir = config["tool"]["setuptools"]["package-dir"]
    roots = {"newmarket_env": REPO / "newmarket_env"}
    roots.update({package: REPO / folder for package, folder in package_dir.items()})
    return roots


def _files(suffix: str) -> dict[str, list[Path]]:
    """The package's source files ending in ``suffix``, by the dotted name of the module they make."""
    found: dict[str, list[Path]] = {}
    for package, folder in package_roots().items():
        for path in sorted(folder.rglob(f"*{suffix}")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.setdefault(".".join([package, *parts]), []).append(path)
    return found


def module_files() -> dict[str, Path]:
    """Every Python module of the package, by its dotted name."""
    return {name: paths[0] for name, paths in _files(".py").items()}


def compiled_files() -> dict[str, list[Path]]:
    """Every compiled module of the package (a ``.pyx``), with its sources: the ``.pyx`` and its ``.pxd``."""
    declarations = _files(".pxd")
    return {name: paths + declarations.get(name, []) for name, paths in _files(".pyx").items()}


# The compiled modules (built from .pyx; absent where they were not built): optional like the libraries above.
COMPILED_MODULES = tuple(compiled_files())

_CYTHON_IMPORT = re.compile(r"^(?:from\s+(?P<source>[\w.]+)\s+c?import\s+(?P<names>.+)|c?import\s+(?P<modules>.+))$")
_BLOCK_OPENER = re.compile(
    r"^(?:async\s+def|def|cdef|cpdef|class|if|elif|else|for|while|try|except|finally|with)\b.*:\s*(#.*)?$"
)
_FUNCTION_OPENER = re.compile(
    r"^(?:async\s+def|def|cpdef|cdef\s+(?!class\b|struct\b|enum\b|extern\b|union\b)[^=]*\().*:\s*(#.*)?$"
)


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, the statement on one line) of a Cython source: continuations joined."""
    pending, start, depth = "", 0, 0
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].rstrip() if '"' not in raw and "'" not in raw else raw.rstrip()
        if not pending:
            start = number
        pending = f"{pending} {line.strip()}" if pending else line
        depth += line.count("(") - line.count(")")
        if pending.endswith("\\"):
            pending = pending[:-1]
            continue
        if depth > 0:
            continue
        yield start, pending
        pending, depth = "", 0


def cython_imports(path: Path) -> Iterator[tuple[str, list[str], int, bool]]:
    """(source module or "", imported names, line, inside a function) for each ``import``/``cimport`` of a
    ``.pyx`` or ``.pxd`` file; ``source`` is "" for a plain ``import a, b`` (then the names are modules)."""
    blocks: list[tuple[int, bool]] = []  # (indent, is a function) of the blocks open at this line
    for number, line in _logical_lines(path.read_text()):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", '"', "'")):
            continue
        indent = len(line) - len(line.lstrip())
        while blocks and blocks[-1][0] >= indent:
            blocks.pop()
        in_function = any(function for _, function in blocks)
        found = _CYTHON_IMPORT.match(stripped)
        if found and found["source"]:
            names = [name.split(" as ")[0].strip() for name in found["names"].strip("() ").split(",")]
            yield found["source"], [name for name in names if name], number, in_function
        elif found:
            modules = [name.split(" as ")[0].strip() for name in found["modules"].split(",")]
            yield "", modules, number, in_function
        if _BLOCK_OPENER.match(stripped):
            blocks.append((indent, bool(_FUNCTION_OPENER.match(stripped))))


def _type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Each import statement with whether it runs inside a function, skipping TYPE_CHECKING blocks."""

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if _type_checking_block(child):
                assert isinstance(child, ast.If)
                for orelse in child.orelse:
                    yield from walk(orelse, in_function)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, in_function
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from walk(child, inner)

    yield from walk(tree, False)


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of a dotted name that is a module of the package."""
    for compiled in COMPILED_MODULES:
        if name == compiled or name.startswith(f"{compiled}."):
            return compiled
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def imported_names(module: str, path: Path, modules: dict[str, Path]) -> Iterator[tuple[str, int, bool]]:
    """(imported top-level name or house module, line, inside a function) for each import."""
    if path.suffix in (".pyx", ".pxd"):
        for source, names, line, in_function in cython_imports(path):
            for name in names:
                full = f"{source}.{name}" if source else name
                yield _known(full, modules) or (source and _known(source, modules)) or full, line, in_function
        return
    is_package = path.name == "__init__.py"
    for node, in_function in _imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield _known(alias.name, modules) or alias.name, node.lineno, in_function
            continue
        source = _absolute(module, is_package, node)
        for alias in node.names:
            target = _known(f"{source}.{alias.name}", modules) or _known(source, modules) or source
            yield target, node.lineno, in_function


def import_graph() -> dict[str, set[str]]:
    """House module -> the house modules it imports (anywhere in its body), compiled modules included."""
    modules = module_files()
    sources = {name: [path] for name, path in modules.items()} | compiled_files()
    known = {name: paths[0] for name, paths in sources.items()}
    graph: dict[str, set[str]] = {name: set() for name in sources}
    for name, paths in sources.items():
        for path in paths:
            for target, _, _ in imported_names(name, path, known):
                if target in known and target != name:
                    graph[name].add(target)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Tarjan's algorithm, iterative; only components that hold a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.add(member)
                    if member == node:
                        break
                if len(members) > 1:
                    components.append(frozenset(members))
    return components


def one_circle(graph: dict[str, set[str]], component: frozenset[str]) -> list[str]:
    """A shortest circle through the component's first module, as a path that returns to its start."""
    start = min(component)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & component):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if child not in previous:
                    previous[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no circle in {sorted(component)}")


def describe(graph: dict[str, set[str]], component: frozenset[str]) -> str:
    return f"{len(component)} modules, e.g. " + " -> ".join(one_circle(graph, component))


def test_the_graph_sees_every_kind_of_import() -> None:
    """The reader finds top-level, relative, in-function and mapped-folder imports (known edges)."""
    graph = import_graph()
    assert "newmarket_env.engine._table" in graph["newmarket_env.engine._fast"]  # a cimport, in the .pxd too
    assert "newmarket_env.engine._observer" in graph["newmarket_env.observation._encode"]  # a compiled module's
    assert "newmarket_env.game.rules" in graph["newmarket_env.engine._table"]  # a plain import in a .pyx
    assert "newmarket_env.observation._encode" in graph["newmarket_env.agents._baselines"]  # agents/ mapped
    assert "newmarket_env.agents.base" in graph["newmarket_env.agents.random_agent"]  # agents/ mapped
    assert "newmarket_env.agents" in graph["newmarket_env"]  # made inside available_agents()
    assert "newmarket_env.game.actions" in graph["newmarket_env"]  # `from newmarket_env import actions`: a module
    assert "newmarket_env.engine" in graph["newmarket_env"]  # `from newmarket_env.engine import Game`: a name


def test_finds_a_circle_made_inside_a_function(tmp_path: Path) -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    (component,) = strongly_connected(graph)
    assert component == {"a", "b", "c"}
    assert one_circle(graph, component) == ["a", "b", "c", "a"]
    source = "def later():\n    from . import first\n"
    tree = ast.parse(source)
    ((node, in_function),) = list(_imports(tree))
    assert in_function and isinstance(node, ast.ImportFrom)
    skipped = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import first\n"
    assert [n.lineno for n, _ in _imports(ast.parse(skipped))] == [1]


def test_no_import_circle_beyond_the_known_ones() -> None:
    graph = import_graph()
    circles = strongly_connected(graph)
    new = [describe(graph, c) for c in circles if c not in KNOWN_CIRCLES]
    assert not new, "import circle(s):\n" + "\n".join(new)
    stale = [sorted(c) for c in KNOWN_CIRCLES if c not in circles]
    assert not stale, f"these known circles are broken now; remove them from KNOWN_CIRCLES: {stale}"


def part_of(module: str) -> str:
    """The part of the package a module belongs to: ``newmarket_env.train.dmc.method`` -> ``newmarket_env.train``."""
    return ".".join(module.split(".")[:2])


def part_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    parts: dict[str, set[str]] = {}
    for module, targets in graph.items():
        here = part_of(module)
        parts.setdefault(here, set()).update(part_of(t) for t in targets if part_of(t) != here)
    return parts


def test_no_circle_between_parts_beyond_the_known_ones() -> None:
    """E.g. training and the tournaments share seeds and backends from below, not from each other."""
    parts = part_graph(import_graph())
    circles = strongly_connected(parts)
    new = [describe(parts, c) for c in circles if c not in KNOWN_PART_CIRCLES]
    assert not new, "circle(s) between parts of the package:\n" + "\n".join(new)
    stale = [sorted(c) for c in KNOWN_PART_CIRCLES if c not in circles]
    assert not stale, f"these known circles are broken now; remove them from KNOWN_PART_CIRCLES: {stale}"


def test_no_private_name_is_imported_from_another_module() -> None:
    """A name another module needs is public (or moved to where both can reach it); the compiled
    modules (``_fast``, ``_batch``, ...) are the exception, being private by their file name only."""
    modules = module_files()
    found = []
    for name, path in modules.items():
        for node, _ in _imports(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _absolute(name, path.name == "__init__.py", node)
            if not source.startswith("newmarket_env"):
                continue
            for alias in node.names:
                if (
                    alias.name.startswith("_")
                    and not alias.name.startswith("__")
                    and f"{source}.{alias.name}" not in COMPILED_MODULES
                ):
                    found.append(f"{path.relative_to(REPO)}:{node.lineno}: {alias.name} from {source}")
    assert not found, "private names imported across modules:\n" + "\n".join(found)


def guarded_lines(path: Path) -> set[int]:
    """Lines of the imports inside ``try:`` blocks that catch ImportError (the module works without them)."""
    lines: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Try):
            continue
        caught = " ".join(ast.unparse(handler.type) for handler in node.handlers if handler.type is not None)
        if "ImportError" in caught or "ModuleNotFoundError" in caught:
            for statement in node.body:
                for inner in ast.walk(statement):
                    if isinstance(inner, ast.Import | ast.ImportFrom):
                        lines.add(inner.lineno)
    return lines


def needs_optional(modules: dict[str, Path]) -> set[str]:
    """The house modules that import an optional library at their top (not guarded by a ``try``),
    themselves or through another."""
    direct: dict[str, set[str]] = {}
    needing: set[str] = set()
    for name, path in modules.items():
        direct[name] = set()
        guarded = guarded_lines(path)
        for target, line, in_function in imported_names(name, path, modules):
            if in_function or line in guarded:
                continue
            if target in modules:
                direct[name].add(target)
            elif target.split(".")[0] in OPTIONAL_LIBRARIES or target in COMPILED_MODULES:
                needing.add(name)
    grown = True
    while grown:
        grown = False
        for name, targets in direct.items():
            if name not in needing and targets & needing:
                needing.add(name)
                grown = True
    return needing


def late_imports() -> list[tuple[str, int, str]]:
    """(file, line, imported name) for each import inside a function that is not of an optional library
    nor of a house module that needs one."""
    modules = module_files()
    heavy = needs_optional(modules)
    found = []
    for name, path in modules.items():
        guarded = guarded_lines(path)  # e.g. a library's module that only some of its versions have
        for target, line, in_function in imported_names(name, path, modules):
            optional = target.split(".")[0] in OPTIONAL_LIBRARIES or target in heavy or target in COMPILED_MODULES
            if in_function and not optional and line not in guarded:
                found.append((str(path.relative_to(REPO)), line, target))
    return found


def test_late_imports_only_for_optional_libraries() -> None:
    found = late_imports()
    listing = "\n".join(f"{file}:{line}: {name}" for file, line, name in found)
    assert len(found) <= LATE_IMPORT_BUDGET, f"{len(found)} imports inside functions:\n{listing}"


def test_each_import_inside_a_function_says_why() -> None:
    """A one-line comment on the import (or the line above it) says why it waits: the optional library it
    needs, the compiled engine that may be absent..."""
    silent = []
    for path in module_files().values():
        lines = path.read_text().split("\n")
        for node, in_function in _imports(ast.parse("\n".join(lines), str(path))):
            if not in_function:
                continue
            own = lines[node.lineno - 1 : node.end_lineno]
            above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
            if not any("#" in line for line in own) and not above.startswith("#"):
                silent.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert len(silent) <= SILENT_LATE_IMPORT_BUDGET, "imports inside functions without a comment:\n" + "\n".join(silent)


def test_the_cython_reader_sees_cimports_continuations_and_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "example.pyx"
    source.write_text(
        "from libc.stdint cimport uint64_t\n"
        "cimport newmarket_env.engine._table as table\n"
        "from newmarket_env.game.rules import (\n    make_rules,\n    Rules,\n)\n"
        "cdef struct Pair:\n    int a, b\n"
        "cdef class Box:\n"
        "    cdef int size\n"
        "    def __init__(self):\n"
        "        import numpy as np  # waits\n"
        "    cdef void fill(self, int k) noexcept nogil:\n"
        "        pass\n"
        "if True:\n    import json\n"
    )
    found = [(source_, names, line, inside) for source_, names, line, inside in cython_imports(source)]
    assert found == [
        ("libc.stdint", ["uint64_t"], 1, False),
        ("", ["newmarket_env.engine._table"], 2, False),
        ("newmarket_env.game.rules", ["make_rules", "Rules"], 3, False),
        ("", ["numpy"], 12, True),
        ("", ["json"], 16, False),
    ]


# The layers of docs/architecture.md, bottom up: a part may import its own layer and those below, never above.
LAYERS: dict[str, int] = {
    "newmarket_env.util": 0,
    "newmarket_env.game": 1,
    "newmarket_env.engine": 2,
    "newmarket_env.observation": 3,
    "newmarket_env.nn": 3,  # the networks' building blocks (numpy and torch only)
    "newmarket_env.describe": 4,
    "newmarket_env.execution": 4,
    "newmarket_env.render": 5,
    "newmarket_env.records": 5,
    "newmarket_env.envs": 6,
    "newmarket_env.agents": 6,
    "newmarket_env.agent_factory": 6,
    "newmarket_env": 6,  # the package facade: env(), load_agent() (the agents reached inside functions)
    "newmarket_env.play": 7,
    "newmarket_env.train": 8,
    "newmarket_env.integrations": 8,
    "newmarket_env.eval": 9,
    "newmarket_env.cli": 10,
    "newmarket_env.web": 10,
    "newmarket_env.docs": 10,
    "newmarket_env.__main__": 10,
}


def test_every_part_has_a_layer() -> None:
    assert set(part_graph(import_graph())) <= set(LAYERS), "give the new part a layer in LAYERS (and the docs)"


def test_no_part_imports_a_layer_above_it() -> None:
    """docs/architecture.md's layers, held by the folders: e.g. the engine never imports the observation."""
    graph = import_graph()
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if LAYERS[part_of(target)] > LAYERS[part_of(module)]
    )
    assert not upward, "imports of a layer above:\n" + "\n".join(upward)
