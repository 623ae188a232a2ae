"""The whole package type-checks (mypy), and so do the README's Python examples against
the package's stubs; one mypy run checks all three files sets (a run costs some 12 s)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from test_readme import python_examples


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory) -> dict[str, list[str]]:
    """mypy's error lines by file (the package's files relative to the checkout, the
    examples by name), from one run over usi_engine/ and the two example files."""
    folder = tmp_path_factory.mktemp("mypy")
    examples = python_examples()
    (folder / "readme_examples.py").write_text(examples)
    # A misspelt keyword must be caught: the examples are checked, not waved through.
    (folder / "readme_misspelt.py").write_text(examples + "\nSearcher().search(pos, dpth=8)\n")
    env = dict(os.environ, MYPYPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental",
         "--cache-dir", str(folder / "cache"), "usi_engine",
         str(folder / "readme_examples.py"), str(folder / "readme_misspelt.py")],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert "error:" in result.stdout or result.returncode == 0, result.stdout + result.stderr
    errors: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        match = re.match(r"(.+?):\d+: error: ", line)
        if match:
            name = Path(match.group(1))
            key = name.name if name.name.startswith("readme_") else name.as_posix()
            errors.setdefault(key, []).append(line)
    return errors


def test_every_package_module_type_checks(mypy_errors):
    package = {name: lines for name, lines in mypy_errors.items()
               if not name.startswith("readme_")}
    assert package == {}


def test_readme_examples_type_check(mypy_errors):
    source = python_examples()
    assert "Searcher().search(" in source and "MateSolver().solve(" in source
    assert mypy_errors.get("readme_examples.py") is None


def test_the_type_check_sees_the_stubs(mypy_errors):
    lines = mypy_errors.get("readme_misspelt.py", [])
    assert len(lines) == 1 and "dpth" in lines[0]
