"""usi_engine.core.mate1.find_mate_in_one: exact (a mate whenever one exists, only a mating move) while
it skips most checks by the flights that a mate must cover.  The wide differential
test is tests/core/test_generators.py; these positions pin the cases of that shortcut that
are easy to get wrong.  Each was found by a build that got it wrong.

find_mate_in_one_near, the searches' cheaper test, looks only at checks from next
to the king or a knight's jump away (drops and direct checks); its differential test
is in tests/core/test_generators.py too."""
from __future__ import annotations

import pytest

from usi_engine import Position, move_to_usi
from usi_engine.core.mate1 import find_mate_in_one, find_mate_in_one_near

# (position, the mating move) where the mate covers the king's flight behind it along
# the checking line: seen only with the king lifted off the board
FLIGHT_BEHIND_THE_KING = [
    ("lnss+R3l/2kn3g1/pppp4p/4p1Pp1/5G3/P7P/1PGPP+r3/3K5/LNS2s3 w 2BNPgl4p 78", "4g5h"),
    ("ln1gk3l/3s1sg2/p1Np1pn2/4p1K1p/6Pp1/2S2Pp1P/P1G1P2P1/5SG2/LN6L w R2B3Pr2p 50", "R*4d"),
    ("lnbs5/7gl/pppp1g3/5pp1p/PPn1L4/1S2p3P/2PPk2S1/2K5L/1N1g5 w RBGSNr5p 218", "R*6h"),
]

# a check whose piece leaves a line open, so that a slider of ours covers a flight
OPENS_A_LINE_ONTO_A_FLIGHT = (
    "1s1g5/1r5sl/l+L1ppGnpk/4+b2+rp/1K7/3P5/2+n1S4/9/4G4 w S4Pbg2nl9p 112", "5d7f")


def mating_moves(pos: Position) -> list[str]:
    """Every legal move after which the opponent is checkmated (brute force)."""
    found = []
    for m in pos.legal_moves():
        pos.push(m)
        if pos.is_checkmate():
            found.append(move_to_usi(m))
        pos.pop()
    return found


@pytest.mark.parametrize("sfen, mate", FLIGHT_BEHIND_THE_KING)
def test_mate_covering_the_flight_behind_the_king_is_found(sfen, mate):
    pos = Position("sfen " + sfen)
    assert mate in mating_moves(pos)
    assert move_to_usi(find_mate_in_one(pos)) in mating_moves(pos)


def test_mate_whose_move_opens_a_line_onto_a_flight_is_found():
    sfen, mate = OPENS_A_LINE_ONTO_A_FLIGHT
    pos = Position("sfen " + sfen)
    assert mating_moves(pos) == [mate]
    assert move_to_usi(find_mate_in_one(pos)) == mate


def test_no_mate_means_zero():
    pos = Position("startpos")
    assert mating_moves(pos) == [] and find_mate_in_one(pos) == 0


def test_mate_in_one_leaves_the_position_unchanged():
    sfen, _ = OPENS_A_LINE_ONTO_A_FLIGHT
    pos = Position("sfen " + sfen)
    find_mate_in_one(pos)
    assert pos.sfen() == sfen


# white's king boxed in by its own lances and pawns: only a rook dropped two or more
# squares away mates (next to the king it is taken)
DISTANT_ROOK_DROP_MATE = "3lkl3/3p1p3/9/9/9/9/9/9/K8 b R 1"


def test_near_mate_by_a_guarded_drop_is_found():
    pos = Position("sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1")
    assert move_to_usi(find_mate_in_one_near(pos)) == "G*5b"


def test_near_mate_by_a_guarded_board_move_is_found():
    pos = Position("sfen 4k4/9/3GP4/9/9/9/9/9/9 b - 1")
    assert mating_moves(pos) == ["5c5b+", "6c5b"]     # (each guards the other's square)
    assert move_to_usi(find_mate_in_one_near(pos)) in ("5c5b+", "6c5b")


def test_near_mate_leaves_a_distant_drop_mate_to_the_search():
    pos = Position("sfen " + DISTANT_ROOK_DROP_MATE)
    assert "R*5c" in mating_moves(pos) and "R*5b" not in mating_moves(pos)
    assert find_mate_in_one(pos) != 0
    assert find_mate_in_one_near(pos) == 0
