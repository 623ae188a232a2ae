"""USI conformance, one test per line of shared/USI-CONFORMANCE.md.

Every test drives the real engine executable through a pipe (tests/helpers/usi_client.py)
and checks what a GUI would see; move legality is checked with cshogi, a board
nobody here wrote. Timing figures are printed (run with ``-s`` to see them).
"""
from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time

import cshogi
import pytest

from conftest import latency_bound, under_wine
from usi_client import ROOT, UsiProcess, engine_command, engine_env
from usi_engine.usi.client import UsiTimeout

# --- positions ------------------------------------------------------------------------------

STARTPOS = "position startpos"
# A sharp middle game (drops everywhere): the search is busy here for a long time.
BUSY = "position sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
# White to move is checkmated (gold on 5b backed by a gold on 5c).
MATED = "position sfen 4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1"
# Black to move mates in one with G*5b.
MATE_IN_1 = "position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1"
# White to move has one move (1a2a) and is then mated by G*2b.
MATED_IN_2 = "position sfen 8k/9/7GP/9/9/9/9/9/K8 w G 1"
# Black's king sits in the enemy camp with 19 pieces and 37 points: a CSA 27-point win.
DECLARATION = "position sfen RBGGKGGS1/SSS6/PPPPPPPPP/9/9/9/9/9/8k b RB4n4l9p 1"
# White has only its king against black's whole army (hopeless, but no quick mate).
WHITE_HOPELESS = "position sfen 4k4/9/9/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"

PROTOCOL_PREFIXES = ("id name ", "id author ", "option name ", "usiok", "readyok", "info ",
                     "bestmove ", "checkmate ")


# --- helpers --------------------------------------------------------------------------------


def board_for(position: str) -> cshogi.Board:
    """A cshogi board for one of our ``position ...`` lines."""
    tokens = position.split()
    assert tokens[0] == "position"
    moves: list[str] = []
    if "moves" in tokens:
        at = tokens.index("moves")
        tokens, moves = tokens[:at], tokens[at + 1:]
    board = cshogi.Board() if tokens[1] == "startpos" else cshogi.Board(" ".join(tokens[2:]))
    for move in moves:
        board.push_usi(move)
    return board


def is_legal(position: str, move: str) -> bool:
    board = board_for(position)
    try:
        return bool(board.is_legal(board.move_from_usi(move)))
    except Exception:
        return False


def bestmove_of(lines) -> tuple[str, str | None]:
    """(move, ponder) from the last line, which must be a bestmove line."""
    text = lines[-1].text if hasattr(lines[-1], "text") else lines[-1]
    parts = text.split()
    assert parts[0] == "bestmove" and len(parts) in (2, 4), text
    if len(parts) == 4:
        assert parts[2] == "ponder", text
        return parts[1], parts[3]
    return parts[1], None


_INT_FIELDS = {"depth", "seldepth", "time", "nodes", "nps", "hashfull", "multipv",
               "currmovenumber", "cpuload"}


def check_info_grammar(text: str) -> dict:
    """Check that our engine wrote an ``info`` line by the USI grammar (AssertionError
    naming what is malformed: unknown or repeated fields, bad numbers, an empty pv) and
    return its fields.  Not a parser for other engines' output: that is
    usi_engine.usi.info.parse_info, which is lenient."""
    tokens = text.split()
    assert tokens[0] == "info", text
    out: dict = {}
    i = 1
    while i < len(tokens):
        key = tokens[i]
        if key in _INT_FIELDS:
            assert key not in out, f"{key} twice in {text!r}"
            out[key] = int(tokens[i + 1])
            i += 2
        elif key == "score":
            kind, value = tokens[i + 1], tokens[i + 2]
            assert kind in ("cp", "mate"), text
            assert re.fullmatch(r"[+-]?\d+" if kind == "cp" else r"[+-]?\d+|[+-]", value), text
            out["score"] = (kind, value)
            i += 3
            if i < len(tokens) and tokens[i] in ("lowerbound", "upperbound"):
                out["bound"] = tokens[i]
                i += 1
        elif key == "currmove":
            out["currmove"] = tokens[i + 1]
            i += 2
        elif key == "pv":
            out["pv"] = tokens[i + 1:]
            assert out["pv"], f"empty pv in {text!r}"
            break
        elif key == "string":
            out["string"] = text.split(None, 2)[2] if len(tokens) > 2 else ""
            break
        else:
            raise AssertionError(f"unknown info field {key!r} in {text!r}")
    if "seldepth" in out:
        assert "depth" in out and tokens.index("depth") < tokens.index("seldepth"), text
    return out


def search_infos(lines) -> list[dict]:
    """The parsed non-string info lines among ``lines``."""
    infos = [check_info_grammar(l.text) for l in lines if l.text.startswith("info ")]
    return [i for i in infos if "string" not in i]


@pytest.fixture
def engine():
    """A started engine after usi/usiok and isready/readyok."""
    with UsiProcess() as proc:
        proc.handshake()
        yield proc


def report(name: str, value: str) -> None:
    """Print a measured figure (visible with pytest -s)."""
    print(f"\n[figure] {name}: {value}", file=sys.stderr)


# --- General ------------------------------------------------------------------------------------


def test_lines_may_end_in_lf_crlf_or_lone_cr():
    with UsiProcess() as engine:
        engine.send_raw(b"usi\r\nisready\nusinewgame\r\nisready\r\n")
        engine.read_until("usiok")
        engine.expect("readyok")
        engine.expect("readyok")
        # a lone CR ends a line by itself (no LF ever comes)
        engine.send_raw(b"isready\risready\r")
        engine.expect("readyok", timeout=2)
        engine.expect("readyok", timeout=2)


