"""No import loop inside ``memory``: its modules form a one-way graph.

Beside `tests/test_layers.py`, and read the same way: statically from the source, every
``import`` and ``from ... import`` (relative ones too, and the lazy ones inside functions
or under ``TYPE_CHECKING``), so a loop hidden by moving an import into a function fails
here as loudly as one at the top of a file. A loop means two modules that cannot be read
or changed apart; the fix is a module below both (the shared helpers) or a port the
lower one declares and the upper one implements.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import memory
from memory.answering import AnswerSource
from memory.store.reader import ReaderSource

ROOT = Path(memory.__file__).parent
SOURCES = sorted(ROOT.rglob("*.py"))


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module(p): p for p in SOURCES}


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The absolute name ``from ... import`` reads from (resolving leading dots)."""
    if not node.level:
        return node.module or ""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{node.module}" if node.module else package


def _targets(module: str, node: ast.AST) -> list[str]:
    """The ``memory`` modules one import statement loads explicitly.

    ``from memory.video import subtitles`` loads the submodule; ``from memory.video import
    open_video`` loads the package. Parent packages loaded implicitly are not edges: every
    module would otherwise depend on ``memory/__init__.py``.
    """
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in MODULES]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = _absolute(module, node)
    found = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES]
    if base in MODULES and len(found) < len(node.names):
        found.append(base)
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the ``memory`` modules it imports (anywhere in its source)."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[name] = {t for node in ast.walk(tree) for t in _targets(name, node)} - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest loop through each strongly connected group of modules (Tarjan); a
    group of more modules than its loop names is broken only when all its loops are."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_shortest_loop(graph, group) for group in groups]


def _shortest_loop(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & group):
                if nxt == start:
                    return paths[node] + [start]
                if nxt not in paths:
                    paths[nxt] = paths[node] + [nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no loop through {start}")  # pragma: no cover


def test_the_graph_reads_lazy_relative_and_package_imports():
    graph = {
        "a": {"b"}, "b": {"c"}, "c": {"a"},  # a loop of three
        "d": {"e"}, "e": set(),  # one way
    }
    assert cycles(graph) == [["a", "b", "c", "a"]]
    real = import_graph()
    assert "memory.media" in real["memory.video.base"]
    assert "memory.video" in real["memory.store.memory"]  # imported inside a method


def test_no_import_loop_inside_memory():
    loops = [" -> ".join(loop) for loop in cycles(import_graph())]
    assert loops == [], "import loops inside memory (move the shared part below both): " + \
        "; ".join(loops)


def test_the_reader_implements_the_answer_source_port():
    """The port that broke the old ``store.answering <-> store.reader`` loop: each member it declares is
    `ReaderSource`'s, with the same parameters (properties as properties)."""
    members = {n: v for n, v in vars(AnswerSource).items()
               if not n.startswith("_") and (callable(v) or isinstance(v, property))}
    assert members, "AnswerSource declares no members"
    for name, declared in sorted(members.items()):
        actual = vars(ReaderSource).get(name)
        assert actual is not None, f"ReaderSource lacks {name}"
        if isinstance(declared, property):
            assert isinstance(actual, property), name
            continue
        assert list(inspect.signature(declared).parameters) == \
            list(inspect.signature(actual).parameters), name


def test_answering_sits_below_the_store():
    """`memory.answering` reads a memory through its port only: none of its modules
    imports `memory.store` (the store imports answering, never the reverse)."""
    graph = import_graph()
    upward = sorted(f"{m} -> {t}" for m, targets in graph.items()
                    if m.startswith("memory.answering") for t in targets
                    if t.startswith("memory.store"))
    assert upward == []
