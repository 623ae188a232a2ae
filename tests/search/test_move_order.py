"""The staged move picker's order, and the moves the search leaves out: the
non-promotions that the same move with promotion dominates."""
import pytest

from usi_engine.core.position import Position, move_to_usi
from usi_engine.search.testing import picker_sequence
from usi_engine.search.searcher import Searcher

# middle-game positions with pieces in hand, where drop checks are many
CHECK_RICH = (
    "ln2k2+P1/1r2gs1+R+L/pp2bpg2/2pp5/4B4/2P2PS2/PP1PS1N2/9/LN1GKG3 b SN6Plp 59",
    "ln1gkg3/1r1s1p3/ppppps+B+R1/8p/9/P1P1P4/1P1Pg2+bP/4G2+n1/LN2K4 w 2L5P2sn 64",
    "l3g4/1r1skl3/ppnplp3/2p3+R2/7p1/P1P3+b2/1PNP4+p/3S1S3/L1BGKG3 b 2N4Pgs3p 67",
    "ln1g3n1/1r1sgk3/pp3p1sl/2p5p/3p1+b3/1PP4RP/P1SP3pL/1B1S5/LN1GK1GN1 w 6p 72",
    "ln7/1r3s3/pp1+Bsp3/2p4k1/3P1Pp+rp/P1P5P/1PBnSS3/4K1G2/L2G1G1+pL w G2P2nl3p 78",
    "l2g1p1g1/1r1sk4/ppnpp4/8+R/6P2/3P4P/PPP6/1B2SG3/L+bG1K4 w S5Ps3n2l2p 82",
)
DOMINATED_CHOICES = "4k4/9/8L/2P6/9/9/9/1B7/4K4 b - 1"   # pawn, bishop, lance promote or not
DOMINATED = {"7d7c", "8h3c", "8h2b", "8h1a", "1c1b"}


def quiet_runs(order):
    """The history scores of the quiet moves in the order they were handed out."""
    return [score for _move, score in order if score is not None]


def root_moves_searched(sfen):
    first_moves = set()
    Searcher().search(Position(sfen), depth=1, multipv=600,
                      on_info=lambda info: first_moves.add(move_to_usi(info["pv"][0]))
                      if info.get("pv") else None)
    return first_moves


@pytest.mark.parametrize("sfen", CHECK_RICH)
def test_the_picker_hands_out_each_move_the_root_searches_once(sfen):
    handed = [m for m, _ in picker_sequence(Position(sfen), -2000)]
    assert len(handed) == len(set(handed))
    assert {move_to_usi(m) for m in handed} == root_moves_searched(sfen)


@pytest.mark.parametrize("sfen", CHECK_RICH)
def test_quiets_come_best_first_down_to_the_limit_then_the_rest(sfen):
    scores = quiet_runs(picker_sequence(Position(sfen), -2000))
    above = [s for s in scores if s >= -2000]
    assert scores[:len(above)] == sorted(above, reverse=True)
    assert scores[len(above):] and all(s < -2000 for s in scores[len(above):])


@pytest.mark.parametrize("sfen", CHECK_RICH)
def test_skipping_quiets_hands_out_the_captures_and_only_the_quiet_checks_best_first(sfen):
    position = Position(sfen)
    full = picker_sequence(position, -2000)
    skipping = picker_sequence(position, -2000, skip_quiets=True)
    quiet_checks = {m for m, score in full if score is not None and position.gives_check(m)}
    assert [m for m, score in skipping if score is None] == [m for m, score in full
                                                             if score is None]
    assert {m for m, score in skipping if score is not None} == quiet_checks
    scores = quiet_runs(skipping)
    above = [s for s in scores if s >= -2000]
    assert scores[:len(above)] == sorted(above, reverse=True)


def test_the_search_leaves_out_exactly_the_non_promotions_a_promotion_covers():
    searched = root_moves_searched(DOMINATED_CHOICES)
    legal = {move_to_usi(m) for m in Position(DOMINATED_CHOICES).legal_moves()}
    assert searched == legal - DOMINATED
    assert {m + "+" for m in DOMINATED} <= searched


def test_searchmoves_may_still_name_a_dominated_move():
    pos = Position(DOMINATED_CHOICES)
    only = [m for m in pos.legal_moves() if move_to_usi(m) == "8h2b"]
    assert move_to_usi(Searcher().search(pos, depth=3, searchmoves=only).best) == "8h2b"


# White to move after these 7 plies has lost the pawn it dropped: black's king move back
# (4i5i) brings the board of 8 plies before, with white to move and less in hand.
LOOP_START = "4k4/4g4/9/9/9/9/4R4/9/4K4 w p 1"
LOOP_MOVES = "P*5e 5g5e 5a4a 5e5g 4a4b 5i4i 4b5a".split()


def test_a_repetition_with_less_in_hand_is_scored_by_its_material_not_as_a_draw():
    p = Position(LOOP_START)
    for m in LOOP_MOVES:
        p.push_usi(m)
    result = Searcher().search(p, depth=3)
    assert result.score_cp is not None and 0 < abs(result.score_cp) < 3000
