"""Tests for usi_engine.usi.go (go parsing) and usi_engine.usi.timeman (the soft and
hard deadlines)."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from usi_engine.usi import options, timeman
from usi_engine.usi.go import GoParams, parse_go
from usi_engine.usi.timeman import ClockLoss, TimePlan, plan

# Explicit option values so the tests do not depend on the defaults changing.
OPTS = {
    "NetworkDelay": 120,
    "NetworkDelay2": 1120,
    "MinimumThinkingTime": 100,
    "SlowMover": 100,
    "MaxMovesToDraw": 0,
}


def go(line: str, black: bool = True, ply: int = 1, **overrides) -> TimePlan:
    """Plan for ``go <line>`` with OPTS (plus overrides)."""
    params, warnings = parse_go(line.split())
    assert warnings == []
    return plan(params, black, ply, {**OPTS, **overrides})


# --- parse_go ------------------------------------------------------------------------------


def test_parse_go_reads_every_numeric_field():
    params, warnings = parse_go(
        "btime 1 wtime 2 binc 3 winc 4 byoyomi 5 movestogo 6 depth 7 nodes 8 movetime 9".split()
    )
    assert warnings == []
    assert (params.btime, params.wtime, params.binc, params.winc, params.byoyomi) == (1, 2, 3, 4, 5)
    assert (params.movestogo, params.depth, params.nodes, params.movetime) == (6, 7, 8, 9)


def test_parse_go_without_tokens_sets_nothing():
    assert parse_go([]) == (GoParams(), [])


def test_parse_go_reads_byoyomi_and_increments_together():
    params, warnings = parse_go("btime 10 wtime 20 byoyomi 1000 binc 5 winc 6".split())
    assert warnings == []
    assert (params.byoyomi, params.binc, params.winc) == (1000, 5, 6)


def test_parse_go_skips_and_reports_unknown_tokens():
    params, warnings = parse_go("foo btime 100 bar baz wtime 200".split())
    assert (params.btime, params.wtime) == (100, 200)
    assert warnings == [
        "go: unknown token 'foo' ignored",
        "go: unknown token 'bar' ignored",
        "go: unknown token 'baz' ignored",
    ]


def test_parse_go_reports_a_number_missing_at_the_end():
    params, warnings = parse_go("wtime 5 btime".split())
    assert params.btime is None and params.wtime == 5
    assert warnings == ["go: btime needs a value"]


def test_parse_go_missing_number_does_not_swallow_the_next_keyword():
    params, warnings = parse_go("btime wtime 100".split())
    assert params.btime is None and params.wtime == 100
    assert warnings == ["go: btime needs a value"]


@pytest.mark.parametrize("text", ["abc", "1.5", "1e3", "--5", "10ms"])
def test_parse_go_reports_a_non_integer_and_keeps_parsing(text):
    params, warnings = parse_go(["btime", text, "wtime", "7"])
    assert params.btime is None and params.wtime == 7
    assert warnings == [f"go: btime needs an integer, got {text!r}"]


@pytest.mark.parametrize("field", ["btime", "wtime", "binc", "winc", "byoyomi", "movetime"])
def test_parse_go_negative_time_counts_as_zero(field):
    params, warnings = parse_go([field, "-1500"])
    assert getattr(params, field) == 0
    assert warnings == []


@pytest.mark.parametrize("field", ["depth", "nodes", "movestogo"])
def test_parse_go_non_positive_count_is_reported_and_ignored(field):
    params, warnings = parse_go([field, "0"])
    assert getattr(params, field) is None
    assert len(warnings) == 1 and field in warnings[0]


def test_parse_go_mate_alone_means_infinite():
    params, warnings = parse_go(["mate"])
    assert params.mate == "infinite" and warnings == []


def test_parse_go_mate_infinite():
    params, warnings = parse_go(["mate", "infinite"])
    assert params.mate == "infinite" and warnings == []


def test_parse_go_mate_infinite_is_not_go_infinite():
    params, _ = parse_go(["mate", "infinite"])
    assert params.infinite is False


def test_parse_go_mate_with_milliseconds():
    params, warnings = parse_go(["mate", "1000"])
    assert params.mate == 1000 and warnings == []


def test_parse_go_mate_followed_by_a_keyword_means_infinite():
    params, warnings = parse_go("mate depth 3".split())
    assert params.mate == "infinite" and params.depth == 3 and warnings == []


def test_parse_go_mate_with_garbage_is_reported_and_infinite():
    params, warnings = parse_go("mate soon".split())
    assert params.mate == "infinite"
    assert len(warnings) == 1 and "'soon'" in warnings[0]


def test_parse_go_infinite_sets_the_flag():
    params, warnings = parse_go(["infinite"])
    assert params.infinite is True and params.ponder is False and warnings == []


def test_parse_go_ponder_with_clocks():
    params, warnings = parse_go("ponder btime 1000 wtime 2000 byoyomi 3000".split())
    assert params.ponder is True
    assert (params.btime, params.wtime, params.byoyomi) == (1000, 2000, 3000)
    assert warnings == []


def test_parse_go_searchmoves_stop_at_the_next_keyword():
    params, warnings = parse_go("searchmoves 7g7f 2g2f btime 10".split())
    assert params.searchmoves == ["7g7f", "2g2f"]
    assert params.btime == 10 and warnings == []


def test_parse_go_searchmoves_keep_drops_and_promotions_verbatim():
    params, _ = parse_go("searchmoves P*5e 8h2b+".split())
    assert params.searchmoves == ["P*5e", "8h2b+"]


def test_parse_go_searchmoves_without_moves_is_reported():
    params, warnings = parse_go("searchmoves infinite".split())
    assert params.searchmoves == [] and params.infinite is True
    assert warnings == ["go: searchmoves has no moves; ignored"]


def test_parse_go_keywords_ignore_case():
    params, warnings = parse_go("BTIME 5 Infinite".split())
    assert params.btime == 5 and params.infinite is True and warnings == []


def test_parse_go_repeated_keyword_keeps_the_last_value():
    params, _ = parse_go("btime 5 btime 6".split())
    assert params.btime == 6


VOCABULARY = [
    "btime", "wtime", "binc", "winc", "byoyomi", "movestogo", "depth", "nodes",
    "movetime", "infinite", "ponder", "mate", "searchmoves", "7g7f", "P*5e",
    "0", "-1", "100", "99999999999", "1.5", "", "x", "<empty>",
]


@given(st.lists(st.sampled_from(VOCABULARY), max_size=20), st.booleans(), st.integers(-5, 400))
def test_parse_go_and_plan_never_raise_on_any_token_soup(tokens, black, ply):
    params, warnings = parse_go(tokens)
    assert all(isinstance(w, str) for w in warnings)
    result = plan(params, black, ply, OPTS)
    if result.soft_ms is not None and result.hard_ms is not None:
        assert 1 <= result.hard_ms and result.soft_ms <= result.hard_ms


# --- building blocks ---------------------------------------------------------------------------


def test_moves_to_go_shrinks_as_the_game_goes_on():
    assert timeman.moves_to_go(1) > timeman.moves_to_go(60) > timeman.moves_to_go(100)


def test_moves_to_go_keeps_a_floor_in_long_games():
    assert timeman.moves_to_go(300) == timeman.MIN_REMAINING_PLIES // 2


def test_moves_to_go_with_an_increment_plans_a_shorter_game_and_tail():
    assert timeman.moves_to_go(1, increment=True) < timeman.moves_to_go(1)
    assert timeman.moves_to_go(300, increment=True) == timeman.FISCHER_MIN_REMAINING_PLIES // 2


def test_moves_to_go_prefers_movestogo():
    assert timeman.moves_to_go(1, movestogo=7) == 7


@pytest.mark.parametrize("ply,expected", [(250, 4), (255, 1), (256, 1), (254, 2), (300, 1), (1, 75)])
def test_moves_to_go_is_capped_by_the_draw_limit(ply, expected):
    assert timeman.moves_to_go(ply, max_moves_to_draw=256) == expected


def test_deadline_ceiling_subtracts_the_delay():
    assert timeman.deadline_ceiling(5000, 120) == 4880


def test_deadline_ceiling_stays_below_the_time_with_zero_delay():
    assert timeman.deadline_ceiling(5000, 0) == 4999


def test_deadline_ceiling_uses_a_fraction_when_the_delay_swallows_the_time():
    assert timeman.deadline_ceiling(100, 120) == 25


def test_deadline_ceiling_is_at_least_one_ms_with_no_time():
    assert timeman.deadline_ceiling(0, 120) == 1


def test_byoyomi_budget_keeps_the_networkdelay2_margin_for_long_byoyomi():
    assert timeman.byoyomi_budget(10000, 120, 1120) == 8880


def test_byoyomi_budget_thinks_at_least_60_percent_of_a_short_byoyomi():
    assert timeman.byoyomi_budget(1000, 120, 1120) == 600


def test_time_option_defaults_match_the_option_table():
    table = options.Options()
    for name, default in timeman.TIME_OPTION_DEFAULTS.items():
        assert table[name] == default, name


# --- byoyomi --------------------------------------------------------------------------------------


def test_byoyomi_only_uses_byoyomi_minus_networkdelay2():
    result = go("btime 0 wtime 0 byoyomi 10000")
    assert result.hard_ms == 8880 and result.soft_ms == 8880


def test_byoyomi_only_hard_is_below_byoyomi_minus_networkdelay():
    result = go("btime 0 wtime 0 byoyomi 10000", NetworkDelay2=0)
    assert result.hard_ms == 10000 - 120


def test_byoyomi_only_short_byoyomi_still_thinks_60_percent():
    result = go("btime 0 wtime 0 byoyomi 2000")
    assert result.hard_ms == 1200


def test_byoyomi_without_main_time_fields_is_byoyomi_only():
    assert go("byoyomi 10000").hard_ms == 8880


@pytest.mark.parametrize("byoyomi", [100, 120, 150, 200, 250, 300])
def test_sub_second_byoyomi_gives_a_positive_deadline_below_the_byoyomi(byoyomi):
    result = go(f"btime 0 wtime 0 byoyomi {byoyomi}")
    assert 0 < result.soft_ms <= result.hard_ms < byoyomi
    assert result.hard_ms == max(byoyomi - 120, math.ceil(0.6 * byoyomi))


def test_neither_network_delay_cuts_a_short_period_below_60_percent():
    assert go("btime 0 wtime 0 byoyomi 150").hard_ms == 90
    assert go("movetime 200").hard_ms == go("movetime 200").soft_ms == 120
    assert go("btime 0 wtime 0 byoyomi 150", NetworkDelay=0, NetworkDelay2=0).hard_ms == 149


def test_byoyomi_200_with_delay_120_thinks_120_ms():
    assert go("btime 0 wtime 0 byoyomi 200").hard_ms == 120


def test_byoyomi_100_with_delay_120_thinks_60_percent():
    assert go("btime 0 wtime 0 byoyomi 100").hard_ms == 60


def test_byoyomi_with_main_time_thinks_longer_than_byoyomi_alone():
    with_main = go("btime 600000 wtime 600000 byoyomi 10000")
    alone = go("btime 0 wtime 0 byoyomi 10000")
    assert with_main.soft_ms > alone.soft_ms and with_main.hard_ms > alone.hard_ms


def test_byoyomi_with_main_time_soft_is_main_share_plus_byoyomi_budget():
    # R = 75 moves at ply 1; no reserve with byoyomi: 600000 / 75 + 8880
    assert go("btime 600000 wtime 600000 byoyomi 10000").soft_ms == 8000 + 8880


def test_byoyomi_with_tiny_main_time_keeps_the_networkdelay2_margin():
    result = go("btime 100 wtime 100 byoyomi 10000", ply=80)
    assert result.hard_ms <= 100 + 8880


# --- Fischer ----------------------------------------------------------------------------------------


def test_fischer_soft_is_share_of_time_plus_weighted_increments():
    # R = 65; gross = 300000 + 0.8 * 10000 * 64; reserve = 120 * 65
    result = go("btime 300000 wtime 300000 binc 10000 winc 10000")
    assert result.soft_ms == int((300000 + 0.8 * 10000 * 64 - 120 * 65) / 65)


def test_fischer_increment_gives_more_time_than_none():
    assert go("btime 60000 wtime 60000 binc 5000 winc 5000").soft_ms > go("btime 60000 wtime 60000").soft_ms


def test_fischer_hard_never_exceeds_time_minus_delay():
    result = go("btime 2000 wtime 2000 binc 30000 winc 30000")
    assert result.hard_ms <= 2000 - 120


def test_fischer_hard_at_most_half_the_time_plus_increment():
    result = go("btime 20000 wtime 20000 binc 10000 winc 10000", ply=100)
    assert result.hard_ms <= 20000 * 0.5 + 10000


def test_fischer_with_no_main_time_moves_at_once():
    # The increment is credited after the move: nothing is available now.
    assert go("btime 0 wtime 0 binc 10000 winc 10000").hard_ms == 1


# --- sudden death -----------------------------------------------------------------------------------


def test_sudden_death_holds_back_the_delay_for_every_expected_move():
    # R = 75 at ply 1, W = 160 moves to ply 320: each expected move keeps its 120 ms,
    # each move beyond them its 120 ms and its least think (2 ms)
    assert go("btime 600000 wtime 600000").soft_ms == (600000 - 120 * 75 - 122 * 85) // 75


def test_sudden_death_hard_is_five_shares_early_in_the_game():
    result = go("btime 600000 wtime 600000")
    assert result.hard_ms == int(5 * (600000 - 120 * 75 - 122 * 85) / 75)


def test_sudden_death_hard_is_at_most_half_the_clock():
    assert go("btime 10000 wtime 10000", ply=240).hard_ms <= 5000


def test_sudden_death_reserve_covers_the_draw_limit_horizon():
    bounded = go("btime 60000 wtime 60000", ply=1, MaxMovesToDraw=256)
    # 128 possible moves (not 160 to ply 320): each keeps its 120 ms and 2 ms of think
    assert bounded.soft_ms == int((60000 - 120 * 75 - 122 * 53) / 75)


def test_sudden_death_reserve_without_a_draw_limit_covers_moves_to_ply_320():
    # 61 possible moves from ply 200 to 320 instead of the 20 expected
    unbounded = go("btime 60000 wtime 60000", ply=200)
    assert unbounded.soft_ms == int((60000 - 120 * 20 - 122 * 41) / 20)


def test_fischer_reserve_holds_only_the_expected_moves_without_a_draw_limit():
    # each move beyond the expected brings its increment: 0.8 * 1000 covers 120 + 2
    result = go("btime 60000 wtime 60000 binc 1000 winc 1000", ply=200)
    assert result.soft_ms == int((60000 + 0.8 * 1000 * 14 - 120 * 15) / 15)


@pytest.mark.parametrize("start,latency", [(60000, 120), (10000, 60), (30000, 50), (300000, 120),
                                           (5000, 10), (5000, 2)])
def test_sudden_death_game_to_the_draw_limit_never_flags(start, latency):
    # as the engine plays it: each move thinks its soft time and loses `latency` ms
    # more, which ClockLoss measures from the second move on
    loss = ClockLoss()
    clock, ply = start, 1
    while ply <= 256:
        params, _ = parse_go(f"btime {clock} wtime 1".split())
        result = plan(params, True, ply, {**OPTS, "MaxMovesToDraw": 256},
                      measured_loss=loss.before_go(params, True, ply))
        loss.after_bestmove(result.soft_ms)
        clock -= result.soft_ms + latency
        assert clock >= 0, f"flagged at ply {ply}"
        ply += 2
    assert clock <= start // 100           # and the clock was used, not hoarded


def test_sudden_death_first_move_of_a_short_clock_still_thinks():
    # 5 s, NetworkDelay 120 unmeasured: holding 120 ms back for 75 moves would take
    # more than the clock; at most half the clock is held back before a loss is measured
    assert go("btime 5000 wtime 5000").soft_ms >= 30


def test_sudden_death_a_small_measured_loss_gives_the_clock_to_thinking():
    params, _ = parse_go("btime 5000 wtime 5000".split())
    result = plan(params, True, 1, OPTS, measured_loss=2)
    assert result.soft_ms == (5000 - 2 * 75 - 4 * 85) // 75


def test_sudden_death_a_large_measured_loss_is_held_back_for_every_move():
    params, _ = parse_go("btime 600000 wtime 600000".split())
    # a server that rounds each move up to whole seconds: ~900 ms lost per move
    assert plan(params, True, 1, OPTS, measured_loss=900).soft_ms == (600000 - 900 * 75 - 902 * 85) // 75


# --- the measured clock loss --------------------------------------------------------------------


def clock_go(line: str, loss: ClockLoss, ply: int, black: bool = True) -> int | None:
    params, _ = parse_go(line.split())
    return loss.before_go(params, black, ply)


def test_clock_loss_is_the_clock_drop_beyond_the_think_time():
    loss = ClockLoss()
    assert clock_go("btime 60000 wtime 60000", loss, 1) is None
    loss.after_bestmove(700.0)
    assert clock_go("btime 59000 wtime 60000", loss, 3) == 300


def test_clock_loss_credits_the_increment():
    loss = ClockLoss()
    clock_go("btime 60000 wtime 60000 binc 1000 winc 1000", loss, 2, black=False)
    loss.after_bestmove(400.0)
    assert clock_go("btime 60000 wtime 60590 binc 1000 winc 1000", loss, 4, black=False) == 10


def test_clock_loss_is_the_largest_of_the_recent_moves():
    loss = ClockLoss()
    clock = 60000
    for ply, lost in zip(range(1, 40, 2), [5] * 3 + [400] + [5] * 20):
        clock_go(f"btime {clock} wtime 60000", loss, ply)
        loss.after_bestmove(100.0)
        clock -= 100 + lost
    measured = clock_go(f"btime {clock} wtime 60000", loss, 41)
    # the 400 ms move has left the window of the latest CLOCK_LOSS_WINDOW moves
    assert measured == 5


def test_clock_loss_ignores_moves_that_do_not_follow_each_other():
    loss = ClockLoss()
    clock_go("btime 60000 wtime 60000", loss, 1)
    loss.after_bestmove(100.0)
    assert clock_go("btime 50000 wtime 60000", loss, 7) is None    # not two plies on
    loss.after_bestmove(100.0)
    assert clock_go("btime 50000 wtime 40000", loss, 10, black=False) is None  # other side


def test_clock_loss_ignores_byoyomi_and_uncounted_moves():
    loss = ClockLoss()
    clock_go("btime 0 wtime 0 byoyomi 1000", loss, 1)
    loss.after_bestmove(900.0)
    assert clock_go("btime 0 wtime 0 byoyomi 1000", loss, 3) is None
    clock_go("btime 60000 wtime 60000", loss, 5)
    loss.after_bestmove(None)       # a ponder search that was stopped
    assert clock_go("btime 50000 wtime 60000", loss, 7) is None


def test_clock_loss_forgets_at_a_new_game():
    loss = ClockLoss()
    clock_go("btime 60000 wtime 60000", loss, 1)
    loss.after_bestmove(100.0)
    clock_go("btime 59000 wtime 60000", loss, 3)
    loss.forget()
    assert clock_go("btime 60000 wtime 60000", loss, 1) is None


def test_minimum_thinking_time_is_a_floor_when_there_is_time():
    assert go("btime 600000 wtime 600000", SlowMover=1).soft_ms == 100


def test_minimum_thinking_time_is_not_forced_when_the_clock_cannot_afford_it():
    # 10 s for 75 moves with a 120 ms reserve each: 100 ms per move would flag.
    assert go("btime 10000 wtime 10000").soft_ms < 100


def test_minimum_thinking_time_never_lifts_soft_above_hard():
    result = go("btime 0 wtime 0 byoyomi 200", MinimumThinkingTime=5000)
    assert result.soft_ms == result.hard_ms == 120


def test_slow_mover_scales_the_soft_time():
    normal = go("btime 600000 wtime 600000")
    slow = go("btime 600000 wtime 600000", SlowMover=200)
    assert slow.soft_ms == pytest.approx(2 * normal.soft_ms, abs=1)
    assert slow.hard_ms == normal.hard_ms


def test_larger_network_delay_gives_earlier_deadlines():
    assert go("movetime 1000", NetworkDelay=500).hard_ms < go("movetime 1000").hard_ms


def test_draw_limit_close_gives_more_time_per_move():
    far = go("btime 60000 wtime 60000", ply=240)
    near = go("btime 60000 wtime 60000", ply=240, MaxMovesToDraw=256)
    assert near.soft_ms > far.soft_ms


# --- movestogo -----------------------------------------------------------------------------------------


def test_movestogo_one_may_use_the_whole_clock_minus_delay():
    assert go("btime 60000 wtime 60000 movestogo 1").hard_ms == 60000 - 120


def test_more_movestogo_gives_less_time_per_move():
    assert go("btime 60000 wtime 60000 movestogo 40").soft_ms < go("btime 60000 wtime 60000 movestogo 10").soft_ms


# --- sides ------------------------------------------------------------------------------------------------


def test_black_plans_with_btime():
    result = go("btime 1000 wtime 600000", black=True)
    assert result.hard_ms <= 1000 - 120


def test_white_plans_with_wtime():
    result = go("btime 1000 wtime 600000", black=False, ply=2)
    assert result.hard_ms > 1000


def test_black_plans_with_binc_and_white_with_winc():
    black = go("btime 60000 wtime 60000 binc 0 winc 30000", black=True)
    white = go("btime 60000 wtime 60000 binc 0 winc 30000", black=False)
    assert white.soft_ms > black.soft_ms


def test_missing_own_clock_counts_as_empty():
    # Only sente's clock is given while gote is to move: gote thinks on byoyomi only.
    assert go("btime 600000 byoyomi 1000", black=False).hard_ms == 600


# --- fixed and unlimited searches -----------------------------------------------------------------------


def test_movetime_uses_the_whole_movetime_minus_delay():
    result = go("movetime 3000")
    assert result.soft_ms == result.hard_ms == 2880


def test_movetime_overrides_the_clocks():
    assert go("btime 600000 wtime 600000 movetime 3000").hard_ms == 2880


def test_tiny_movetime_still_gives_a_positive_deadline():
    result = go("movetime 100")
    assert 0 < result.hard_ms < 100


def test_depth_only_has_no_time_limit():
    result = go("depth 6")
    assert (result.soft_ms, result.hard_ms, result.depth, result.nodes) == (None, None, 6, None)


def test_nodes_only_has_no_time_limit():
    result = go("nodes 5000")
    assert (result.soft_ms, result.hard_ms, result.nodes) == (None, None, 5000)


def test_depth_with_clock_keeps_both_limits():
    result = go("btime 0 wtime 0 byoyomi 1000 depth 3")
    assert result.depth == 3 and result.hard_ms == 600


def test_bare_go_has_no_limits():
    result = go("")
    assert (result.soft_ms, result.hard_ms, result.infinite) == (None, None, False)


def test_depth_limit_option_applies_without_go_depth():
    assert go("btime 0 wtime 0 byoyomi 1000", DepthLimit=4).depth == 4


def test_the_smaller_of_go_depth_and_depth_limit_wins():
    assert go("depth 9", DepthLimit=4).depth == 4
    assert go("depth 3", DepthLimit=4).depth == 3


def test_nodes_limit_option_applies():
    assert go("movetime 1000", NodesLimit=10**6).nodes == 10**6


def test_infinite_ignores_the_clocks():
    result = go("infinite btime 1000 wtime 1000 byoyomi 1000")
    assert (result.soft_ms, result.hard_ms, result.infinite) == (None, None, True)


def test_go_mate_milliseconds_is_a_deadline_minus_delay():
    result = go("mate 5000")
    assert result.soft_ms == result.hard_ms == 4880 and result.infinite is False


def test_go_mate_infinite_has_no_deadline():
    result = go("mate infinite")
    assert (result.soft_ms, result.hard_ms, result.infinite) == (None, None, False)


def test_ponder_plan_has_the_flag_and_the_deadlines_of_the_normal_plan():
    pondering = go("ponder btime 600000 wtime 600000 byoyomi 10000")
    normal = go("btime 600000 wtime 600000 byoyomi 10000")
    assert pondering.ponder is True and normal.ponder is False
    assert (pondering.soft_ms, pondering.hard_ms) == (normal.soft_ms, normal.hard_ms)


# --- options argument ---------------------------------------------------------------------------------


def test_plan_reads_a_plain_dict_with_any_key_case():
    params, _ = parse_go(["movetime", "1000"])
    assert plan(params, True, 1, {"networkdelay": 300}).hard_ms == 700


def test_plan_reads_an_options_instance():
    table = options.Options()
    table.set("NetworkDelay", "300")
    params, _ = parse_go(["movetime", "1000"])
    assert plan(params, True, 1, table).hard_ms == 700


def test_plan_without_options_uses_the_defaults():
    params, _ = parse_go(["movetime", "1000"])
    assert plan(params, True, 1, None).hard_ms == 1000 - timeman.TIME_OPTION_DEFAULTS["NetworkDelay"]


def test_plan_ignores_an_unreadable_option_value():
    params, _ = parse_go(["movetime", "1000"])
    assert plan(params, True, 1, {"NetworkDelay": "lots"}).hard_ms == 880


# --- properties over random clocks ------------------------------------------------------------------------

times = st.none() | st.integers(0, 10**7)
incs = st.none() | st.integers(0, 120000)


@settings(max_examples=500, deadline=None)
@given(
    black=st.booleans(),
    ply=st.integers(1, 500),
    btime=times,
    wtime=times,
    binc=incs,
    winc=incs,
    byoyomi=st.none() | st.integers(0, 120000),
    movestogo=st.none() | st.integers(1, 100),
    delay=st.integers(0, 10000),
    delay2=st.integers(0, 10000),
    minimum=st.integers(0, 60000),
    slow=st.integers(1, 1000),
    draw=st.sampled_from([0, 0, 256, 320]) | st.integers(0, 100000),
)
def test_hard_deadline_never_passes_the_available_time(
    black, ply, btime, wtime, binc, winc, byoyomi, movestogo, delay, delay2, minimum, slow, draw
):
    params = GoParams(btime=btime, wtime=wtime, binc=binc, winc=winc, byoyomi=byoyomi, movestogo=movestogo)
    assume(params.has_clock())
    opts = {
        "NetworkDelay": delay,
        "NetworkDelay2": delay2,
        "MinimumThinkingTime": minimum,
        "SlowMover": slow,
        "MaxMovesToDraw": draw,
    }
    result = plan(params, black, ply, opts)
    main = (btime if black else wtime) or 0
    available = main + (byoyomi or 0)
    assert result.hard_ms is not None and result.soft_ms is not None
    assert 1 <= result.hard_ms
    assert 0 <= result.soft_ms <= result.hard_ms
    if available - delay > 0:
        # (a byoyomi keeps 60% of itself whatever the delays)
        assert result.hard_ms <= max(available - delay, main + math.ceil(0.6 * (byoyomi or 0)))
    if available >= 2:
        assert result.hard_ms < available


@settings(max_examples=300, deadline=None)
@given(byoyomi=st.integers(1, 120000), delay=st.integers(0, 10000), delay2=st.integers(0, 10000))
def test_byoyomi_only_deadline_is_below_byoyomi_and_at_least_60_percent_when_possible(byoyomi, delay, delay2):
    params = GoParams(btime=0, wtime=0, byoyomi=byoyomi)
    result = plan(params, True, 1, {"NetworkDelay": delay, "NetworkDelay2": delay2})
    if byoyomi >= 2:
        assert result.hard_ms < byoyomi
        # Whole ms, and strictly below the byoyomi even with delay 0.
        assert result.hard_ms >= min(math.ceil(0.6 * byoyomi), byoyomi - 1)
    assert result.hard_ms <= max(byoyomi - delay, math.ceil(0.6 * byoyomi), 1)


@settings(max_examples=200, deadline=None)
@given(movetime=st.integers(0, 10**6), delay=st.integers(0, 10000))
def test_movetime_deadline_is_movetime_minus_delay_or_60_percent(movetime, delay):
    result = plan(GoParams(movetime=movetime), True, 1, {"NetworkDelay": delay})
    assert 1 <= result.hard_ms and result.soft_ms == result.hard_ms
    if movetime >= 2:
        assert result.hard_ms < movetime
        assert result.hard_ms == max(movetime - max(delay, 1),
                                     min(math.ceil(0.6 * movetime), movetime - 1))


@settings(max_examples=200, deadline=None)
@given(own=st.integers(0, 10**6), other=st.integers(0, 10**6), ply=st.integers(1, 300))
def test_plan_depends_only_on_the_side_to_moves_clock(own, other, ply):
    as_black = plan(GoParams(btime=own, wtime=other), True, ply, OPTS)
    as_white = plan(GoParams(btime=other, wtime=own), False, ply, OPTS)
    assert as_black == as_white
