"""usi_engine.mate.suites: the one reader of `name | sfen | length` suite files, used by
`usi-engine mate --suite` (bench reads them through it: tests/bench)."""
from pathlib import Path

import pytest

from usi_engine.core.position import Position
from usi_engine.mate import suites

TSUME = Path(__file__).resolve().parents[2] / "sfen" / "tsume"


def test_lines_fields_and_lengths(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("# a comment | not a problem\n\n"
                    "m1 | 4k4/9/4P4/9/9/9/9/9/9 b G 1 | 1\n"
                    "  unknown | 4k4/9/4P4/9/9/9/9/9/9 b G 1 | ?  \n"
                    "short | 4k4/9/4P4/9/9/9/9/9/9 b G 1\n"
                    "4k4/9/4P4/9/9/9/9/9/9 b G 1\r\n"
                    "   # indented comment\n", encoding="utf-8")
    problems = suites.read_tsume_suite(path)
    assert [(p.name, p.length) for p in problems] == [
        ("m1", 1), ("unknown", None), ("short", None), ("line 6", None)]
    assert {p.sfen for p in problems} == {"4k4/9/4P4/9/9/9/9/9/9 b G 1"}
    assert {(p.suite, p.strict) for p in problems} == {("mine", False)}
    assert suites.read_fields(path)[0] == (3, ["m1", "4k4/9/4P4/9/9/9/9/9/9 b G 1", "1"])
    with pytest.raises(suites.SuiteFormatError,
                       match=r"mine.txt:5: expected 'name \| sfen \| length'"):
        suites.read_tsume_suite(path, exact=True)


def test_a_header_with_the_mark_makes_the_lengths_strict(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text(f"# The {suites.STRICT_MARK} (every defence)\np | 4k4/9/4P4/9/9/9/9/9/9 b G 1 | 1\n")
    assert suites.suite_is_strict(path) and suites.read_tsume_suite(path)[0].strict
    path.write_text(f"p | 4k4/9/4P4/9/9/9/9/9/9 b G 1 | 1  # {suites.STRICT_MARK}\n")
    assert not suites.suite_is_strict(path)


def test_unreadable_files_raise_what_the_command_line_reports(tmp_path):
    (tmp_path / "bin.txt").write_bytes(bytes(range(256)))
    with pytest.raises(UnicodeDecodeError):
        suites.read_tsume_suite(tmp_path / "bin.txt")
    with pytest.raises(OSError):
        suites.read_tsume_suite(tmp_path / "missing.txt")


@pytest.mark.parametrize("path", sorted(TSUME.glob("*.txt")), ids=lambda p: p.stem)
def test_the_shipped_suites_are_exact_and_legal(path):
    problems = suites.read_tsume_suite(path, exact=True)
    generated = path.stem.startswith("generated")
    assert problems and all(p.strict == generated for p in problems)
    assert not generated or all(p.length is not None for p in problems)
    for problem in problems:
        Position(problem.sfen)


def test_the_command_line_reads_suites_through_the_package():
    """(It imports the reader where it is used, so that `usi` is answered sooner.)"""
    import inspect
    import usi_engine.cli.mate as cli
    source = inspect.getsource(cli)
    assert "from usi_engine.mate.suites import read_fields, read_tsume_suite, " \
        "suite_is_strict" in source
    assert "from usi_engine.mate.suites import STRICT_MARK" in source
    assert "def read_tsume_suite" not in source and "def read_fields" not in source
