"""The options of issue #42, named as YaneuraOu's: EnteringKingRule's six rules (with
positions per rule), DrawValueBlack/White, ConsiderationMode, OutputFailLHPV,
PvInterval, Stochastic_Ponder, DebugLogFile, RoundUpToFullSecond and USI_Hash's
maximum."""
from __future__ import annotations

import io
import time

import pytest

from usi_engine.core.position import Position, move_to_usi
from usi_engine.search.searcher import Searcher
from usi_engine.usi.go import parse_go
from usi_engine.usi.loop import DebugLog, UsiEngine
from usi_engine.usi.options import Options
from usi_engine.usi import timeman

from usi_client import UsiProcess

# -- positions ----------------------------------------------------------------------------------
# black: king in the camp, 11 pieces there (19 points), hand B2G2S (9): 28 points
BLACK_28 = "K+R+B+P+P+P+P+P+P/6+P+P+P/9/9/9/9/9/9/k8 b B2G2S 1"
# the same with hand B2G (7): 26 points
BLACK_26 = "K+R+B+P+P+P+P+P+P/6+P+P+P/9/9/9/9/9/9/k8 b B2G 1"
# the same with hand RB2G2S2N (18): 37 points
BLACK_37 = "K+R+B+P+P+P+P+P+P/6+P+P+P/9/9/9/9/9/9/k8 b RB2G2S2N 1"
# a two-piece handicap game (no black rook and bishop... in the game: 46 points in all):
# white, the upper hand, in black's camp with 10 tokins and 4G4S in hand: 18 points
WHITE_HANDICAP_18 = "9/9/9/R7B/4K4/PPPPPPPP1/LLLLNNNN1/7+p+p/+p+p+p+p+p+p+p+pk w 4g4s 1"
# try rule: black's king on 5b, 5a free and unguarded; white's king far away
TRY_BLACK = "8k/4K4/9/9/9/9/9/9/9 b - 1"
TRY_GUARDED = "8k/4K4/9/9/8b/9/9/9/9 b - 1"      # a white bishop on 1e covers 5a
TRY_WHITE = "9/9/9/9/9/9/9/4k4/K8 w - 1"          # white's king on 5h, 5i free


@pytest.mark.parametrize("sfen, expected", [
    (BLACK_37, {"CSARule27": "win", "CSARule27H": "win", "CSARule24": "win",
                "CSARule24H": "win", "NoEnteringKing": "none"}),
    (BLACK_28, {"CSARule27": "win", "CSARule27H": "win", "CSARule24": "draw",
                "CSARule24H": "draw", "NoEnteringKing": "none"}),
    (BLACK_26, {"CSARule27": "none", "CSARule27H": "none", "CSARule24": "draw",
                "CSARule24H": "draw", "NoEnteringKing": "none"}),
    # handicap: white needs 27 - 10 (CSARule27H) or 31 - 10 to win, 24 - 10 to draw (24H)
    (WHITE_HANDICAP_18, {"CSARule27": "none", "CSARule27H": "win", "CSARule24": "none",
                         "CSARule24H": "draw", "NoEnteringKing": "none"}),
])
def test_declaration_per_rule(sfen, expected):
    pos = Position(sfen)
    assert {rule: pos.declaration(rule) for rule in expected} == expected
    assert pos.declaration("TryRule") == "none"


def test_try_rule_needs_a_free_unguarded_square():
    pos = Position(TRY_BLACK)
    assert move_to_usi(pos.try_move()) == "5b5a" and pos.declaration("TryRule") == "win"
    assert pos.declaration("CSARule27") == "none"
    assert Position(TRY_GUARDED).try_move() == 0
    assert move_to_usi(Position(TRY_WHITE).try_move()) == "5h5i"


@pytest.fixture
def searcher():
    s = Searcher()
    s.set_hash(16)
    s.set_threads(1)
    return s


def test_search_loses_to_a_try_it_cannot_stop(searcher):
    pos = Position(TRY_BLACK.replace(" b ", " w "))     # white to move; 5b5a comes next
    assert searcher.search(pos, depth=3, entering_king_rule="TryRule").score_mate == -2
    assert searcher.search(pos, depth=3, entering_king_rule="CSARule27").score_mate is None


@pytest.mark.parametrize("sfen, rule, declared", [
    (BLACK_37, "CSARule24", True), (BLACK_37, "CSARule27", True),
    (BLACK_37, "NoEnteringKing", False), (BLACK_28, "CSARule27", True),
    (BLACK_28, "CSARule24", False)])
def test_search_sees_the_opponents_declaration_per_rule(searcher, sfen, rule, declared):
    # white to move; black declares at its next turn where the rule lets it win: the
    # declaration is a move, so white is mated in 2 plies (black, there, mates in 1),
    # and the line ends with white's move (a real mate in 2 names black's mating move)
    result = searcher.search(Position(sfen.replace(" b ", " w ")), depth=2,
                             entering_king_rule=rule)
    assert (result.score_mate == -2 and len(result.pv) == 1) == declared


