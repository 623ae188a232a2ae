"""Who attacks at the root, and how far the solver goes once it has a mate: a side
to move that starts in check, the defender to move first (KomoringHeights'
RootIsAndNodeIfChecked), node limits and the post-search levels (its PostSearchLevel)."""
import pytest

from usi_engine.core.position import Position, move_to_usi
from usi_engine.mate.solver import defender_moves_first
from compositions import FUTAKAMI_11, KOTEN_3

# black's king on 3c is in check from the gold on 2c; the knight takes it with mate
ATTACKER_IN_CHECK = "8k/6S2/6KgG/9/8N/9/9/9/9 b - 1"
ZUKO_1 = "1pG1B4/Gs+P6/pP7/n1ls5/3k5/nL4+r1b/1+p1p+R4/1S7/2N6 b SP2gn2l11p 1"


def usi(moves):
    return [move_to_usi(m) for m in moves]


def test_an_attacker_in_check_parries_it_with_a_mating_check(solver):
    assert solver.solve(Position(ATTACKER_IN_CHECK), time_ms=5000).usi() == "checkmate 1e2c"


def test_defender_first_line_is_the_reply_and_the_mate_after_it(solver):
    mate = solver.solve(Position(KOTEN_3), time_ms=5000)
    after = Position(KOTEN_3)
    after.push(mate.pv[0])
    solver.clear()
    defended = solver.solve(after, time_ms=5000, defender_first=True)
    assert defended.status == "mate" and defended.shortest
    assert usi(defended.pv) == usi(mate.pv[1:])


def test_defender_already_mated_has_an_empty_line(solver):
    result = solver.solve(Position("4k4/4G4/4P4/9/9/9/9/9/9 w - 1"), defender_first=True)
    assert (result.status, result.pv, result.usi()) == ("mate", [], "checkmate")


def test_defender_with_an_escape_is_nomate(solver):
    result = solver.solve(Position(ATTACKER_IN_CHECK), time_ms=5000, defender_first=True)
    assert result.status == "nomate"


@pytest.mark.parametrize("sfen, if_checked, expected", [
    ("4k4/9/4P4/9/9/9/9/9/9 b G 1", True, False),     # the side to move has no king
    ("4k4/9/4P4/9/9/9/9/9/9 w G 1", True, True),      # the opponent has none
    (ATTACKER_IN_CHECK, True, True),                  # both kings, in check
    (ATTACKER_IN_CHECK, False, False),
    ("4k4/9/9/9/9/9/9/9/4K4 b G 1", True, False),     # both kings, no check
])
def test_the_defender_is_chosen_as_komoringheights_chooses(sfen, if_checked, expected):
    assert defender_moves_first(Position(sfen), if_checked) is expected


def test_a_node_limit_bounds_the_whole_solve(solver):
    result = solver.solve(Position(ZUKO_1), nodes=3000)
    assert result.status == "timeout" and 3000 <= result.nodes < 3000 + 1024


def test_upper_bound_stops_at_a_line_as_long_as_its_proof(solver):
    full = solver.solve(Position(FUTAKAMI_11), time_ms=20000)
    solver.clear()
    bounded = solver.solve(Position(FUTAKAMI_11), time_ms=20000, upper_bound=True)
    assert bounded.status == "mate" and not bounded.shortest
    assert len(bounded.pv) >= len(full.pv) == 11
    assert bounded.nodes < full.nodes
