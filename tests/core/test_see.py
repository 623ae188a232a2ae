"""Static exchange evaluation: what a move wins or loses once every capture on its
destination square has been played out, least valuable capturer first.  Move ordering,
quiescence and the pruning rules all ask it; until 2026-11-26 its table valued a gold
as a rook, a bishop as a gold, a rook as a bishop and a horse as nothing."""
import pytest

from usi_engine.eval.handwritten import default_weights
from usi_engine.core.position import Position
from usi_engine.search.testing import see_ge_of, see_value_of

PAWN, LANCE, KNIGHT, SILVER, BISHOP, ROOK, GOLD, KING = range(1, 9)
PROMOTED = 8
HORSE, DRAGON = BISHOP + PROMOTED, ROOK + PROMOTED
NAMES = {PAWN: "pawn", LANCE: "lance", KNIGHT: "knight", SILVER: "silver",
         BISHOP: "bishop", ROOK: "rook", GOLD: "gold", PAWN + PROMOTED: "tokin",
         LANCE + PROMOTED: "promoted lance", KNIGHT + PROMOTED: "promoted knight",
         SILVER + PROMOTED: "promoted silver", HORSE: "horse", DRAGON: "dragon"}


def exchange(sfen, usi, threshold):
    position = Position(sfen)
    return see_ge_of(position, position.parse_usi(usi), threshold)


# what SEE adds for a piece in hand over its board value: fixed (core/see.pxd), smaller than
# the evaluation's premium, which also prices the attacks a piece in hand threatens
SEE_HAND_PREMIUM = {PAWN: 15, LANCE: 20, KNIGHT: 25, SILVER: 30, BISHOP: 45, ROOK: 55,
                    GOLD: 30}


@pytest.mark.parametrize("piece_type", sorted(NAMES), ids=NAMES.get)
def test_each_piece_counts_its_board_value_plus_its_unpromoted_value_in_hand(piece_type):
    piece = default_weights()["piece"]
    unpromoted = piece_type - PROMOTED if piece_type > KING else piece_type
    assert see_value_of(piece_type) == (piece[piece_type] + piece[unpromoted]
                                      + SEE_HAND_PREMIUM[unpromoted])


def test_the_king_outweighs_every_other_piece_together():
    assert see_value_of(KING) > sum(see_value_of(pt) for pt in NAMES)


def test_a_gold_may_step_beside_its_king_where_a_horse_attacks():
    # traced from a lost game: the horse on 6d attacks 4b, which the king and the
    # silver defend; with the horse counted as nothing the move looked like losing a
    # gold outright and the search pruned the one defence
    sfen = "l1sg2snl/1r2k1g2/pp1P1p2p/3+Bp1pN1/9/2P5P/PP2PPPP1/3S1S1R1/+b2GKG1NL w 2Pnlp 32"
    assert exchange(sfen, "3b4b", 0)


def test_taking_a_defended_gold_with_a_bishop_loses_the_difference():
    # the bishop takes the gold on 5c, the pawn on 5b recaptures: 1110 won, 1755 lost
    sfen = "4k4/4p4/4g4/9/9/1B7/9/9/4K4 b - 1"
    assert not exchange(sfen, "8f5c", 0)
    assert exchange(sfen, "8f5c", 1110 - 1755)
    assert not exchange(sfen, "8f5c", 1110 - 1755 + 1)


def test_taking_a_defended_bishop_with_a_gold_wins_the_difference():
    sfen = "4k4/4p4/4b4/4G4/9/9/9/9/4K4 b - 1"
    assert exchange(sfen, "5d5c", 1755 - 1110)
    assert not exchange(sfen, "5d5c", 1755 - 1110 + 1)


def test_a_defended_horse_taken_by_a_rook_costs_only_the_difference():
    sfen = "4k4/4p4/4+b4/9/9/9/9/4R4/4K4 b - 1"
    for move in ("5h5c", "5h5c+"):      # (promoting, the pawn takes a dragon instead)
        assert exchange(sfen, move, 1845 - 2035)
        assert not exchange(sfen, move, 1845 - 2035 + 1)


def test_a_dragon_taken_by_a_pawn_wins_the_dragon():
    sfen = "4k4/9/4+r4/4P4/9/9/9/9/4K4 b - 1"
    assert exchange(sfen, "5d5c", 2440)
    assert not exchange(sfen, "5d5c", 2441)


def test_recaptures_come_cheapest_first_a_gold_before_a_bishop():
    # our silver takes the pawn on 5e, the lance takes it; we retake with the gold
    # (not the bishop), the silver takes that, the bishop takes the silver: 195 - 1020
    # + 650 - 1110 + 1020 = -265 (with the bishop first it would be -825)
    sfen = "B3k4/9/9/4ls3/4p4/3G1S3/9/9/4K4 b - 1"
    assert exchange(sfen, "4f5e", -265)
    assert not exchange(sfen, "4f5e", -264)
