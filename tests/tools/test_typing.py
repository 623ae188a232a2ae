"""The whole package type-checks (mypy), and so do the README's Python examples against
the package's stubs. One mypy run checks all three (some 12 s on one core); it starts at
collection and runs beside the other tests (conftest.BACKGROUND_JOBS)."""
import atexit
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import BACKGROUND_JOBS, ROOT, BackgroundJob
from test_readme import python_examples

FOLDER = Path(tempfile.mkdtemp(prefix="usi-engine-mypy-"))
atexit.register(shutil.rmtree, FOLDER, True)
EXAMPLES = python_examples()
(FOLDER / "readme_examples.py").write_text(EXAMPLES)
# A misspelt keyword must be caught: the examples are checked, not waved through.
(FOLDER / "readme_misspelt.py").write_text(EXAMPLES + "\nSearcher().search(pos, dpth=8)\n")
BACKGROUND_JOBS[Path(__file__).name] = BackgroundJob(
    [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental",
     "--cache-dir", str(FOLDER / "cache"), "usi_engine",
     str(FOLDER / "readme_examples.py"), str(FOLDER / "readme_misspelt.py")],
    env=dict(os.environ, MYPYPATH=str(ROOT)), cwd=ROOT)


@pytest.fixture(scope="module")
def mypy_errors() -> dict[str, list[str]]:
    """mypy's error lines by file (the package's files relative to the checkout, the
    examples by name)."""
    result = BACKGROUND_JOBS[Path(__file__).name].result()
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
    assert "Searcher().search(" in EXAMPLES and "MateSolver().solve(" in EXAMPLES
    assert mypy_errors.get("readme_examples.py") is None


def test_the_type_check_sees_the_stubs(mypy_errors):
    lines = mypy_errors.get("readme_misspelt.py", [])
    assert len(lines) == 1 and "dpth" in lines[0]
