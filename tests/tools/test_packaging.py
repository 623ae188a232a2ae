"""What a new user meets before the engine runs: the stubs match the compiled API, a
source checkout that was never built says what to do, and the package metadata is
what current setuptools accepts."""
import ast
import shutil
import subprocess
import sys
import tomllib

import pytest

from conftest import ROOT

PACKAGE = ROOT / "usi_engine"


def stub_names(stub: str, cls: str) -> set[str]:
    tree = ast.parse((PACKAGE / stub).read_text())
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    return {n.name for n in node.body if isinstance(n, ast.FunctionDef)} | {
        n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}


@pytest.mark.parametrize("stub,module,cls", [
    ("core/position.pyi", "usi_engine.core.position", "Position"),
    ("search/searcher.pyi", "usi_engine.search.searcher", "Searcher"),
    ("search/searcher.pyi", "usi_engine.search.searcher", "SearchResult"),
])
def test_every_public_method_is_in_the_stub(stub, module, cls):
    import importlib
    compiled = getattr(importlib.import_module(module), cls)
    public = {name for name in dir(compiled) if not name.startswith("_")}
    assert public <= stub_names(stub, cls), public - stub_names(stub, cls)


def test_an_unbuilt_source_checkout_says_how_to_build_it(tmp_path):
    """Python started in a checkout whose core was never compiled (e.g. after `pip
    install .`) finds the source folder first: one clear line, not a puzzling
    ImportError from deep inside."""
    shutil.copytree(PACKAGE, tmp_path / "usi_engine",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    # -S: no site-packages, so no editable-install finder that would reach the build
    proc = subprocess.run([sys.executable, "-S", "-c", "from usi_engine.core.position import Position"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    last = proc.stderr.strip().splitlines()[-1]
    assert proc.returncode != 0
    assert "not built" in last and "pip install -e ." in last, proc.stderr


def test_the_license_is_an_spdx_expression():
    """A TOML table for project.license is deprecated (refused from February 2027)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"


def test_the_wheel_leaves_out_the_generated_c():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "*.c" in setuptools["exclude-package-data"]["*"]


def test_the_test_extra_holds_what_the_tests_import():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["test"]
    assert {"pytest", "hypothesis", "cshogi", "python-shogi", "mypy", "Cython>=3",
            "setuptools>=77"} <= set(extra)


def test_git_ignores_the_virtual_environment():
    assert ".venv/" in (ROOT / ".gitignore").read_text().split()