def test_tabs_and_runs_of_spaces_separate_tokens(engine):
    engine.send_raw(b"position\t startpos  \tmoves\t\t7g7f   3c3d\n")
    lines, _ = engine.go("isready", "go \t depth\t 1")
    move, _ = bestmove_of(lines)
    assert is_legal("position startpos moves 7g7f 3c3d", move)  # black to move again


def test_leading_and_trailing_whitespace_is_ignored(engine):
    engine.send_raw(b"   \t isready \t  \n")
    engine.expect("readyok", timeout=2)


def test_unknown_leading_token_is_skipped_and_the_rest_parsed(engine):
    engine.send("xyzzy isready")
    engine.expect("readyok", timeout=2)
    # "joho debug on" turns debug on: the engine then explains its time plan.
    engine.send("joho debug on")
    lines, _ = engine.go(STARTPOS, "go depth 1")
    assert any(l.text.startswith("info string") for l in lines)
    engine.send("debug off")
    lines, _ = engine.go(STARTPOS, "go depth 1")
    assert not any(l.text.startswith("info string") for l in lines)


def test_unknown_tokens_inside_a_command_are_skipped(engine):
    lines, _ = engine.go(STARTPOS, "go foo depth 2 baz", timeout=5)
    assert bestmove_of(lines)[0] != "resign"
    assert max(i["depth"] for i in search_infos(lines)) <= 2


def test_unknown_command_is_ignored_and_the_engine_lives_on(engine):
    engine.send("flibbertigibbet 1 2 3", "isready")
    lines = engine.read_until("readyok", timeout=2)
    assert all(l.text.startswith(("info string", "readyok")) for l in lines)


def test_stop_and_ponderhit_when_idle_are_ignored_silently(engine):
    engine.send("stop", "ponderhit", "isready")
    lines = engine.read_until("readyok", timeout=2)
    assert [l.text for l in lines] == ["readyok"]
    assert engine.drain(0.3) == []


@pytest.mark.timing
@pytest.mark.skipif(under_wine(), reason="under wine a bare `python -c` alone takes about "
                    "200 ms to start and the engine's imports 5-10 times what they take on "
                    "Windows or Linux: a wine figure says nothing of a GUI's wait")
def test_usi_is_answered_within_100_ms_of_process_start():
    times = []
    for _ in range(7):
        with UsiProcess(start=False) as engine:
            engine.start()
            engine.send("usi")
            usiok = engine.expect("usiok", timeout=5)
            times.append((usiok.at - engine.started_at) * 1000)
    report("process start -> usiok (ms)", " ".join(f"{t:.0f}" for t in times))
    # The spec allows 200 ms; the target here is 100 ms. On a busy 2-core machine
    # one start in several can stall for 150 ms in the scheduler (CI saw 58 51 208
    # 63 59), so the worst start is set aside: a slow start-up is slow every time
    # and still fails both the median and the second-worst bound.
    assert statistics.median(times) < 100
    assert sorted(times)[-2] < 200


def test_the_usi_loops_start_imports_no_command_module_argparse_or_dataclasses():
    # What `usi-engine` (no arguments) imports before it reads `usi`: the commands'
    # modules (analysis, training: some 30 ms), argparse and dataclasses (which imports
    # inspect: some 15 ms) would each spend a good part of the 100 ms a GUI allows.
    code = ("import sys; import usi_engine.cli, usi_engine.usi.loop; "
            "print(' '.join(sorted(sys.modules)))")
    loaded = set(subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=engine_env(),
                                capture_output=True, text=True, check=True).stdout.split())
    slow = {"argparse", "dataclasses", "inspect"} | {
        name for name in loaded if name.startswith("usi_engine.cli.") and name != "usi_engine.cli.usi"}
    assert "usi_engine.usi.loop" in loaded
    assert loaded & slow == set()


def _mapped_core_modules(pid: int) -> set[str]:
    """Which compiled usi_engine modules the process has loaded (from /proc/PID/maps)."""
    maps = open(f"/proc/{pid}/maps").read()
    return set(re.findall(r"usi_engine/\w+/(\w+)\.cpython", maps))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/maps")
def test_heavy_setup_waits_for_isready_not_import():
    with UsiProcess() as engine:
        engine.send("usi")
        engine.read_until("usiok")
        assert _mapped_core_modules(engine.proc.pid) == set()  # nothing compiled loaded yet
        engine.send("isready")
        engine.expect("readyok")
        assert {"position", "searcher"} <= _mapped_core_modules(engine.proc.pid)


@pytest.mark.skipif(sys.platform == "win32",
                    reason="reads the engine's CPU time from Linux /proc/PID/stat")
def test_engine_never_thinks_without_go(engine):
    engine.send(BUSY, "isready")
    engine.expect("readyok")

    def idle_cpu() -> float:
        before = engine.cpu_seconds()
        time.sleep(0.6)
        return engine.cpu_seconds() - before

    assert idle_cpu() < 0.05, "CPU used after position/isready"
    engine.go(BUSY, "go depth 3")
    time.sleep(0.05)
    assert idle_cpu() < 0.05, "CPU used after the search ended"
    assert engine.drain(0.05) == []


def test_stdout_carries_protocol_lines_only(engine):
    engine.send("setoption name Nonsense value 1", "setoption name MultiPV value 2",
                "position sfen garbage", "go mate 100", "foo")
    engine.go(STARTPOS + " moves 7g7f", "go depth 3")
    engine.go(MATED, "go depth 1")
    engine.send("isready")
    engine.expect("readyok")
    bad = [l.text for l in engine.lines if not l.text.startswith(PROTOCOL_PREFIXES)]
    assert bad == []


# --- GUI -> engine ------------------------------------------------------------------------------


