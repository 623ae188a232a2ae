"""Search parameters for tuning: offered as USI options only with USI_ENGINE_TUNE,
taken at isready, range-checked, and they change the search."""
import io

import pytest

from usi_engine.eval import kp

from usi_engine.search import searcher as search

from usi_engine.search import alphabeta as tree

from usi_engine.usi import tuning
from usi_engine.eval.loader import EvalLoader
from usi_engine.core.position import Position, move_to_usi
from usi_engine.search.searcher import Searcher
from usi_engine.usi.loop import UsiEngine

MIDGAME = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
MATE_IN_3_TSUME = "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"   # Koten 3-ply
DEFAULTS = {name: default for name, default, _low, _high in tree.TUNABLES}


@pytest.fixture(autouse=True)
def compiled_defaults():
    """Every test starts and ends with the compiled defaults."""
    for name, value in DEFAULTS.items():
        tree.set_search_parameter(name, value)
    yield
    for name, value in DEFAULTS.items():
        tree.set_search_parameter(name, value)


def evaluation_for_the_test(eval_type):
    """Switch to eval_type for one test, then back to what was in place."""
    was_enabled = kp.enabled()
    EvalLoader().apply(eval_type, "")
    yield
    kp.set_enabled(was_enabled)


@pytest.fixture
def learned_evaluation():
    """The shipped network, whichever evaluation an earlier test left in place."""
    yield from evaluation_for_the_test("learned")


@pytest.fixture
def hand_evaluation():
    """The hand-set evaluation, whichever evaluation an earlier test left in place."""
    yield from evaluation_for_the_test("hand")


def usi_reply(environ_value, monkeypatch, *lines):
    if environ_value is None:
        monkeypatch.delenv(tuning.ENV_VAR, raising=False)
    else:
        monkeypatch.setenv(tuning.ENV_VAR, environ_value)
    out = io.BytesIO()
    engine = UsiEngine(out)
    for line in lines:
        engine.handle_line(line)
    return out.getvalue().decode().splitlines()


def nodes_to_depth(depth=6):
    s = Searcher()
    s.set_hash(16)
    return s.search(Position(MIDGAME), depth=depth).nodes


def assert_finds_the_tsume_mate_and_a_legal_line(pv_depth, fresh_table=False):
    """The search as now set finds the mate in 3 at depth 7, and its line on MIDGAME at
    pv_depth is legal move by move (fresh_table: from a new table, not the mate's)."""
    s = Searcher()
    s.set_hash(16)
    assert s.search(Position(MATE_IN_3_TSUME), depth=7).score_mate == 3
    if fresh_table:
        s = Searcher()
        s.set_hash(16)
    position = Position(MIDGAME)
    for move in s.search(Position(MIDGAME), depth=pv_depth).pv:
        assert position.is_legal(move)
        position.push(move)


@pytest.mark.parametrize("value", [None, "", "0"])
def test_a_gui_sees_no_tuning_option_unless_the_variable_is_set(monkeypatch, value):
    reply = usi_reply(value, monkeypatch, "usi")
    assert not any("RfpMargin" in line for line in reply)


def test_with_the_variable_every_parameter_is_a_spin_option_at_its_compiled_default(monkeypatch):
    reply = usi_reply("1", monkeypatch, "usi")
    for name, default, low, high in tree.TUNABLES:
        assert f"option name {name} type spin default {default} min {low} max {high}" in reply


def test_a_tuning_option_reaches_the_search_at_isready(monkeypatch):
    usi_reply("1", monkeypatch, "usi", "setoption name RfpMargin value 222", "isready")
    assert tree.search_parameters()["RfpMargin"] == 222


def test_an_out_of_range_value_is_refused_by_the_search():
    with pytest.raises(ValueError, match="outside"):
        tree.set_search_parameter("LmrDivisor", 99)
    assert tree.search_parameters()["LmrDivisor"] == DEFAULTS["LmrDivisor"]


def test_an_unknown_parameter_is_refused():
    with pytest.raises(KeyError):
        tree.set_search_parameter("NoSuchParameter", 1)


def test_a_changed_parameter_changes_the_tree_and_the_default_restores_it():
    before = nodes_to_depth()
    tree.set_search_parameter("LmrDivisor", 120)     # reduces much more
    changed = nodes_to_depth()
    tree.set_search_parameter("LmrDivisor", DEFAULTS["LmrDivisor"])
    assert changed != before and nodes_to_depth() == before


def test_switches_are_left_out_of_spsa_and_margins_are_kept():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import spsa_tune
    tuned = {t[0] for t in spsa_tune.tunables()}
    assert tree.SWITCHES <= set(DEFAULTS) and not tuned & tree.SWITCHES
    assert tuned == set(DEFAULTS) - tree.SWITCHES


