"""Every example in the package's docstrings runs and prints what it says: each module
whose source (.py or .pyx) holds a ``>>>`` line is run through doctest, compiled
extensions included (their docstrings are kept in the built module)."""
import doctest
import importlib
from pathlib import Path

import pytest

import usi_engine

PACKAGE = Path(usi_engine.__file__).resolve().parent


def modules_with_examples() -> list[tuple[str, int]]:
    """(module name, the number of ``>>>`` lines in its source) for each module."""
    found = []
    for source in sorted(PACKAGE.rglob("*")):
        if source.suffix not in (".py", ".pyx") or "data" in source.parts:
            continue
        count = source.read_text(encoding="utf-8").count(">>>")
        if count:
            parts = source.relative_to(PACKAGE.parent).with_suffix("").parts
            found.append((".".join(parts[:-1] if parts[-1] == "__init__" else parts), count))
    return found


def test_the_package_has_examples_to_run():
    assert len(modules_with_examples()) >= 35     # 39 modules in December 2026


@pytest.mark.parametrize("name, count", modules_with_examples(),
                         ids=[name for name, _ in modules_with_examples()])
def test_the_modules_examples_run_as_written(name, count):
    module = importlib.import_module(name)
    examples = sum(len(test.examples) for test in doctest.DocTestFinder().find(module))
    assert examples >= count, f"doctest finds {examples} of the {count} examples in {name}"
    result = doctest.testmod(module, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