def test_usi_reply_is_id_name_id_author_options_usiok():
    with UsiProcess() as engine:
        engine.send("usi")
        lines = [l.text for l in engine.read_until("usiok", timeout=5)]
    assert re.fullmatch(r"id name usi_engine \d+\.\d+\.\d+\S*", lines[0])
    assert lines[1].startswith("id author ") and len(lines[1]) > len("id author ")
    assert lines[-1] == "usiok"
    options = lines[2:-1]
    from usi_engine.usi.options import Options
    assert options == Options().usi_lines()
    names = [line.split()[2].lower() for line in options]
    assert len(names) == len(set(names)), "one option line per option"


def test_debug_can_be_switched_any_time_even_mid_search(engine):
    engine.send(BUSY, "go infinite")
    time.sleep(0.2)
    engine.send("debug on", "debug off", "debug", "isready")
    engine.expect("readyok", timeout=1)
    engine.send("stop")
    engine.expect("bestmove", timeout=2)


def test_isready_answers_readyok_when_idle(engine):
    at = engine.send("isready")
    ready = engine.expect("readyok", timeout=2)
    assert ready.text == "readyok"
    report("isready idle latency (ms)", f"{(ready.at - at) * 1000:.1f}")


#: The first isready imports the compiled core and clears the hash: a second on Windows
#: and Linux; under wine, whose imports take 5-10 times as long (CI saw 1.21 s), three.
FIRST_ISREADY_LIMIT_S = 3.0 if under_wine() else 1.0


@pytest.mark.timing
def test_first_isready_is_answered_within_a_second():
    with UsiProcess() as engine:
        engine.send("usi")
        engine.read_until("usiok")
        at = engine.send("isready")
        ready = engine.expect("readyok", timeout=5)
    report("first isready (imports + hash) (ms)", f"{(ready.at - at) * 1000:.0f}")
    assert ready.at - at < FIRST_ISREADY_LIMIT_S


@pytest.mark.timing
def test_isready_mid_search_is_answered_within_50_ms_and_search_goes_on(engine):
    engine.send(BUSY, "go infinite")
    time.sleep(0.3)
    latencies = []
    for _ in range(5):
        at = engine.send("isready")
        lines = engine.read_until("readyok", timeout=2)
        latencies.append((lines[-1].at - at) * 1000)
        assert not any(l.text.startswith("bestmove") for l in lines)
        time.sleep(0.1)
    report("isready mid-search latency (ms)", " ".join(f"{t:.1f}" for t in latencies))
    assert latency_bound(latencies) <= 50
    engine.send("stop")
    engine.expect("bestmove", timeout=2)


def test_setoption_names_are_case_insensitive(engine):
    engine.send("setoption name mULTIpv value 2")
    lines, _ = engine.go(STARTPOS, "go depth 3")
    assert any(i.get("multipv") == 2 for i in search_infos(lines))


def test_setoption_string_value_may_contain_spaces():
    from usi_engine.usi.options import Options
    names = [s.name for s in Options().specs() if s.type in ("string", "filename")]
    if not names:
        pytest.skip("the engine offers no string/filename option yet")
    with UsiProcess() as engine:
        engine.handshake()
        engine.send(f"setoption name {names[0]} value a  b c", f"setoption name {names[0]} value <empty>",
                    "isready")
        lines = engine.read_until("readyok")
        assert not any("error" in l.text for l in lines)


def test_setoption_spin_out_of_range_is_clamped_and_reported(engine):
    engine.send("setoption name MultiPV value 9999", "isready")
    lines = engine.read_until("readyok")
    assert any(l.text.startswith("info string") and "MultiPV" in l.text and "500" in l.text
               for l in lines)
    engine.send("setoption name MultiPV value 0", "isready")
    lines = engine.read_until("readyok")
    assert any(l.text.startswith("info string") and "MultiPV" in l.text for l in lines)
    # clamped to 1: no multipv field in the output
    lines, _ = engine.go(STARTPOS, "go depth 2")
    assert all("multipv" not in i for i in search_infos(lines))


def test_setoption_unknown_name_is_reported_not_fatal(engine):
    engine.send("setoption name NoSuchOption value 3", "isready")
    lines = engine.read_until("readyok")
    assert any(l.text.startswith("info string") and "NoSuchOption" in l.text for l in lines)


def test_register_is_accepted_and_ignored(engine):
    engine.send("register later", "register name Someone code 1234", "isready")
    lines = engine.read_until("readyok")
    assert [l.text for l in lines] == ["readyok"]


def test_usinewgame_clears_per_game_state():
    # The same search after usinewgame must cost exactly what it costs in a fresh
    # engine: the TT and histories were cleared.
    probe = "position startpos moves 7g7f 3c3d 2g2f"

    def nodes_of(lines):
        return search_infos(lines)[-1]["nodes"]

    def single_threaded(e):   # node counts are exact with one search thread
        e.handshake()
        e.send("setoption name Threads value 1", "isready")
        e.expect("readyok")

    with UsiProcess() as fresh:
        single_threaded(fresh)
        fresh.send("usinewgame")
        reference = nodes_of(fresh.go(probe, "go depth 6")[0])
    with UsiProcess() as engine:
        single_threaded(engine)
        engine.send("usinewgame")
        engine.go("position startpos moves 2g2f 8c8d", "go depth 6")
        warm = nodes_of(engine.go(probe, "go depth 6")[0])
        engine.send("usinewgame", "isready")
        engine.expect("readyok")
        cleared = nodes_of(engine.go(probe, "go depth 6")[0])
    assert cleared == reference
    assert warm != reference  # the probe is sensitive to a warm table


def test_position_startpos_with_moves(engine):
    position = "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e"
    lines, _ = engine.go(position, "go depth 2")
    move, _ = bestmove_of(lines)
    assert is_legal(position, move)


def test_position_sfen_with_and_without_ply_and_moves(engine):
    for position in ("position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
                     "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
                     "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - moves 3c3d 7g7f"):
        lines, _ = engine.go(position, "go depth 1")
        move, _ = bestmove_of(lines)
        assert is_legal(position, move), (position, move)
        assert not any("error" in l.text for l in lines)