# middle-game positions with pieces in hand, where drop checks are many
CHECK_RICH = (
    "ln2k2+P1/1r2gs1+R+L/pp2bpg2/2pp5/4B4/2P2PS2/PP1PS1N2/9/LN1GKG3 b SN6Plp 59",
    "ln1gkg3/1r1s1p3/ppppps+B+R1/8p/9/P1P1P4/1P1Pg2+bP/4G2+n1/LN2K4 w 2L5P2sn 64",
    "l3g4/1r1skl3/ppnplp3/2p3+R2/7p1/P1P3+b2/1PNP4+p/3S1S3/L1BGKG3 b 2N4Pgs3p 67",
    "ln1g3n1/1r1sgk3/pp3p1sl/2p5p/3p1+b3/1PP4RP/P1SP3pL/1B1S5/LN1GK1GN1 w 6p 72",
    "ln7/1r3s3/pp1+Bsp3/2p4k1/3P1Pp+rp/P1P5P/1PBnSS3/4K1G2/L2G1G1+pL w G2P2nl3p 78",
    "l2g1p1g1/1r1sk4/ppnpp4/8+R/6P2/3P4P/PPP6/1B2SG3/L+bG1K4 w S5Ps3n2l2p 82",
)


def test_reducing_checks_and_losing_captures_shrinks_the_tree(learned_evaluation):
    # summed over depths 8 to 10 with the shipped network: one depth alone flips with
    # move-ordering changes (PruneChecks 0 against 1: 445,872 against 306,399 nodes at
    # depth 10, 190,871 against 199,109 at depth 9 once non-capturing promotions were
    # ordered by their gain)
    def total_nodes():
        total = 0
        for sfen in CHECK_RICH:
            for depth in (8, 9, 10):
                s = Searcher()
                s.set_hash(16)
                total += s.search(Position(sfen), depth=depth).nodes
        return total
    tree.set_search_parameter("PruneChecks", 0)
    without = total_nodes()
    tree.set_search_parameter("PruneChecks", 1)
    assert total_nodes() < without


def quiet_runs(order):
    """The history scores of the quiet moves in the order they were handed out."""
    return [score for _move, score in order if score is not None]


@pytest.mark.parametrize("sfen", CHECK_RICH)
def test_presorted_quiets_are_every_move_once_best_first_down_to_the_limit(sfen):
    position = Position(sfen)
    picked = search._picker_sequence(position, 0, False)
    presorted = search._picker_sequence(position, -2000, True)
    assert sorted(m for m, _ in presorted) == sorted(m for m, _ in picked) == sorted(
        position.legal_moves())
    scores = quiet_runs(presorted)
    above = [s for s in scores if s >= -2000]
    assert scores[:len(above)] == sorted(above, reverse=True)
    assert scores[len(above):] and all(s < -2000 for s in scores[len(above):])


@pytest.mark.parametrize("sfen", CHECK_RICH)
def test_skipping_quiets_hands_out_the_captures_and_only_the_quiet_checks_best_first(sfen):
    position = Position(sfen)
    full = search._picker_sequence(position, -2000, True)
    skipping = search._picker_sequence(position, -2000, True, skip_quiets=True)
    quiet_checks = {m for m, score in full if score is not None and position.gives_check(m)}
    assert [m for m, score in skipping if score is None] == [m for m, score in full
                                                             if score is None]
    assert {m for m, score in skipping if score is not None} == quiet_checks
    scores = quiet_runs(skipping)
    above = [s for s in scores if s >= -2000]
    assert scores[:len(above)] == sorted(above, reverse=True)


@pytest.mark.parametrize("sfen", CHECK_RICH)
def test_picking_the_best_each_time_hands_out_quiets_best_first(sfen):
    scores = quiet_runs(search._picker_sequence(Position(sfen), 0, False))
    assert scores == sorted(scores, reverse=True)


def check_rich_nodes(depth):
    total = 0
    for sfen in CHECK_RICH:
        s = Searcher()
        s.set_hash(16)
        total += s.search(Position(sfen), depth=depth).nodes
    return total


@pytest.mark.parametrize("name, value", [("QsRecapturePly", 1), ("QsMoveCount", 1),
                                         ("QsEvasionLimit", 1)])
def test_each_quiescence_limit_shrinks_the_quiescence_trees(name, value):
    # at depth 1 every root move is searched and followed by quiescence alone
    tree.set_search_parameter(name, 0)
    without = check_rich_nodes(1)
    tree.set_search_parameter(name, value)
    assert check_rich_nodes(1) < without


def test_exempting_capture_checks_from_the_quiescence_limits_grows_the_trees():
    tree.set_search_parameter("QsCheckExempt", 0)
    without = check_rich_nodes(1)
    tree.set_search_parameter("QsCheckExempt", 1)
    assert check_rich_nodes(1) > without