def test_search_sees_the_handicap_declaration_only_under_the_h_rule(searcher):
    # black to move in the handicap position: white declares next under CSARule27H only
    pos = Position(WHITE_HANDICAP_18.replace(" w ", " b "))
    assert searcher.search(pos, depth=2, entering_king_rule="CSARule27H").score_mate == -2
    searcher.new_game()
    assert searcher.search(pos, depth=2, entering_king_rule="CSARule27").score_mate != -2


# -- the protocol -------------------------------------------------------------------------------
def run(*lines: str, wait: float = 0.0) -> list[str]:
    """Feed lines to an in-process engine (without its book, so that the start
    position is searched), each position or go after the bestmove of the go before,
    as a GUI does; then wait for the last bestmove (or `wait` s)."""
    out = io.BytesIO()
    engine = UsiEngine(out)
    for line in ("setoption name BookFile value no_book", *lines):
        earlier = engine._job
        if (line.startswith(("position", "go")) and earlier is not None
                and not earlier.waits_for_release):
            earlier.done.wait(30)
        engine.handle_line(line)
        if line.startswith("isready"):
            engine._hash.wait()
    job = engine._job
    if wait:
        time.sleep(wait)
        if job is not None and job.waits_for_release:
            engine.handle_line("stop")      # a ponder or infinite search ends only so
    if job is not None:
        if not job.done.wait(30):
            engine.handle_line("stop")
            job.done.wait(5)
    return out.getvalue().decode().splitlines()


def bestmove(lines: list[str]) -> str:
    return [line for line in lines if line.startswith("bestmove")][-1]


@pytest.mark.parametrize("rule, sfen, expected", [
    ("CSARule24", BLACK_37, "bestmove win"),
    ("CSARule27H", BLACK_28, "bestmove win"),
    ("CSARule27H", WHITE_HANDICAP_18, "bestmove win"),
    ("TryRule", TRY_BLACK, "bestmove 5b5a"),
    ("TryRule", TRY_WHITE, "bestmove 5h5i"),
])
def test_bestmove_under_each_rule(rule, sfen, expected):
    lines = run(f"setoption name EnteringKingRule value {rule}", "isready",
                f"position sfen {sfen}", "go depth 2")
    assert bestmove(lines) == expected


@pytest.mark.parametrize("rule, sfen", [("CSARule24", BLACK_28), ("CSARule27", WHITE_HANDICAP_18),
                                        ("TryRule", BLACK_37), ("CSARule27", TRY_BLACK)])
def test_no_declaration_where_the_rule_does_not_give_one(rule, sfen):
    lines = run(f"setoption name EnteringKingRule value {rule}", "isready",
                f"position sfen {sfen}", "go depth 2")
    move = bestmove(lines).split()[1]
    assert move != "win" and Position(sfen).is_legal(Position(sfen).parse_usi(move))


@pytest.mark.parametrize("option, value", [("DrawValueWhite", 3000), ("DrawValueWhite", -3000)])
def test_draw_value_of_the_colour_to_move_decides_on_a_repetition(option, value):
    lines = run("setoption name Threads value 1", f"setoption name {option} value {value}",
                "isready", "position startpos moves 5i5h 5a5b 5h5i 5b5a 5i5h 5a5b 5h5i",
                "go depth 4")
    move = bestmove(lines).split()[1]
    # 5b5a brings back the start position (a third time): the search scores a
    # recurrence as a draw, worth `value` to white
    assert (move == "5b5a") == (value > 0)
    if value > 0:
        assert f"score cp {value}" in [line for line in lines if line.startswith("info depth")][-1]


def test_draw_value_black_is_the_draw_score_for_black():
    sfen = "ln1g1g1nl/1r1s1k3/p1pppsbpp/1p3pp2/7P1/2P1P4/PP1PSPPBP/2G2S1R1/LN2KG1NL b - 300"
    lines = run("setoption name Threads value 1", "setoption name MaxMovesToDraw value 300",
                "setoption name DrawValueBlack value 55", "setoption name DrawValueWhite value -9",
                "isready", f"position sfen {sfen}", "go depth 3")
    assert "score cp 55" in [line for line in lines if line.startswith("info depth")][-1]


def test_pv_interval_holds_back_iterations_from_depth_3():
    every = run("setoption name Threads value 1", "setoption name PvInterval value 0",
                "isready", "position startpos", "go depth 8")
    held = run("setoption name Threads value 1", "setoption name PvInterval value 100000",
               "isready", "position startpos", "go depth 8")
    depths = lambda lines: [int(l.split()[2]) for l in lines if l.startswith("info depth")]
    assert depths(every) == list(range(1, 9))
    assert depths(held) == [1, 2, 8]     # the last one reported before bestmove