def test_malformed_sfen_is_reported_and_previous_position_kept(engine):
    previous = "position startpos moves 7g7f"
    engine.send(previous)
    for bad in ("position sfen garbage", "position sfen 9/9/9 b - 1", "position",
                "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1"):
        engine.send(bad, "isready")
        lines = engine.read_until("readyok")
        assert any(l.text.startswith("info string error") for l in lines), bad
    lines, _ = engine.go("isready", "go depth 1")
    move, _ = bestmove_of(lines)
    assert is_legal(previous, move)  # a white move: 7g7f is still on the board


def test_illegal_move_is_reported_and_position_is_the_one_before_it(engine):
    engine.send("position startpos moves 7g7f 3c3d 7f7e 7f7e 3d3e", "isready")
    lines = engine.read_until("readyok")
    assert any(l.text.startswith("info string error") and "7f7e" in l.text for l in lines)
    lines, _ = engine.go("isready", "go depth 1")
    move, _ = bestmove_of(lines)
    assert is_legal("position startpos moves 7g7f 3c3d 7f7e", move)  # white to move


GO_LIMITS = [
    ("go btime 2000 wtime 2000", 2.0),
    ("go btime 1000 wtime 1000 binc 300 winc 300", 1.0),
    ("go btime 0 wtime 0 byoyomi 300", 0.3),
    ("go btime 1000 wtime 1000 movestogo 3", 1.0),
    ("go depth 3", 10.0),
    ("go nodes 20000", 10.0),
    ("go movetime 300", 0.3),
]


@pytest.mark.parametrize("go, limit_s", GO_LIMITS)
def test_go_with_each_parameter_gives_one_bestmove(engine, go, limit_s):
    position = "position startpos moves 2g2f 8c8d"
    lines, at = engine.go(position, go)
    move, _ = bestmove_of(lines)
    assert is_legal(position, move)
    assert not any(l.text.startswith("info string") for l in lines)  # every token understood
    assert [l.text for l in engine.drain(0.15) if l.text.startswith("bestmove")] == []


@pytest.mark.timing
@pytest.mark.parametrize("go, limit_s", GO_LIMITS)
def test_go_with_each_parameter_answers_within_its_limit(engine, go, limit_s):
    lines, at = engine.go("position startpos moves 2g2f 8c8d", go)
    assert lines[-1].at - at < limit_s


def test_go_depth_limits_the_depth(engine):
    lines, _ = engine.go(STARTPOS, "go depth 3")
    assert max(i["depth"] for i in search_infos(lines)) <= 3


def test_go_nodes_limits_the_nodes(engine):
    lines, _ = engine.go(BUSY, "go nodes 5000")
    final = search_infos(lines)[-1]
    assert final["nodes"] <= 5000 + 2048  # the limit is polled every 1024 nodes


@pytest.mark.timing
def test_go_movestogo_spreads_the_clock_over_that_many_moves(engine):
    # 1 s left: with the default horizon a move takes a few ms; with 2 moves to go,
    # a few hundred.
    _, at = engine.go(BUSY, "go btime 1000 wtime 1000")
    quick = engine.lines[-1].at - at
    lines, at = engine.go(BUSY, "go btime 1000 wtime 1000 movestogo 2")
    slow = lines[-1].at - at
    assert quick < 0.15 and 0.2 < slow < 1.0, (quick, slow)


def test_go_searchmoves_restricts_the_root_moves(engine):
    lines, _ = engine.go(STARTPOS, "go depth 4 searchmoves 1g1f 9g9f")
    assert bestmove_of(lines)[0] in ("1g1f", "9g9f")


def test_go_infinite_waits_for_stop_even_when_the_search_is_done(engine):
    engine.send(MATE_IN_1, "go infinite")
    assert not any(l.text.startswith("bestmove") for l in engine.collect(0.5))
    engine.send("stop")
    assert bestmove_of([engine.expect("bestmove", timeout=1)])[0] == "G*5b"


@pytest.mark.timing
@pytest.mark.parametrize("side", ["black", "white"])
def test_btime_is_sente_clock_whatever_side_we_play(engine, side):
    # The side to move has 1 s and the opponent 10 min: move within a few hundred ms.
    # (positions with no quick mate for the side to move: a mate would be played at once)
    if side == "black":
        position, fast, slow = STARTPOS, "btime 1000 wtime 600000", "btime 600000 wtime 1000"
    else:
        position, fast, slow = BUSY, "btime 600000 wtime 1000", "btime 1000 wtime 600000"
    lines, at = engine.go(position, f"go {fast}")
    quick = lines[-1].at - at
    # And with the clocks the other way round it takes its time (stopped after 1 s).
    engine.send(position)
    engine.send(f"go {slow}")
    thinking = engine.collect(1.0)
    engine.send("stop")
    engine.expect("bestmove", timeout=5)   # clean-up; stop latency has its own test
    report(f"1 s vs 10 min clock, {side} to move (ms)", f"{quick * 1000:.0f}")
    assert quick < 0.3
    assert not any(l.text.startswith("bestmove") for l in thinking)


@pytest.mark.timing
def test_negative_times_count_as_zero(engine):
    lines, at = engine.go(STARTPOS, "go btime -5000 wtime -5000 byoyomi 300")
    assert lines[-1].at - at < 0.3
    assert bestmove_of(lines)[0] != "resign"


@pytest.mark.timing
def test_stop_sends_bestmove_within_50_ms(engine):
    latencies = []
    for position in (BUSY, STARTPOS, "position startpos moves 7g7f 3c3d 8h2b+"):
        engine.send(position, "go infinite")
        time.sleep(0.4)
        at = engine.send("stop")
        line = engine.expect("bestmove", timeout=2)
        latencies.append((line.at - at) * 1000)
        assert is_legal(position, bestmove_of([line])[0])
    report("stop -> bestmove latency (ms)", " ".join(f"{t:.1f}" for t in latencies))
    assert latency_bound(latencies) <= 50


