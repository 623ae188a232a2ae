"""The search core: results are legal, mates are found with exact distances, game
rules reach the score, limits and stop are obeyed, fixed-depth runs are deterministic."""
import threading
import time

import pytest

from usi_engine.core.position import Position, move_to_usi
from usi_engine.search.searcher import Searcher

MATE_IN_1 = "4k4/9/4P4/9/9/9/9/9/4K4 b G 1"
MATE_IN_3_TSUME = "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"   # Koten 3-ply
MIDGAME = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"


@pytest.fixture(scope="module")
def searcher():
    s = Searcher()
    s.set_hash(16)
    return s


def test_best_move_is_legal_at_every_depth(searcher):
    pos = Position()
    for depth in range(1, 6):
        result = searcher.search(pos, depth=depth)
        assert result.best in pos.legal_moves()
        assert result.depth == depth


def test_search_does_not_modify_the_position(searcher):
    pos = Position(MIDGAME)
    before = (pos.sfen(), pos.key, pos.history_length)
    searcher.search(pos, depth=4)
    assert (pos.sfen(), pos.key, pos.history_length) == before


def test_quiescence_sees_a_mate_in_one_beyond_the_horizon(searcher):
    # taking the rook lets white drop a gold on 5h, mate (the silver on 5g guards it):
    # a depth-1 search sees that only if quiescence looks for a mate in one
    result = searcher.search(Position("4k4/9/8r/9/9/9/4s4/9/4K3R b Gg 1"), depth=1)
    assert move_to_usi(result.best) not in ("1i1c", "1i1c+")


def test_mate_in_one_is_found_with_distance_one(searcher):
    result = searcher.search(Position(MATE_IN_1), depth=3)
    assert move_to_usi(result.best) == "G*5b"
    assert result.score_mate == 1


def test_mate_in_three_without_an_attacking_king(searcher):
    result = searcher.search(Position(MATE_IN_3_TSUME), depth=5)
    assert result.score_mate == 3
    pos = Position(MATE_IN_3_TSUME)
    for m in result.pv:
        pos.push(m)
    assert pos.is_checkmate()


def test_being_mated_gives_a_negative_mate_score(searcher):
    # white's only move is 1a2a, then G*2b mates: mated in 2 plies
    result = searcher.search(Position("8k/9/7GP/9/9/9/9/9/K8 w G 1"), depth=4)
    assert result.score_mate == -2


def test_no_legal_move_gives_no_best_move(searcher):
    result = searcher.search(Position("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1"), depth=3)
    assert result.best == 0


def test_principal_variation_is_a_legal_line(searcher):
    pos = Position(MIDGAME)
    result = searcher.search(pos, depth=5)
    for m in result.pv:
        assert m in pos.legal_moves()
        pos.push(m)
    assert result.ponder == (result.pv[1] if len(result.pv) > 1 else 0)


def test_fixed_depth_node_count_is_deterministic():
    counts = set()
    for _ in range(2):
        s = Searcher()
        s.set_hash(16)
        counts.add(s.search(Position(MIDGAME), depth=5).nodes)
    assert len(counts) == 1


def test_searchmoves_restricts_the_root(searcher):
    pos = Position()
    allowed = [pos.parse_usi("1g1f"), pos.parse_usi("9g9f")]
    result = searcher.search(pos, depth=4, searchmoves=allowed)
    assert result.best in allowed


def test_multipv_reports_distinct_first_moves(searcher):
    lines = {}
    searcher.search(Position(), depth=4, multipv=3,
                    on_info=lambda info: lines.__setitem__(info["multipv"], info["pv"][0]))
    assert sorted(lines) == [1, 2, 3]
    assert len(set(lines.values())) == 3


def test_node_limit_is_obeyed(searcher):
    result = searcher.search(Position(MIDGAME), nodes=5000)
    assert 0 < result.nodes <= 5000 + 1
    assert result.best in Position(MIDGAME).legal_moves()


@pytest.mark.timing
def test_hard_deadline_is_obeyed(searcher):
    start = time.perf_counter()
    result = searcher.search(Position(MIDGAME), hard_ms=100)
    assert time.perf_counter() - start < 0.2
    assert result.best != 0


@pytest.mark.timing
def test_stop_from_another_thread_ends_an_infinite_search(searcher):
    threading.Timer(0.1, searcher.stop).start()
    start = time.perf_counter()
    result = searcher.search(Position(MIDGAME))
    assert time.perf_counter() - start < 0.2
    assert result.best in Position(MIDGAME).legal_moves()


@pytest.mark.timing
def test_set_deadlines_from_another_thread_takes_effect(searcher):
    threading.Timer(0.05, searcher.set_deadlines, args=(30, 60)).start()
    start = time.perf_counter()
    searcher.search(Position(MIDGAME))
    assert time.perf_counter() - start < 0.25


def test_progress_is_reported_at_iteration_ends(searcher):
    infos = []
    searcher.search(Position(), depth=5, on_info=infos.append)
    depths = [i["depth"] for i in infos if "pv" in i]
    assert depths[-1] == 5 and depths == sorted(depths)
    assert all({"nodes", "nps", "time_ms", "hashfull", "pv"} <= set(i) for i in infos)


def test_an_error_in_the_callback_reaches_the_caller_and_the_searcher_still_works(searcher):
    def broken(_info):
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError):
        searcher.search(Position(), depth=2, on_info=broken)
    assert searcher.search(Position(), depth=2).best != 0


