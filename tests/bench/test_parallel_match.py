"""The match core (bench/lib/match.py, run by python -m bench.strength.match) plays many
games at once under cshogi's rules, records each with its per-move figures, resumes,
and scores engine A."""
import json
import sys
import textwrap

import pytest

pytest.importorskip("cshogi")
from bench.lib import match as core  # noqa: E402
from bench.strength import match  # noqa: E402
from bench.lib.timecontrol import TimeControl, parse_tc  # noqa: E402

FAKE = textwrap.dedent('''
    import sys, cshogi
    mode = sys.argv[1]
    board = cshogi.Board()
    for line in sys.stdin:
        w = line.split()
        if not w:
            continue
        if w[0] == "usi":
            print("id name fake-" + mode)
            print("option name Threads type spin default 1 min 1 max 8")
            print("usiok", flush=True)
        elif w[0] == "isready":
            print("readyok", flush=True)
        elif w[0] == "position":
            board = cshogi.Board()
            for m in w[w.index("moves") + 1:] if "moves" in w else []:
                board.push_usi(m)
        elif w[0] == "go":
            if len(sys.argv) > 2:
                with open(sys.argv[2], "a") as log:
                    log.write(line)
            if mode == "illegal":
                print("bestmove 5a5a", flush=True)
            else:
                move = sorted(cshogi.move_to_usi(m) for m in board.legal_moves)[0]
                print("info depth 3 nodes 42 score cp 17 pv " + move)
                print("bestmove " + move, flush=True)
        elif w[0] == "quit":
            break
''')


@pytest.fixture
def fake(tmp_path):
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    (tmp_path / "openings.txt").write_text("startpos moves 7g7f 3c3d\n")
    return lambda mode: f"{sys.executable} {script} {mode}"


def play(tmp_path, a, b, *extra):
    out = tmp_path / "games.jsonl"
    match.main(["--a", a, "--b", b, "--games", "2", "--byoyomi", "100",
                         "--parallel", "2", "--openings", str(tmp_path / "openings.txt"),
                         "--out", str(out), *extra])
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_each_game_is_recorded_with_colours_moves_and_each_moves_figures(tmp_path, fake):
    records = play(tmp_path, fake("first"), fake("first"), "--max-plies", "12")
    assert sorted(r["a_colour"] for r in records) == ["black", "white"]
    for r in records:
        assert (r["result"], r["reason"]) == ("1/2", "max plies")
        assert len(r["moves"]) == 10 and len(r["stats"]) == 10
        assert all(s[1:3] == [3, 42] and s[4] == 17 for s in r["stats"])


def test_an_illegal_move_loses_for_the_engine_that_played_it(tmp_path, fake):
    records = play(tmp_path, fake("first"), fake("illegal"))
    assert {r["reason"] for r in records} == {"illegal move 5a5a"}
    assert [core.a_score(r) for r in records] == [1.0, 1.0]


def test_time_odds_give_each_engine_its_own_byoyomi(tmp_path, fake):
    a_log, b_log = tmp_path / "a.log", tmp_path / "b.log"
    play(tmp_path, f"{fake('first')} {a_log}", f"{fake('first')} {b_log}",
         "--max-plies", "8", "--a-byoyomi", "250")
    assert {line.split()[-1] for line in a_log.read_text().splitlines()} == {"250"}
    assert {line.split()[-1] for line in b_log.read_text().splitlines()} == {"100"}


def test_a_node_limited_match_sends_go_nodes_and_keeps_no_clock(tmp_path, fake):
    a_log, b_log = tmp_path / "a.log", tmp_path / "b.log"
    play(tmp_path, f"{fake('first')} {a_log}", f"{fake('first')} {b_log}",
         "--max-plies", "8", "--tc", "nodes=5000")
    for log in (a_log, b_log):
        assert set(log.read_text().splitlines()) == {"go nodes 5000"}