@pytest.mark.timing
def test_ponderhit_keeps_searching_under_the_clock_started_at_ponderhit(engine):
    engine.send(BUSY, "go ponder btime 0 wtime 0 byoyomi 500")
    pondering = engine.collect(0.8)  # far longer than the byoyomi: the clock has not started
    assert not any(l.text.startswith("bestmove") for l in pondering)
    at = engine.send("ponderhit")
    line = engine.expect("bestmove", timeout=2)
    waited = line.at - at
    report("ponderhit -> bestmove under byoyomi 500 (ms)", f"{waited * 1000:.0f}")
    assert 0.15 < waited < 0.5, waited


@pytest.mark.timing
def test_ponder_search_that_ends_early_still_waits_for_ponderhit(engine):
    engine.send(MATE_IN_1, "go ponder btime 0 wtime 0 byoyomi 1000")
    assert not any(l.text.startswith("bestmove") for l in engine.collect(0.4))
    at = engine.send("ponderhit")
    line = engine.expect("bestmove", timeout=1)
    assert line.text.split()[1] == "G*5b"
    assert line.at - at < 0.05


@pytest.mark.timing
def test_stop_during_ponder_sends_bestmove(engine):
    engine.send(STARTPOS, "go ponder btime 10000 wtime 10000 byoyomi 1000")
    time.sleep(0.3)
    at = engine.send("stop")
    line = engine.expect("bestmove", timeout=1)
    assert line.at - at <= 0.05
    assert is_legal(STARTPOS, bestmove_of([line])[0])


def test_gameover_stops_the_search_and_sends_no_bestmove(engine):
    engine.send(BUSY, "go infinite")
    time.sleep(0.3)
    engine.send("gameover lose", "isready")
    lines = engine.read_until("readyok", timeout=3)
    lines += engine.drain(0.3)
    assert not any(l.text.startswith("bestmove") for l in lines)
    # and the next game is played normally
    engine.send("usinewgame")
    lines, _ = engine.go(STARTPOS, "go depth 2")
    assert is_legal(STARTPOS, bestmove_of(lines)[0])


def test_quit_mid_search_exits_within_1_s_with_code_0():
    with UsiProcess() as engine:
        engine.handshake()
        engine.send(BUSY, "go infinite")
        time.sleep(0.3)
        at = engine.send("quit")
        code = engine.wait_exit(1.0)
        took = time.perf_counter() - at
    report("quit mid-search -> exit (ms)", f"{took * 1000:.0f}")
    assert code == 0
    assert took < 1.0


def test_quit_when_idle_and_eof_exit_with_code_0():
    with UsiProcess() as engine:
        engine.handshake()
        engine.send("quit")
        assert engine.wait_exit(1.0) == 0
    with UsiProcess() as engine:
        engine.handshake()
        engine.send(BUSY, "go infinite")
        engine.proc.stdin.close()  # the GUI died
        assert engine.wait_exit(1.0) == 0


# --- engine -> GUI ------------------------------------------------------------------------------


def test_bestmove_carries_a_legal_ponder_move(engine):
    position = "position startpos moves 7g7f"
    lines, _ = engine.go(position, "go depth 5")
    move, ponder = bestmove_of(lines)
    assert ponder is not None
    assert is_legal(position, move)
    assert is_legal(f"{position} {move}", ponder)


def test_bestmove_resign_when_there_is_no_legal_move(engine):
    lines, _ = engine.go(MATED, "go btime 1000 wtime 1000 byoyomi 1000")
    assert bestmove_of(lines) == ("resign", None)


def test_a_mated_side_to_move_is_answered_at_once_with_score_mate_minus_0(engine):
    lines, at = engine.go(MATED, "go btime 1000 wtime 1000 byoyomi 1000")
    assert [line.text for line in lines] == ["info depth 0 score mate -0", "bestmove resign"]
    assert lines[-1].at - at < 1.0


def test_a_mated_side_to_move_under_go_infinite_says_one_line_and_waits_for_stop(engine):
    engine.send(MATED, "go infinite")
    first = engine.read_line(5.0)
    assert first.text == "info depth 0 score mate -0"
    with pytest.raises(UsiTimeout):         # nothing more until stop
        engine.read_line(0.5)
    engine.send("stop")
    assert engine.read_line(5.0).text == "bestmove resign"


def multipv_indices(lines) -> list[int]:
    """The multipv index of every line of a search report (bounds aside)."""
    return [i["multipv"] for i in search_infos(lines)
            if "multipv" in i and "upperbound" not in i and "lowerbound" not in i]


