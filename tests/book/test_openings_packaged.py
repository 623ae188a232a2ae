"""The opening set is part of the package (usi_engine/data/openings.txt, the
repository's one copy), so an installed gensfen uses the same openings, and makes
the same bytes for a seed, as a source checkout; a missing set is an error, never a
silent fall-back to the start position (issue #42)."""
import hashlib
import json
import shutil
import subprocess
import sys
from importlib import resources
from importlib.machinery import EXTENSION_SUFFIXES

from conftest import ROOT
from usi_engine.cli import main
from usi_engine.training import gensfen
from usi_engine.training.gensfen import read_openings

RUN = ["--positions", "40", "--batch-positions", "40", "--nodes", "200", "--seed", "5",
       "--workers", "1"]


def test_the_package_data_holds_the_openings_gensfen_uses():
    data = resources.files("usi_engine").joinpath("data/openings.txt")
    assert data.is_file()
    assert gensfen.default_openings_path() == str(data)
    assert len(read_openings(str(data))) == 256
    assert not (ROOT / "sfen" / "openings.txt").exists()         # one copy, not two


def test_gensfen_records_the_shipped_openings(tmp_path):
    assert main(["gensfen", "--out", str(tmp_path / "out"), *RUN]) == 0
    manifest = json.loads((tmp_path / "out" / "gensfen.json").read_text())
    shipped = read_openings(gensfen.default_openings_path())
    assert len(shipped) > 1
    assert manifest["openings"] == hashlib.sha256("\n".join(shipped).encode()).hexdigest()


def test_a_missing_opening_set_is_an_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(gensfen, "OPENINGS_RESOURCE", "data/no-such-openings.txt")
    assert main(["gensfen", "--out", str(tmp_path / "out"), *RUN]) == 2
    err = capsys.readouterr().err
    assert "opening set" in err and "--openings" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_an_installed_package_makes_the_same_bytes_as_the_checkout(tmp_path):
    """The package as setuptools lays it out for a wheel (build_py: the Python files
    and the package data), with the compiled modules of this checkout, away from the
    repository: gensfen there makes the same batch as here."""
    lib = tmp_path / "lib"
    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(lib)],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    assert (lib / "usi_engine" / "data" / "openings.txt").read_bytes() == \
        (ROOT / "usi_engine" / "data" / "openings.txt").read_bytes()
    for suffix in EXTENSION_SUFFIXES:              # .so here, .pyd on Windows
        for built in (ROOT / "usi_engine").rglob("*" + suffix):
            shutil.copy(built, lib / built.relative_to(ROOT))
    where = subprocess.run([sys.executable, "-c", "import usi_engine; print(usi_engine.__file__)"],
                           cwd=lib, capture_output=True, text=True, timeout=60).stdout
    assert where.startswith(str(lib)), where
    subprocess.run([sys.executable, "-m", "usi_engine", "gensfen", "--out",
                    str(tmp_path / "installed"), *RUN], cwd=lib, check=True, timeout=300)
    subprocess.run([sys.executable, "-m", "usi_engine", "gensfen", "--out",
                    str(tmp_path / "checkout"), *RUN], cwd=ROOT, check=True, timeout=300)
    installed = (tmp_path / "installed" / "batch-00000.psv").read_bytes()
    assert installed == (tmp_path / "checkout" / "batch-00000.psv").read_bytes()
    assert json.loads((tmp_path / "installed" / "gensfen.json").read_text()) == \
        json.loads((tmp_path / "checkout" / "gensfen.json").read_text())