def test_consideration_mode_extends_the_pv_from_the_table():
    # analysing move after move: the table knows the line past what an iteration sees
    first: dict[str, list[int]] = {}
    for mode in ("false", "true"):
        lines = run("setoption name Threads value 1", "setoption name PvInterval value 0",
                    f"setoption name ConsiderationMode value {mode}", "isready",
                    "position startpos moves 7g7f 3c3d 2g2f 4c4d", "go depth 12",
                    "position startpos moves 7g7f 3c3d 2g2f 4c4d", "go depth 12")
        second = lines[[i for i, l in enumerate(lines) if l.startswith("bestmove")][0] + 1:]
        infos = [l for l in second if l.startswith("info depth") and " pv " in l]
        first[mode] = [len(l.split(" pv ")[1].split()) for l in infos[:4]]
        for line in infos:            # every PV is a legal line
            pos = Position("startpos moves 7g7f 3c3d 2g2f 4c4d")
            for move in line.split(" pv ")[1].split():
                pos.push_usi(move)
    # without the mode, depth 1 shows its one move (a later iteration's PV may run on
    # through quiescence captures); with it, the table carries depth 1's line on (how
    # far depends on what the first search stored along it)
    assert first["false"][:2] == [1, 2], first
    assert first["true"][0] >= 2 and sum(first["true"]) > sum(first["false"]), first


def test_output_fail_lh_pv_reports_bounds_through_the_searcher(searcher):
    # (OutputFailLHPV: the loop asks for them after 3 s of search; here at once)
    infos: list[dict] = []
    pos = Position("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2")
    searcher.search(pos, depth=12, on_info=infos.append, bound_pv_after_ms=0)
    bounded = [i for i in infos if i.get("bound")]
    silent: list[dict] = []
    searcher.new_game()
    searcher.search(pos, depth=12, on_info=silent.append)
    assert bounded and all(i["bound"] in ("upper", "lower") for i in bounded)
    assert not any(i.get("bound") for i in silent)


def test_report_settings_follow_the_options():
    from usi_engine.usi.clock import MoveClock
    from usi_engine.usi.loop import FAIL_PV_AFTER_MS, SearchJob, _report_settings
    opts = Options()

    def settings(go: str, **values):
        for name, value in values.items():
            opts.set(name, value)
        params, _ = parse_go(go.split())
        plan = timeman.plan(params, side_to_move_is_black=True, ply=1, options=opts.snapshot())
        job = SearchJob(position=None, params=params, clock=MoveClock(plan, 0.0),
                        options=opts.snapshot(), started_at=0.0)
        return _report_settings(job)

    assert settings("btime 1000 wtime 1000") == {
        "pv_interval": 300, "extend_pv": False, "bound_pv_after_ms": FAIL_PV_AFTER_MS}
    assert settings("infinite")["pv_interval"] == 0
    assert settings("btime 1000 wtime 1000", OutputFailLHPV="false")["bound_pv_after_ms"] == -1
    assert settings("btime 1000 wtime 1000", OutputFailLHPV="true", ConsiderationMode="true") == {
        "pv_interval": 0, "extend_pv": True, "bound_pv_after_ms": -1}


def test_stochastic_ponder_thinks_on_the_position_before_the_guess():
    lines = run("setoption name Threads value 1", "setoption name USI_Ponder value true",
                "setoption name Stochastic_Ponder value true", "isready",
                "position startpos moves 7g7f 3c3d", "go ponder btime 0 wtime 0 byoyomi 500",
                wait=0.5)
    # thinking for white (before 3c3d), so every PV starts with a white move from 7g7f
    pvs = [l.split(" pv ")[1].split() for l in lines if " pv " in l]
    before = Position("startpos moves 7g7f")
    assert pvs and all(before.is_legal(before.parse_usi(pv[0])) for pv in pvs), pvs


def test_stochastic_ponderhit_searches_the_position_sent():
    out = io.BytesIO()
    engine = UsiEngine(out)
    for line in ("setoption name Threads value 1", "setoption name USI_Ponder value true",
                 "setoption name Stochastic_Ponder value true", "isready"):
        engine.handle_line(line)
    engine._hash.wait()
    engine.handle_line("position startpos moves 7g7f 3c3d")
    engine.handle_line("go ponder btime 0 wtime 0 byoyomi 60000")
    time.sleep(0.3)
    engine.handle_line("ponderhit btime 0 wtime 0 byoyomi 400")   # the clocks it carries
    started = time.monotonic()
    job = engine._job
    assert job is not None and not job.params.ponder
    assert job.done.wait(10)
    took = time.monotonic() - started
    said = out.getvalue().decode().splitlines()
    moves = [l for l in said if l.startswith("bestmove")]
    assert len(moves) == 1, said                    # the ponder search's is never said
    after = Position("startpos moves 7g7f 3c3d")
    assert after.is_legal(after.parse_usi(moves[0].split()[1]))
    assert took < 1.0                               # byoyomi 400 from the ponderhit