def test_every_report_under_multipv_3_carries_all_three_lines_in_order(engine):
    # A busy position: iterations outlast the 500 ms progress reports; after stop the
    # final report is a whole block too (a GUI shows the newest block it reads).
    engine.send("setoption name MultiPV value 3", BUSY, "go infinite")
    time.sleep(2.5)
    engine.send("stop")
    lines = engine.read_until("bestmove", 10.0)
    indices = multipv_indices(lines)
    assert indices and len(indices) % 3 == 0, indices
    assert indices == [1, 2, 3] * (len(indices) // 3), indices
    texts = [line.text for line in lines]
    assert [multipv_indices([line]) for line in lines[-4:-1]] == [[1], [2], [3]], texts[-4:]


def test_a_mate_against_us_is_played_out_under_the_default_resign_value(engine):
    lines, _ = engine.go(MATED_IN_2, "go depth 6")
    # ResignValue 99999 never resigns: a mate counts as -(32000 - plies)
    assert bestmove_of(lines)[0] not in ("resign", None)
    # the score says it is lost: negative mate distance, from the loser's point of view
    assert search_infos(lines)[-1]["score"] == ("mate", "-2")


def test_a_mate_against_us_resigns_below_a_finite_resign_value(engine):
    engine.send("setoption name ResignValue value 3000")
    lines, _ = engine.go(MATED_IN_2, "go depth 6")
    assert bestmove_of(lines) == ("resign", None)


def test_bestmove_resign_below_resign_value_only(engine):
    lines, _ = engine.go(WHITE_HOPELESS, "go depth 3")
    assert bestmove_of(lines)[0] != "resign"  # ResignValue 99999: never on a score
    engine.send("setoption name ResignValue value 1000")
    lines, _ = engine.go(WHITE_HOPELESS, "go depth 3")
    assert bestmove_of(lines) == ("resign", None)


def test_bestmove_win_when_the_declaration_holds(engine):
    lines, _ = engine.go(DECLARATION, "go btime 1000 wtime 1000 byoyomi 1000")
    assert bestmove_of(lines) == ("win", None)
    engine.send("setoption name EnteringKingRule value NoEnteringKing")
    lines, _ = engine.go(DECLARATION, "go depth 2")
    move, _ = bestmove_of(lines)
    assert is_legal(DECLARATION, move)


def test_go_mate_answers_exactly_one_checkmate_line(engine):
    for go in ("go mate 500", "go mate infinite", "go mate"):
        engine.send(MATE_IN_1, go)
        line = engine.expect(lambda t: not t.startswith("info"), timeout=2)
        assert line.text == "checkmate G*5b"
        engine.send("stop", "isready")
        lines = engine.read_until("readyok")
        assert [l.text for l in lines if not l.text.startswith("info")] == ["readyok"]


TSUME_13 = "position sfen 4RB1k1/5s3/7n1/5s1LP/9/7r1/9/9/6K2 b b4g2s3n3l17p 1"   # Karolina
NO_CHECK = "position sfen 4k4/9/9/9/9/9/9/9/4K4 b 2r2b4g4s4n4l18p 1"
HARD_TSUME = "position sfen 9/9/9/9/9/9/9/6k2/9 b 4G4SNL3P2r2b3n3l15p 1"
ATTACKER_IN_CHECK = "position sfen 8k/6S2/6KgG/9/8N/9/9/9/9 b - 1"   # the knight mates on 2c


def test_go_mate_replies_with_a_verified_mating_line(engine):
    engine.send(TSUME_13, "go mate 10000")
    line = engine.expect("checkmate", timeout=12)
    moves = line.text.split()[1:]
    assert len(moves) == 13
    assert is_checkmate_after("4RB1k1/5s3/7n1/5s1LP/9/7r1/9/9/6K2 b b4g2s3n3l17p 1", moves)


def test_go_mate_s_last_info_line_carries_the_mate_and_its_line(engine):
    engine.send(TSUME_13, "go mate 10000")
    lines = [line.text for line in engine.read_until("checkmate", timeout=12)]
    info = [line for line in lines if line.startswith("info time")][-1]
    assert info.endswith(" score mate 13 pv " + " ".join(lines[-1].split()[1:]))


def test_mate_check_says_each_flaw_before_the_checkmate_line(engine):
    engine.send("setoption name MateCheck value true",
                "position sfen ln1gkg2l/2sr5/ppppppsb1/6ppp/5P3/6PPP/PP1PP1N2/3S1S+n1L/LN1GK4"
                " w RBgp 42", "go mate 10000")
    lines = [line.text for line in engine.read_until("checkmate", timeout=60)]
    notes = [line for line in lines if line.startswith("info string ")]
    assert any(note.startswith("info string alternative last move at ply 3: ")
               for note in notes)
    assert notes[-1].startswith("info string composition check: 0 flaw(s), 1 note(s)")
    assert lines[-1].startswith("checkmate ")


def test_go_mate_without_a_check_is_nomate(engine):
    engine.send(NO_CHECK, "go mate 1000")
    assert engine.expect("checkmate", timeout=3).text == "checkmate nomate"


def test_go_nodes_mate_stops_at_its_nodes(engine):
    engine.send(HARD_TSUME, "go nodes 5000 mate 60000")
    lines = [line.text for line in engine.read_until("checkmate", timeout=20)]
    nodes = int(lines[-2].split(" nodes ")[1].split()[0])
    assert lines[-1] == "checkmate timeout" and 5000 <= nodes < 5000 + 1024


def test_go_mate_lets_a_side_in_check_defend_first_or_attack(engine):
    engine.send(ATTACKER_IN_CHECK, "go mate 5000")
    assert engine.expect("checkmate", timeout=8).text == "checkmate nomate"   # it defends
    engine.send("setoption name RootIsAndNodeIfChecked value false", ATTACKER_IN_CHECK,
                "go mate 5000")
    assert engine.expect("checkmate", timeout=8).text == "checkmate 1e2c"


def test_go_mate_of_the_defender_to_move_scores_its_mate_negative(engine):
    engine.send("position sfen 3sks3/4+B4/4S4/9/9/9/9/9/9 w S2rb4g4n4l18p 2", "go mate 5000")
    lines = [line.text for line in engine.read_until("checkmate", timeout=8)]
    assert lines[-1] == "checkmate 4a5b S*4b"
    assert [line for line in lines if line.startswith("info time")][-1].endswith(
        " score mate -2 pv 4a5b S*4b")


def test_mate_check_says_it_does_not_check_a_defender_first_line(engine):
    engine.send("setoption name MateCheck value true",
                "position sfen 3sks3/4+B4/4S4/9/9/9/9/9/9 w S2rb4g4n4l18p 2", "go mate 5000")
    lines = [line.text for line in engine.read_until("checkmate", timeout=8)]
    assert lines[-2].startswith("info string MateCheck: not run, the side to move defends")


def test_post_search_level_none_answers_its_first_mate_unproven(engine):
    engine.send("setoption name PostSearchLevel value None", TSUME_13, "go mate 10000")
    lines = [line.text for line in engine.read_until("checkmate", timeout=12)]
    assert "not proven shortest" in lines[-2]
    assert is_checkmate_after("4RB1k1/5s3/7n1/5s1LP/9/7r1/9/9/6K2 b b4g2s3n3l17p 1",
                              lines[-1].split()[1:])


@pytest.mark.timing
def test_go_mate_with_a_time_limit_answers_timeout_in_time(engine):
    start = time.monotonic()
    engine.send(HARD_TSUME, "go mate 500")
    assert engine.expect("checkmate", timeout=3).text == "checkmate timeout"
    assert time.monotonic() - start < 0.6


@pytest.mark.timing
def test_stop_during_go_mate_answers_at_once(engine):
    engine.send(HARD_TSUME, "go mate infinite")
    time.sleep(0.3)
    start = time.monotonic()
    engine.send("stop")
    assert engine.expect("checkmate", timeout=2).text == "checkmate timeout"
    assert time.monotonic() - start < 0.05


def test_go_mate_reports_progress_with_nodes_and_hashfull(engine):
    engine.send(HARD_TSUME, "go mate 1200")
    lines = engine.read_until("checkmate", timeout=3)
    infos = [l.text for l in lines if l.text.startswith("info time")]
    assert infos and all(re.fullmatch(r"info time \d+ nodes \d+ nps \d+ hashfull \d+", t)
                         for t in infos)


def is_checkmate_after(sfen, moves):
    from usi_engine.core.position import Position
    pos = Position(sfen)
    for ply, move in enumerate(moves):
        m = pos.parse_usi(move)
        if ply % 2 == 0 and not pos.gives_check(m):
            return False
        pos.push(m)
    return pos.is_checkmate()


def test_info_lines_follow_the_grammar_with_pv_last(engine):
    lines, _ = engine.go("position startpos moves 7g7f 3c3d", "go depth 6")
    infos = search_infos(lines)  # parse_info asserts the grammar
    assert infos
    for info in infos:
        assert {"depth", "time", "nodes", "score", "pv"} <= info.keys()
        assert info["score"][0] in ("cp", "mate")


def test_info_multipv_only_when_more_than_one_pv(engine):
    lines, _ = engine.go(STARTPOS, "go depth 3")
    assert all("multipv" not in i for i in search_infos(lines))
    engine.send("setoption name MultiPV value 3")
    lines, _ = engine.go(STARTPOS, "go depth 3")
    at_depth_3 = [i for i in search_infos(lines) if i["depth"] == 3 and "multipv" in i]
    assert {1, 2, 3} <= {i["multipv"] for i in at_depth_3}
    firsts = {tuple(i["pv"][:1]) for i in at_depth_3}
    assert len(firsts) >= 3  # three different first moves


def test_info_score_mate_in_plies_for_side_to_move(engine):
    lines, _ = engine.go(MATE_IN_1, "go depth 3")
    assert bestmove_of(lines)[0] == "G*5b"
    assert search_infos(lines)[-1]["score"] == ("mate", "1")


def test_info_score_is_from_the_side_to_move_point_of_view(engine):
    white_up = "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/9/9/4K4 {} - 1"
    lines, _ = engine.go(white_up.format("w"), "go depth 2")
    as_white = search_infos(lines)[-1]["score"]
    lines, _ = engine.go(white_up.format("b"), "go depth 2")
    as_black = search_infos(lines)[-1]["score"]
    assert as_white[0] == "cp" and int(as_white[1]) > 1000
    assert as_black[0] == "cp" and int(as_black[1]) < -1000


def test_info_bound_words_follow_the_score():
    # The search reports bounds through the callback; check the formatter directly
    # (the current search reports exact scores only).
    from usi_engine.usi.loop import format_info
    line = format_info({"depth": 5, "seldepth": 7, "nodes": 10, "time_ms": 1, "score_cp": 30,
                        "bound": "lower", "pv": []})
    assert line.endswith("score cp 30 lowerbound")
    line = format_info({"depth": 5, "score_mate": -3, "bound": "upper", "multipv": 2}, multipv=True)
    assert line == "info depth 5 multipv 2 score mate -3 upperbound"
    check_info_grammar(line)


def test_final_info_with_full_statistics_right_before_bestmove(engine):
    lines, _ = engine.go("position startpos moves 7g7f", "go depth 4")
    final = check_info_grammar(lines[-2].text)
    assert {"depth", "seldepth", "time", "nodes", "nps", "hashfull", "score", "pv"} <= final.keys()
    assert final["pv"][0] == bestmove_of(lines)[0]


# --- options every GUI expects ----------------------------------------------------------------


def test_gui_standard_options_are_offered():
    with UsiProcess() as engine:
        reply = [l.text for l in engine.handshake()]
    declared = {line.split()[2]: line for line in reply if line.startswith("option name ")}
    assert "type spin" in declared["USI_Hash"]
    assert "type check" in declared["USI_Ponder"]
    assert re.search(r"type spin default 1 min 1 ", declared["MultiPV"])
    assert "type spin" in declared["Threads"] and "max 256" in declared["Threads"]
    assert "type spin" in declared["NetworkDelay"] and "type spin" in declared["MinimumThinkingTime"]
    assert "type check" in declared["USI_AnalyseMode"]
    assert "type spin" in declared["MaxMovesToDraw"]
    assert "var CSARule27" in declared["EnteringKingRule"]


def test_usi_multipv_is_the_same_option_as_multipv(engine):
    engine.send("setoption name USI_MultiPV value 2")
    lines, _ = engine.go(STARTPOS, "go depth 2")
    assert {1, 2} <= {i.get("multipv") for i in search_infos(lines)}


def test_usi_hash_is_applied_at_isready(engine):
    engine.send("setoption name USI_Hash value 8", "isready")
    lines = engine.read_until("readyok")
    assert not any(l.text.startswith("info string") for l in lines)
    lines, _ = engine.go(STARTPOS, "go depth 3")
    assert bestmove_of(lines)[0] != "resign"


def test_max_moves_to_draw_makes_the_game_end_a_draw(engine):
    # Black is a whole army up at move 256: a win normally, a draw once the
    # game cannot go past move 256.
    position = "position sfen 4k4/9/9/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 256"
    lines, _ = engine.go(position, "go depth 3")
    assert int(search_infos(lines)[-1]["score"][1]) > 1000
    engine.send("setoption name MaxMovesToDraw value 256")
    lines, _ = engine.go(position, "go depth 3")
    assert search_infos(lines)[-1]["score"] == ("cp", "0")
    assert is_legal(position, bestmove_of(lines)[0])


def test_repetition_already_on_the_board_still_gets_a_legal_move(engine):
    shuffle = " 5i4h 5a4b 4h5i 4b5a" * 3  # the start position four times
    position = "position startpos moves" + shuffle
    lines, _ = engine.go(position, "go depth 2")
    assert is_legal(position, bestmove_of(lines)[0])


# --- habits of the clients ------------------------------------------------------------------


@pytest.mark.timing
def test_shogidokoro_style_game_with_fischer_clock():
    clocks = {"b": 3000, "w": 3000}
    inc = 500
    with UsiProcess() as engine:
        engine.send("usi")
        engine.read_until("usiok")
        engine.send("setoption name USI_Hash value 16", "setoption name USI_Ponder value false",
                    "isready")
        engine.expect("readyok")
        engine.send("usinewgame")
        moves: list[str] = []
        for ply in range(12):
            side = "bw"[ply % 2]
            position = "position startpos" + (" moves " + " ".join(moves) if moves else "")
            lines, at = engine.go(position, f"go btime {clocks['b']} wtime {clocks['w']} "
                                            f"binc {inc} winc {inc}")
            elapsed = int((lines[-1].at - at) * 1000) + 1
            assert elapsed < clocks[side], f"ply {ply}: {elapsed} ms of {clocks[side]}"
            clocks[side] += inc - elapsed
            move, _ = bestmove_of(lines)
            if move in ("resign", "win"):
                break
            assert is_legal(position, move)
            moves.append(move)
        engine.send("gameover draw")
        engine.send("quit")
        assert engine.wait_exit(1.0) == 0


@pytest.mark.timing
def test_byoyomi_200_is_never_exceeded_over_50_moves(engine):
    moves: list[str] = []
    delays = []
    for _ in range(50):
        position = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        lines, at = engine.go(position, "go btime 0 wtime 0 byoyomi 200")
        delays.append((lines[-1].at - at) * 1000)
        move, _ = bestmove_of(lines)
        if move in ("resign", "win"):
            moves = []
            continue
        assert is_legal(position, move)
        moves.append(move)
    report("byoyomi 200: go -> bestmove (ms) max/median",
           f"{max(delays):.1f} / {statistics.median(delays):.1f} (margin {200 - max(delays):.1f})")
    assert max(delays) < 200


def test_tsume_mode_and_analysis_mode_habits(engine):
    engine.send("setoption name USI_AnalyseMode value true")
    engine.send(MATE_IN_1, "go mate infinite")
    assert engine.expect("checkmate", timeout=2).text == "checkmate G*5b"
    engine.send(MATED_IN_2, "go infinite")
    time.sleep(0.3)
    engine.send("stop")
    # analysing: report the move even though it is lost, never resign
    line = engine.expect("bestmove", timeout=1)
    assert bestmove_of([line]) == ("1a2a", None) or bestmove_of([line])[0] == "1a2a"


# --- bench ------------------------------------------------------------------------------------


def test_bench_last_line_and_deterministic_node_count():
    def run() -> str:
        done = subprocess.run(engine_command() + ["bench", "--depth", "3"], capture_output=True,
                              cwd=ROOT, env=engine_env(), timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.decode().strip().splitlines()[-1]

    first, second = run(), run()
    pattern = r"nodes (\d+) time_ms (\d+) nps (\d+)"
    assert re.fullmatch(pattern, first) and re.fullmatch(pattern, second)
    assert re.fullmatch(pattern, first).group(1) == re.fullmatch(pattern, second).group(1)
    assert int(re.fullmatch(pattern, first).group(1)) > 0


def last_main_line_before(lines, index: int):
    """The last info line before lines[index] that a GUI takes as line 1 (no multipv, or
    multipv 1; not an info string): ShogiHome attaches its score and PV to the move only
    when its PV starts with the move played."""
    for line in reversed(lines[:index]):
        words = line.text.split()
        if words[:1] == ["info"] and "string" not in words[:2] and " pv " in line.text:
            if "multipv" not in words or words[words.index("multipv") + 1] == "1":
                return line.text
    return None


@pytest.mark.parametrize("options", [(), ("setoption name SkillLevel value 5",)],
                         ids=["full", "skill-5"])
def test_every_move_played_carries_its_line_as_a_gui_reads_it(options):
    # from the start, the book on (its moves first), then searched moves
    with UsiProcess(book=True) as engine:
        engine.send(*options)
        engine.handshake()
        moves: list[str] = []
        for _ in range(20):
            position = "position startpos" + (" moves " + " ".join(moves) if moves else "")
            lines, _ = engine.go(position, "go btime 0 wtime 0 byoyomi 150")
            assert not any(l.text.startswith("info string error") for l in lines)
            move, _ = bestmove_of(lines)
            main = last_main_line_before(lines, len(lines) - 1)
            assert main is not None and main.split(" pv ")[1].split()[0] == move, \
                (moves, [l.text for l in lines[-4:]])
            moves.append(move)
