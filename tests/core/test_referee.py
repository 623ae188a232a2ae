"""The engine's referee (core/referee.py): when a game is over, for the side to move."""
import pytest

from usi_engine import Position
from usi_engine.core.referee import Outcome, game_over

MATED = "4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1"
CAN_DECLARE = "K+R+B+P+P+P+P+P+P/6+P+P+P/9/9/9/9/9/9/k8 b RB2G2S2N 1"


def test_no_legal_move_loses():
    assert game_over(Position(MATED)) == Outcome(-1, "no legal move")


@pytest.mark.parametrize("rule, over", [("CSARule27", True), ("CSARule24", True),
                                        ("NoEnteringKing", False), ("TryRule", False)])
def test_a_declaration_wins_under_the_rules_that_allow_it(rule, over):
    outcome = game_over(Position(CAN_DECLARE), rule)
    assert (outcome == Outcome(1, "declaration")) == over


def test_the_fourth_occurrence_is_a_draw():
    pos = Position("4k4/9/9/9/9/9/9/9/4K4 b g 1")
    for _ in range(3):
        for usi in ("5i5h", "5a5b", "5h5i", "5b5a"):
            assert game_over(pos) is None
            pos.push_usi(usi)
    assert game_over(pos) == Outcome(0, "repetition")


def test_the_move_limit_is_a_draw_only_past_it():
    pos = Position("4k4/9/9/9/9/9/9/9/4K4 b g 300")
    assert game_over(pos, max_ply=300) is None
    assert game_over(pos, max_ply=299) == Outcome(0, "move limit")
    assert game_over(pos, max_ply=0) is None
