"""The mirrored CSA clock and the USI go times it gives (csa_clock)."""
import pytest

from usi_engine.csa.clock import (NO_LIMIT_BYOYOMI_MS, Clock, TimeControl, parse_time_section,
                                  parse_time_unit)


def both(tc):
    return {"+": tc, "-": tc}


FISCHER = TimeControl(total=300, increment=10)
BYOYOMI = TimeControl(total=60, byoyomi=10)
SUDDEN = TimeControl(total=60)


def test_fischer_first_move_may_use_the_time_plus_this_moves_increment():
    clock = Clock(both(FISCHER))
    assert clock.available_ms("+") == 310_000
    assert clock.go_times("+", elapsed_ms=0, margin_ms=1000) == {
        "btime": 309_000, "wtime": 300_000, "binc": 10_000, "winc": 10_000}


def test_fischer_increment_is_counted_once_over_a_game():
    # shogi-server: R := max(0, R + inc - t); the mover may spend R + inc.
    clock, server = Clock(both(FISCHER)), 300
    for t in (5, 12, 0, 31, 7, 40, 3):
        go = clock.go_times("-", elapsed_ms=0, margin_ms=0)
        assert go["wtime"] == (server + 10) * 1000
        assert go["winc"] == 10_000
        clock.charge("-", t)
        server = max(0, server + 10 - t)
        assert clock.remaining_ms["-"] == server * 1000


def test_elapsed_time_and_margin_come_off_our_time():
    clock = Clock(both(FISCHER))
    assert clock.go_times("-", elapsed_ms=2500, margin_ms=800)["wtime"] == 310_000 - 3300


def test_byoyomi_margin_comes_off_the_byoyomi_first():
    clock = Clock(both(BYOYOMI))
    assert clock.go_times("+", 0, 1000) == {"btime": 60_000, "wtime": 60_000, "byoyomi": 9000}


def test_byoyomi_only_budget_shrinks_with_elapsed_time():
    clock = Clock(both(BYOYOMI))
    clock.charge("+", 60)
    assert clock.remaining_ms["+"] == 0
    assert clock.go_times("+", 1500, 1000) == {"btime": 0, "wtime": 60_000, "byoyomi": 7500}
    assert clock.go_times("+", 9500, 1000)["byoyomi"] == 0


def test_byoyomi_with_main_time_keeps_the_whole_budget():
    clock = Clock(both(BYOYOMI))
    clock.charge("+", 55)
    go = clock.go_times("+", 0, 1000)
    assert go["btime"] + go["byoyomi"] == 5000 + 10_000 - 1000


def test_sudden_death_sends_the_time_left_never_negative():
    clock = Clock(both(SUDDEN))
    assert clock.go_times("+", 0, 1000)["btime"] == 59_000
    clock.charge("+", 59)
    assert clock.go_times("+", 500, 1000)["btime"] == 0
    assert "binc" not in clock.go_times("+", 0, 0)


def test_remaining_time_never_goes_below_zero():
    clock = Clock(both(SUDDEN))
    clock.charge("-", 100)
    assert clock.remaining_ms["-"] == 0


def test_time_unit_scales_every_field():
    assert (parse_time_unit("1sec"), parse_time_unit("1min"), parse_time_unit("1msec")) == (
        1000, 60_000, 1)
    clock = Clock(both(TimeControl(unit_ms=60_000, total=10, byoyomi=1)))
    assert clock.available_ms("+") == 11 * 60_000
    clock.charge("+", 2)
    assert clock.remaining_ms["+"] == 8 * 60_000


def test_units_charged_round_down_or_up_and_respect_the_least_time():
    down = Clock(both(TimeControl(total=60)))
    up = Clock(both(TimeControl(total=60, roundup=True)))
    least = Clock(both(TimeControl(total=60, least=1)))
    assert (down.units_for("+", 1999), up.units_for("+", 1001), up.units_for("+", 1000)) == (1, 2, 1)
    assert least.units_for("+", 200) == 1
    assert least.charge("+", 0) == 1


def test_a_move_without_a_time_field_is_charged_as_measured():
    clock = Clock(both(SUDDEN))
    assert clock.charge("+", None, elapsed_ms=3700) == 3
    assert clock.remaining_ms["+"] == 57_000


def test_no_time_limit_gives_the_engine_a_fixed_byoyomi():
    clock = Clock(both(TimeControl()))
    assert clock.available_ms("+") is None
    assert clock.go_times("+", 0, 1000)["byoyomi"] == NO_LIMIT_BYOYOMI_MS


def test_time_section_fields_and_errors():
    tc = parse_time_section(["Time_Unit:1sec", "Total_Time:600", "Byoyomi:10",
                             "Least_Time_Per_Move:1", "Time_Roundup:YES", "Increment:0",
                             "Remaining_Time+:600"])
    assert (tc.total, tc.byoyomi, tc.least, tc.roundup, tc.kind) == (600, 10, 1, True, "byoyomi")
    for bad in (["Total_Time:-1"], ["Byoyomi:ten"], ["Time_Roundup:maybe"], ["Time_Unit:2h"],
                ["garbage"]):
        with pytest.raises(ValueError):
            parse_time_section(bad)


def test_increment_can_go_as_byoyomi_for_engines_without_binc():
    clock = Clock(both(FISCHER))
    assert clock.go_times("+", 0, 1000, increment_as_byoyomi=True) == {
        "btime": 300_000, "wtime": 300_000, "byoyomi": 9000}