def test_a_node_limit_is_read_from_nodes_equals_n():
    assert parse_tc("nodes=50000") == TimeControl(nodes=50000)
    assert str(parse_tc("nodes=50000")) == "50000 nodes a move"


def test_a_rerun_with_the_same_record_file_plays_no_game_again(tmp_path, fake):
    first = play(tmp_path, fake("first"), fake("illegal"))
    assert play(tmp_path, fake("first"), fake("illegal")) == first


def test_an_option_the_engine_does_not_offer_stops_the_run_before_any_game(tmp_path, fake):
    with pytest.raises(SystemExit, match="no option HistoryShape"):
        play(tmp_path, fake("first"), fake("first"), "--a-option", "HistoryShape=1")
    assert not (tmp_path / "games.jsonl").exists()


def test_scores_are_read_from_the_last_info_line_mates_as_30000_less_the_plies():
    assert core.last_info(["info depth 9 nodes 100 score mate -4 pv 7g7f",
                                     "bestmove 7g7f"]) == (9, 100, -29996)
    assert core.last_info(["info depth 2 nodes 5 score cp -31",
                                     "info string hello", "bestmove 7g7f"]) == (2, 5, -31)
    assert core.last_info(["bestmove resign"]) == (0, 0, None)


def test_phase_table_splits_each_engines_moves_by_game_phase():
    # A is black in the first game, white in the second; stats are (mover, depth, nodes, ms, score)
    games = [{"a_colour": "black", "stats": [(0, 10, 100, 10, 0), (1, 20, 200, 1, 0),
                                             (0, 12, 300, 1, 0), (1, 22, 400, 1, 0)]},
             {"a_colour": "white", "stats": [(0, 30, 500, 1, 0), (1, 14, 600, 20, 0)]}]
    table = core.phase_table(games, plies=2, phases=2).splitlines()
    assert table == ["plies 0-1: A 2 moves, depth 12.0, nodes 350, 15 ms; "
                     "B 2 moves, depth 25.0, nodes 350, 1 ms",
                     "plies 2+: A 1 moves, depth 12.0, nodes 300, 1 ms; "
                     "B 1 moves, depth 22.0, nodes 400, 1 ms"]


def test_phase_table_gives_depth_over_moves_without_a_mate_score_too():
    # an engine that stops at a found mate: its plain mean depth falls, its open one not
    games = [{"a_colour": "black", "stats": [(0, 16, 100, 10, 50), (1, 16, 200, 1, -50),
                                             (0, 4, 300, 1, 29995), (1, 20, 400, 1, -29996)]}]
    table = core.phase_table(games, plies=4, phases=1).splitlines()
    assert table == ["plies 0+: A 2 moves, depth 10.0 (open 16.0 over 1), nodes 200, 6 ms; "
                     "B 2 moves, depth 18.0 (open 16.0 over 1), nodes 300, 1 ms"]


def test_conversion_table_counts_who_first_stood_ahead_and_who_won_those_games():
    # (mover, depth, nodes, ms, own score); A is black in the first two games, white in the third
    games = [{"a_colour": "black", "result": "0-1",        # A ahead first, then lost
              "stats": [(0, 9, 1, 1, 350), (1, 9, 1, 1, -300), (0, 9, 1, 1, -700)]},
             {"a_colour": "black", "result": "0-1",        # B ahead first and won
              "stats": [(0, 9, 1, 1, 0), (1, 9, 1, 1, 1200)]},
             {"a_colour": "white", "result": "1/2",        # nobody reached a margin
              "stats": [(0, 9, 1, 1, 100), (1, 9, 1, 1, None)]}]
    assert core.conversion_table(games, margins=(300, 1000)).splitlines() == [
        "first at +300: A first in 1: +0 -1 (0% won); B first in 1: +1 -0 (100% won); neither 1",
        "first at +1000: A first in 0: +0 -0; B first in 1: +1 -0 (100% won); neither 2"]