def test_perpetual_check_is_scored_as_a_loss_for_the_checker(searcher):
    # Black's only tries are rook checks that repeat; after 3c3a 1a1b 3a3b 1b1a the
    # position recurs with black having checked throughout.
    pos = Position("8k/9/6R2/9/9/9/9/9/K8 b - 1")
    for u in ["3c3a", "1a1b", "3a3b", "1b1a"]:
        pos.push_usi(u)
    result = searcher.search(pos, depth=3, searchmoves=[pos.parse_usi("3b3a")])
    assert result.score_mate is not None and result.score_mate < 0


def test_a_recurrence_of_a_position_from_long_before_the_root_is_scored_as_a_draw(searcher):
    # Black, a gold down, walks its king out and back twice; 5i5h brings back the
    # position after the game's first move, eight plies before the root (past the
    # search's own line: the walk back that far is taken only when the board may match)
    pos = Position("4k4/9/9/9/9/9/9/9/4K4 b g 1")
    for u in ["5i5h", "5a5b", "5h5i", "5b5a", "5i4h", "5a4b", "4h5i", "4b5a"]:
        pos.push_usi(u)
    result = searcher.search(pos, depth=2, searchmoves=[pos.parse_usi("5i5h")])
    assert result.score_mate is None and result.score_cp == 0


def test_entering_king_declaration_is_a_win_in_search(searcher):
    # white's one move, then black declares: the declaration is a move, so white is
    # mated in 2 plies (and black, to move there, mates in 1)
    pos = Position("K+R+B+P+P+P+P+P+P/6+P+P+P/9/9/9/9/9/9/k8 w RB2G2S2N 1")
    assert searcher.search(pos, depth=2).score_mate == -2
    pos.push(pos.legal_moves()[0])
    assert searcher.search(pos, depth=2).score_mate == 1


def test_max_game_ply_turns_the_horizon_into_a_draw(searcher):
    # white is some 1,700 cp down here; at ply 300 of a 300-ply game every move ends it
    assert abs(searcher.search(Position(MIDGAME), depth=3).score_cp) > 1000
    searcher.new_game()
    result = searcher.search(Position(MIDGAME.replace(" 1", " 300")), depth=3, max_game_ply=300)
    assert (result.score_mate, result.score_cp) == (None, 0)


def test_hash_can_be_resized_and_cleared(searcher):
    searcher.set_hash(2)
    searcher.search(Position(MIDGAME), depth=6)
    assert searcher.hashfull() > 0
    searcher.new_game()
    assert searcher.hashfull() == 0
    searcher.set_hash(16)


def test_tiny_hash_keeps_working_when_full():
    s = Searcher()
    s.set_hash(1)
    result = s.search(Position(MIDGAME), nodes=400_000)   # ~6 times what 1 MB holds
    assert result.best != 0 and s.hashfull() > 900


@pytest.mark.parametrize("sfen,nodes", [
    # found by bench/match.py: cut off mid-iteration, the search used to report an
    # aspiration bound as "mated in 10" and the engine resigned a won game
    ("ln1gks2l/3spg3/2pp4p/p3N1PP1/1pP6/P2PL4/1PSnP1+b2/2KG4+r/LN3R3 w 3Pbgs2p 114", 100_000),
    ("lnsg3nl/1k2pR3/pppp2+Bpp/9/2P1P1p2/5s1P1/P4pP1P/1P1SG4/LN1GK1+bNL b GPrsp 59", 55_000),
])
def test_a_cut_off_iteration_never_reports_its_bounds_as_the_score(sfen, nodes):
    s = Searcher()
    s.set_hash(16)
    full = s.search(Position(sfen), depth=3)
    s.new_game()
    cut = s.search(Position(sfen), nodes=nodes)
    assert cut.score_mate is None
    assert (cut.score_cp > 0) == (full.score_cp > 0)


def test_root_mate_probe_plays_a_long_mate_with_its_exact_distance(searcher):
    karolina = "4RB1k1/5s3/7n1/5s1LP/9/7r1/9/9/6K2 b b4g2s3n3l17p 1"   # mate in 13
    probed = searcher.search(Position(karolina), depth=5, mate_probe_ms=2000)
    assert probed.score_mate == 13 and len(probed.pv) == 13
    pos = Position(karolina)
    for m in probed.pv:
        pos.push(m)
    assert pos.is_checkmate()


def test_root_mate_probe_respects_searchmoves(searcher):
    pos = Position(MATE_IN_1)
    other = [m for m in pos.legal_moves() if move_to_usi(m) != "G*5b"][:3]
    result = searcher.search(pos, depth=2, mate_probe_ms=500, searchmoves=other)
    assert result.best in other


def test_mate_in_one_below_the_root_keeps_the_mating_line_whole(searcher):
    # the last attacker move comes from the mate-in-one test, not from a child search
    result = searcher.search(Position(MATE_IN_3_TSUME), depth=3)
    assert result.score_mate == 3 and len(result.pv) == 3


def test_the_table_keeps_the_root_best_move_and_score_after_a_search():
    from usi_engine.search.testing import table_entry
    s = Searcher()
    s.set_hash(16)
    result = s.search(Position(MIDGAME), depth=6)
    move, value, depth, bound = table_entry(s, Position(MIDGAME))
    assert (move, value, depth, bound) == (result.best, result.score_cp, 6, 3)   # 3: exact


def test_the_table_has_no_entry_for_a_position_never_searched():
    from usi_engine.search.testing import table_entry
    s = Searcher()
    s.set_hash(16)
    s.search(Position(), depth=3)
    assert table_entry(s, Position(MIDGAME)) is None


def test_the_search_mate_value_is_the_notations():
    from usi_engine.notation.score import MATE_VALUE
    from usi_engine.search.searcher import SEARCH_MATE_VALUE
    assert SEARCH_MATE_VALUE == MATE_VALUE == 32000
