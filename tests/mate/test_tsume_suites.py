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


SOLUTIONS = TSUME / "solutions" / "long.txt"


def published_solutions() -> list[tuple[str, str, int, list[str]]]:
    rows = []
    for line in SOLUTIONS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, sfen, plies, moves, _source = (field.strip() for field in line.split("|"))
            rows.append((name, sfen, int(plies), moves.split()))
    return rows


@pytest.mark.parametrize("name, sfen, plies, moves", published_solutions(),
                         ids=lambda value: value if isinstance(value, str) and "/" not in value
                         and " " not in value else None)
def test_a_published_long_solution_replays_to_mate_by_our_rules_and_cshogi_s(name, sfen,
                                                                              plies, moves):
    from cshogi_referee import mate_line_fault
    from usi_engine.core.position import Position
    assert len(moves) == plies
    position = Position(sfen)
    for ply, move in enumerate(moves, start=1):
        position.push_usi(move)
        assert ply % 2 == 0 or position.is_check(), f"{name}: ply {ply} {move} is no check"
    assert position.is_checkmate()
    assert mate_line_fault(sfen, moves) == ""


def test_the_long_set_keeps_the_published_length_of_each_solution():
    lengths = {p.sfen.split(" moves")[0]: p.length for p in suites.read_tsume_suite(
        TSUME / "long.txt", exact=True)}
    shared = [(name, sfen, plies) for name, sfen, plies, _ in published_solutions()
              if sfen in lengths]
    assert len(shared) >= 5
    for name, sfen, plies in shared:
        assert lengths[sfen] == plies, name