def test_the_quiescence_limits_keep_a_short_tsume_mate():
    for name in ("QsRecapturePly", "QsMoveCount", "QsEvasionLimit", "QsChecks"):
        tree.set_search_parameter(name, 1)
    s = Searcher()
    s.set_hash(16)
    assert s.search(Position(MATE_IN_3_TSUME), depth=5).score_mate == 3


# (the null move and move-count pruning only differ in nodes deeper than 7 plies)
@pytest.mark.parametrize("name, value, depth", [
    ("RfpImproving", 1, 7), ("CaptureFutility", 50, 7), ("RazorMargin", 300, 7),
    ("ProbCutMargin", 0, 7), ("TtEval", 1, 7), ("QsChecks", 2, 7), ("IirDepth", 0, 7),
    ("TtCaptureReduction", 1, 7), ("FutilityLmrDepth", 0, 7), ("LmrMinDepth", 4, 7),
    ("NullBase", 3, 10), ("NullDepthDivisor", 4, 10), ("McpDepth", 64, 10),
    ("SingularDepth", 6, 10), ("ThreatOrder", 0, 7),
    ("LmrDeeper", 0, 10), ("QuietSeePrune", 0, 7), ("PrunePv", 0, 7),
    ("FutilityHistory", 1, 7), ("CountPruned", 1, 7), ("NullCutOnly", 1, 10),
    ("RfpQuietTtMove", 0, 7), ("QuietCheckBonus", 16384, 7), ("NullMarginBase", 378, 10),
    ("RootLmr", 0, 7), ("RootOrder", 1, 7), ("PvLmr", 3, 7), ("TtPvLmr", 2, 7),
    ("HistoryShape", 0, 7), ("LmrShape", 1, 7), ("NodeShape", 1, 10),
    ("SkipDominated", 0, 7), ("PvResearch", 0, 7), ("ContPlies", 1, 7),
    ("PawnHistory", 0, 7), ("QsPromoteOnly", 1, 7), ("EvasionPrune", 3, 7),
    ("CaptureHistory", 0, 7), ("HistoryExtras", 1, 7), ("HistoryExtras", 2, 7),
    ("HistoryExtras", 0, 7), ("HistoryExtras", 4, 7),
    ("LowPlyHistory", 0, 7), ("CapturePrune", 0, 7), ("QsShape", 1, 7), ("QsShape", 2, 7),
    ("QsShape", 4, 7), ("CaptureGain", 1, 7), ("DeeperRoom", 1, 7)])
def test_each_technique_switched_from_its_default_changes_the_tree(name, value, depth,
                                                                  learned_evaluation):
    assert DEFAULTS[name] != value
    before = nodes_to_depth(depth)
    tree.set_search_parameter(name, value)
    assert nodes_to_depth(depth) != before


def test_the_yaneuraou_style_pruning_keeps_a_short_tsume_mate_and_a_legal_line():
    for name, value in (("QuietSeePrune", 25), ("PrunePv", 1), ("FutilityHistory", 1),
                        ("CountPruned", 1), ("McpDepth", 64), ("NullCutOnly", 1),
                        ("RfpQuietTtMove", 0), ("RfpDepth", 14)):
        tree.set_search_parameter(name, value)
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=10)


def test_the_singular_extension_keeps_a_short_tsume_mate_and_a_legal_line():
    # the excluded-move search must neither store its bounds nor drop the only move
    tree.set_search_parameter("SingularDepth", 4)
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=10, fresh_table=True)


def test_multiple_singular_extensions_change_the_tree_of_a_singular_search():
    tree.set_search_parameter("SingularDepth", 6)
    before = nodes_to_depth(10)
    tree.set_search_parameter("SingularMulti", 1)
    assert nodes_to_depth(10) != before


def test_the_yaneuraou_style_ordering_and_reductions_keep_a_short_tsume_mate_and_a_legal_line():
    for name, value in (("QuietCheckBonus", 16384), ("NullMarginBase", 378), ("RootLmr", 0),
                        ("RootOrder", 1), ("PvLmr", 3), ("TtPvLmr", 4),
                        ("SingularDepth", 6), ("SingularMulti", 1), ("HistoryShape", 1)):
        tree.set_search_parameter(name, value)
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=10)


def test_the_yaneuraou_search_shape_keeps_a_short_tsume_mate_and_a_legal_line():
    # histories, reductions, move and node pruning and extensions all in their
    # YaneuraOu form at once: the combination that is measured against YaneuraOu
    for name, value in (("HistoryShape", 1), ("LmrShape", 1), ("NodeShape", 1),
                        ("SingularDepth", 6), ("SingularMulti", 1)):
        tree.set_search_parameter(name, value)
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=12)


