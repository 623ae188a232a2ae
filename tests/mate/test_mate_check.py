"""The composer's check (usi_engine.mate.check, `usi-engine mate --check`): flaws that
cshogi confirms are reported with their lines, and sound compositions get none."""
import subprocess
import sys

import cshogi
import pytest

from usi_engine.core.position import Position
from usi_engine.mate.check import FLAWS, check_composition, published_length
from usi_engine.mate.solver import MateSolver
from compositions import FUTAKAMI_11, KOTEN_3

# game positions (sfen/tsume/generated-mate3.txt), not compositions: flawed
MANY_FIRST_MOVES = ("1l3B1k1/4+R+B1pn/pp1p1p2r/2p1p4/1N7/4P2SP/PP1P1PP2/3SN1GsL/L2GKG3 b "
                    "GSN4Pl 111")
TWO_LAST_MOVES = "ln1gkg2l/2sr5/ppppppsb1/6ppp/5P3/6PPP/PP1PP1N2/3S1S+n1L/LN1GK4 w RBgp 42"


def checked(sfen: str, nodes: int = 50_000):
    solver = MateSolver()
    solver.set_hash(64)
    position = Position(sfen)
    result = solver.solve(position, time_ms=20_000)
    assert result.status == "mate"
    return result, check_composition(position, result.pv, nodes=nodes, solver=solver)


def mates_by_cshogi(sfen: str, line: list[str]) -> bool:
    """Every defence to the line's first move is answered by a mate cshogi's DfPn proves
    (or there is none): the first move mates, by cshogi's rules and search alone."""
    board = cshogi.Board(sfen)
    board.push_usi(line[0])
    if not board.is_check():
        return False
    dfpn = cshogi.DfPn()
    for reply in list(board.legal_moves):
        board.push(reply)
        proved = dfpn.search(board)
        board.pop()
        if not proved:
            return False
    return True


@pytest.mark.parametrize("sfen", [KOTEN_3, FUTAKAMI_11], ids=["koten-3", "futakami-11"])
def test_a_sound_composition_has_no_flaw(sfen):
    _, report = checked(sfen)
    assert [f for f in report.findings if f.kind in FLAWS] == []


def test_every_alternative_first_move_reported_mates_by_cshogi():
    result, report = checked(MANY_FIRST_MOVES)
    alternatives = [f for f in report.findings if f.kind == "alternative mate" and f.ply == 1]
    assert len(alternatives) >= 2
    for finding in alternatives:
        assert finding.line[0] != Position(MANY_FIRST_MOVES).move_to_usi(result.pv[0])
        assert mates_by_cshogi(MANY_FIRST_MOVES, finding.line), finding.text()


def test_another_mating_last_move_is_reported_and_is_mate_by_cshogi():
    result, report = checked(TWO_LAST_MOVES)
    last = [f for f in report.findings if f.kind == "alternative last move"]
    assert [f.ply for f in last] == [3]
    board = cshogi.Board(TWO_LAST_MOVES)
    position = Position(TWO_LAST_MOVES)
    for move in result.pv[:2]:
        board.push_usi(position.move_to_usi(move))
        position.push(move)
    board.push_usi(last[0].line[0])
    assert board.is_game_over()


def test_an_equal_variation_is_a_note_with_its_line():
    _, report = checked(KOTEN_3)
    notes = [f for f in report.findings if f.kind == "equal variation"]
    assert notes and all(f.ply % 2 == 0 and len(f.line) >= 2 for f in notes)


def test_the_command_prints_each_finding_and_a_summary():
    done = subprocess.run([sys.executable, "-m", "usi_engine", "mate", "--check",
                           "--check-nodes", "20000", TWO_LAST_MOVES, "--hash", "32"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("checkmate ")
    assert any(line.startswith("# alternative last move at ply 3: ") for line in lines)
    assert lines[-1].startswith("# composition check: 0 flaw(s), 1 note(s)")


def test_a_useless_interposition_is_not_counted_in_a_published_length():
    from usi_engine.core.position import usi_to_move
    line = [usi_to_move(m) for m in "R*5c P*5b 5c5b 5a4a".split()]   # P*5b taken at once
    assert published_length(line, defender_first=False) == 2
    assert published_length(line[1:], defender_first=True) == 1
    assert published_length(line[2:], defender_first=False) == 2     # no drop of theirs