def test_ponderhit_clocks_replace_the_go_ponder_ones():
    out = io.BytesIO()
    engine = UsiEngine(out)
    for line in ("setoption name Threads value 1", "setoption name USI_Ponder value true",
                 "isready"):
        engine.handle_line(line)
    engine._hash.wait()
    engine.handle_line("position startpos moves 7g7f")
    engine.handle_line("go ponder")                        # ShogiHome's early ponder: no clock
    time.sleep(0.2)
    started = time.monotonic()
    engine.handle_line("ponderhit btime 0 wtime 0 byoyomi 300")
    assert engine._job.done.wait(10)
    assert time.monotonic() - started < 1.0
    assert any(l.startswith("bestmove") for l in out.getvalue().decode().splitlines())


def test_debug_log_file_records_every_line_in_and_out(tmp_path):
    path = tmp_path / "usi.log"
    lines = run(f"setoption name DebugLogFile value {path}", "isready", "position startpos",
                "go depth 2")
    logged = path.read_text().splitlines()
    # "YYYY-MM-DD HH:MM:SS.mmm > text"
    assert all(len(l.split(" ", 3)) == 4 and l.split(" ")[2] in (">", "<") for l in logged)
    texts = [l.split(" ", 3)[3] for l in logged]
    assert texts[0] == f"setoption name DebugLogFile value {path}"
    assert {"isready", "readyok", "position startpos", "go depth 2"} <= set(texts)
    assert bestmove(lines) in texts and f"< {bestmove(lines)}" in logged[-1]


def test_debug_log_file_that_cannot_be_opened_is_reported(tmp_path):
    lines = run(f"setoption name DebugLogFile value {tmp_path}/no/such/dir/usi.log")
    assert any("DebugLogFile: cannot open" in l for l in lines)
    assert DebugLog().use("") == []


def test_usi_hash_maximum_is_one_terabyte():
    opts = Options()
    assert opts.spec("USI_Hash").max == 1 << 20
    assert opts.set("USI_Hash", "65536") == [] and opts["USI_Hash"] == 65536


def test_usi_hash_beyond_the_free_memory_falls_back_at_isready(monkeypatch):
    # (a machine with 500 MB free, as the system would say: the largest table that leaves
    # room is half of it less 64 MB)
    from usi_engine.usi import hashsize
    monkeypatch.setattr(hashsize, "available_mb", lambda: 500)
    lines = run("setoption name USI_Hash value 4000", "isready")
    assert "readyok" in lines
    assert "info string USI_Hash: 4000 MB is more than the 500 MB of memory available; " \
           "using 186 MB instead" in lines, lines


# -- RoundUpToFullSecond -----------------------------------------------------------------------
def test_network_delay_alone_never_rounds_a_think_up_to_the_next_second():
    # A CSA server counts whole seconds, dropping the fraction: a think of 2.1 s costs 2 s,
    # as would one of 2.88 s. NetworkDelay/NetworkDelay2 only take margins off; they never
    # stretch a target to the free part of a second (this is why RoundUpToFullSecond is here).
    params, _ = parse_go("btime 300000 wtime 300000 binc 10000 winc 10000".split())
    plain = timeman.plan(params, side_to_move_is_black=True, ply=30, options={})
    assert plain.soft_ms % 1000 != 1000 - 120
    rounded = timeman.plan(params, side_to_move_is_black=True, ply=30,
                           options={"RoundUpToFullSecond": True})
    for before, after in ((plain.soft_ms, rounded.soft_ms), (plain.hard_ms, rounded.hard_ms)):
        assert after >= before and after % 1000 == 1000 - 120 and after - before < 1000 + 120


def test_round_up_never_passes_the_clock():
    params, _ = parse_go("btime 2500 wtime 2500".split())
    plain = timeman.plan(params, side_to_move_is_black=True, ply=30, options={})
    rounded = timeman.plan(params, side_to_move_is_black=True, ply=30,
                           options={"RoundUpToFullSecond": True})
    assert rounded.hard_ms <= 2500 - 120 and rounded.soft_ms <= rounded.hard_ms
    params, _ = parse_go("btime 0 wtime 0 byoyomi 3000".split())
    assert (timeman.plan(params, side_to_move_is_black=True, ply=30,
                         options={"RoundUpToFullSecond": True}).hard_ms
            == timeman.plan(params, side_to_move_is_black=True, ply=30, options={}).hard_ms)