# A blunder-suite position (index 61) after P*2c: its depth-9 iteration spent 91% of its
# nodes under one line of depth-3 nodes, each reached by LmrDeeper's re-search at its
# parent's own depth, from ply 6 to past ply 40
DEEPER_CHAIN = "ln1gk1s2/6gbl/ppspppnP1/6pRp/2r1B4/4P1P2/PP1P2N1P/2GS1S2L/LN1K1G3 w P3p 34"


def test_bounding_the_deeper_re_search_keeps_a_line_from_never_losing_depth(hand_evaluation):
    def nodes_to_depth_10():
        s = Searcher()
        s.set_hash(16)
        return s.search(Position(DEEPER_CHAIN), depth=10).nodes
    # (the chain was traced without ProbCut, which cuts it short too: with ProbCutMargin
    # 200, 57,195 nodes unbounded and 22,916 with DeeperRoom 3)
    tree.set_search_parameter("ProbCutMargin", 0)
    unbounded = nodes_to_depth_10()         # 170,028 when measured
    tree.set_search_parameter("DeeperRoom", 3)
    assert nodes_to_depth_10() * 4 < unbounded     # 16,057


def test_capture_gain_and_deeper_room_keep_a_short_tsume_mate_and_a_legal_line():
    tree.set_search_parameter("CaptureGain", 1)
    tree.set_search_parameter("DeeperRoom", 1)
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=10)


DOMINATED_CHOICES = "4k4/9/8L/2P6/9/9/9/1B7/4K4 b - 1"   # pawn, bishop, lance promote or not
DOMINATED = {"7d7c", "8h3c", "8h2b", "8h1a", "1c1b"}


def root_moves_searched(sfen):
    first_moves = set()
    Searcher().search(Position(sfen), depth=1, multipv=600,
                      on_info=lambda info: first_moves.add(move_to_usi(info["pv"][0]))
                      if info.get("pv") else None)
    return first_moves


def test_without_skipping_every_legal_root_move_is_searched_the_dominated_ones_too():
    tree.set_search_parameter("SkipDominated", 0)
    searched = root_moves_searched(DOMINATED_CHOICES)
    assert DOMINATED <= searched
    assert len(searched) == len(Position(DOMINATED_CHOICES).legal_moves())


def test_skipping_dominated_moves_leaves_out_exactly_the_non_promotions_a_promotion_covers():
    tree.set_search_parameter("SkipDominated", 1)
    searched = root_moves_searched(DOMINATED_CHOICES)
    legal = {move_to_usi(m) for m in Position(DOMINATED_CHOICES).legal_moves()}
    assert searched == legal - DOMINATED
    assert {m + "+" for m in DOMINATED} <= searched


def test_searchmoves_may_still_name_a_dominated_move_when_skipping():
    tree.set_search_parameter("SkipDominated", 1)
    pos = Position(DOMINATED_CHOICES)
    only = [m for m in pos.legal_moves() if move_to_usi(m) == "8h2b"]
    assert move_to_usi(Searcher().search(pos, depth=3, searchmoves=only).best) == "8h2b"


def test_skipping_dominated_moves_keeps_a_short_tsume_mate_and_a_legal_line():
    tree.set_search_parameter("SkipDominated", 1)
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=10)


def test_re_searches_more_histories_and_promotions_only_in_quiescence_keep_a_short_tsume_mate():
    for name in ("PvResearch", "ContPlies", "PawnHistory", "QsPromoteOnly", "HistoryShape",
                 "SkipDominated"):
        tree.set_search_parameter(name, 1)
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=10)


def test_evasion_pruning_histories_and_yaneuraou_quiescence_keep_the_mate_and_a_legal_line():
    for name, value in (("EvasionPrune", 3), ("CaptureHistory", 1), ("HistoryExtras", 7),
                        ("LowPlyHistory", 1), ("CapturePrune", 1), ("QsShape", 7)):
        tree.set_search_parameter(name, value)
    assert_finds_the_tsume_mate_and_a_legal_line(pv_depth=10)


# White to move after these 7 plies has lost the pawn it dropped: black's king move back
# (4i5i) brings the board of 8 plies before, with white to move and less in hand.
LOOP_START = "4k4/4g4/9/9/9/9/4R4/9/4K4 w p 1"
LOOP_MOVES = "P*5e 5g5e 5a4a 5e5g 4a4b 5i4i 4b5a".split()


def loop_position():
    p = Position(LOOP_START)
    for m in LOOP_MOVES:
        p.push_usi(m)
    return p


def test_repetition_hand_scores_an_inferior_repetition_for_the_opponent_as_its_value():
    tree.set_search_parameter("RepetitionHand", 28000)
    result = Searcher().search(loop_position(), depth=3)
    assert (result.score_cp, move_to_usi(result.best)) == (28000, "4i5i")


def test_without_repetition_hand_the_same_loop_is_scored_by_its_material():
    result = Searcher().search(loop_position(), depth=3)
    assert result.score_cp is not None and abs(result.score_cp) < 3000
