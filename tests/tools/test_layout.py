"""The tests' own layout: the engine's tests stand without bench/, which is a client of
the package (its tests are in tests/bench/)."""
from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def imported_roots(path: Path) -> set[str]:
    """The top-level names a file imports (at any depth of its code)."""
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots.add(node.module.split(".")[0])
    return roots


def test_no_engine_test_imports_bench():
    importing = [str(path.relative_to(TESTS)) for path in sorted(TESTS.rglob("*.py"))
                 if path.parent.name != "bench" and "bench" in imported_roots(path)]
    assert importing == []
