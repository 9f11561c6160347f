"""The import layers inside ``venus`` are one-way: no module imports a layer above it.

Beside `tests/test_memory_exports.py::test_memory_never_imports_venus`. Read statically
from the source (every ``import`` and ``from ... import``, also the lazy ones inside
functions), so an upward import fails here even where no test happens to execute it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import venus

ROOT = Path(venus.__file__).parent

# Bottom to top. A unit may import only units of a strictly lower rank (and itself).
LAYERS: list[tuple[str, ...]] = [
    ("venus.errors",),
    ("venus.clock", "venus.events"),
    ("venus.timeline",),
    ("venus.speech", "venus.perception"),  # the output seams and the user's perception
    ("venus.harness",),  # background work; never the frontends that ask for it
    ("venus.capabilities", "venus.backends"),
    ("venus.frontend",),  # policy: decide(frame, view) -> Decision
    ("venus.runtime",),  # DuplexIO, Session: composes the frontend and the harness link
    ("venus.factory", "venus.testing"),  # venus.assistant; the fakes for tests
    ("venus.scenario",),
    ("venus.eval",),
    ("venus.bench",),
    ("venus.notebook",),
    ("venus.cli",),
    ("venus", "venus.__main__"),  # the curated public surface
]
RANK = {unit: rank for rank, units in enumerate(LAYERS) for unit in units}


def _unit(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "venus" and [a.name for a in node.names] == ["__version__"]:
                continue  # the version string is data, not a layer
            found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name == "venus" or name.startswith("venus.")]


SOURCES = sorted(ROOT.rglob("*.py"))


def test_every_unit_has_a_layer():
    units = {_unit(_module(p)) for p in SOURCES}
    assert sorted(units - set(RANK)) == [], "add the new package to LAYERS"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_no_module_imports_a_layer_above_it(path):
    here = _unit(_module(path))
    upward = [f"line {line}: {name}" for line, name in _imports(path)
              if _unit(name) != here and RANK[_unit(name)] >= RANK[here]]
    assert upward == [], f"{here} (layer {RANK[here]}) imports upward or sideways: {upward}"
