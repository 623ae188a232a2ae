"""The record, book, analysis and cluster packages type-check (mypy) and stay so."""
import subprocess
import sys

from conftest import ROOT

PACKAGES = ["usi_engine/record", "usi_engine/book", "usi_engine/analysis", "usi_engine/cluster"]


def test_record_book_and_analysis_packages_type_check(tmp_path):
    # --follow-imports=silent: the modules these import (core, usi, ...) are read for
    # their types, but only errors in the packages named here count
    result = subprocess.run([sys.executable, "-m", "mypy", *PACKAGES, "--ignore-missing-imports",
                             "--follow-imports=silent", "--no-incremental",
                             "--cache-dir", str(tmp_path / "cache")],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
