"""usi_engine/usi/client.py (the package's USI client) and usi/info.py's parse_info.

The client is driven against the real engine (``python -m usi_engine``) and against
small fake engines written as Python scripts in tmp_path.
"""
from __future__ import annotations

import os
import queue
import sys
import textwrap
import time

import pytest

from usi_engine.usi.client import (GoResult, UsiClient, UsiEngineExited, UsiError, UsiOption,
                                   UsiTimeout, default_engine_command, split_command)
from usi_engine.usi.info import Info, parse_info

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fake_engine(tmp_path, body: str, name: str = "fake.py") -> list[str]:
    """A fake engine: ``body`` runs once per input line, with ``line`` and ``say``."""
    path = tmp_path / name
    path.write_text("import sys, time\n"
                    "def say(text):\n"
                    "    sys.stdout.write(text + '\\n'); sys.stdout.flush()\n"
                    "for line in sys.stdin:\n"
                    "    line = line.strip()\n"
                    + textwrap.indent(textwrap.dedent(body), "    "))
    return [sys.executable, str(path)]


QUIET = """
if line == "usi":
    say("id name quiet one"); say("usiok")
elif line == "isready":
    say("readyok")
elif line == "quit":
    break
"""


# --- against the real engine ------------------------------------------------------------------

@pytest.fixture(scope="module")
def real():
    with UsiClient(default_engine_command(), cwd=ROOT) as engine:
        engine.handshake({"USI_Hash": 16})
        yield engine


def test_handshake_reads_id_and_options(real):
    assert real.id_name and real.id_name.startswith("usi_engine")
    assert real.name == real.id_name
    assert real.id_author
    hash_option = real.options["USI_Hash"]
    assert (hash_option.type, hash_option.min) == ("spin", 1)
    assert real.options["USI_Ponder"].type == "check"
    assert real.has_option("usi_hash") and not real.has_option("NoSuchOption")


def test_go_returns_bestmove_ponder_and_parsed_infos(real):
    real.usinewgame()
    real.position("startpos", ["7g7f", "3c3d"])
    result = real.go("depth 4", timeout=30)
    assert isinstance(result, GoResult)
    assert result.lines[-1].text.startswith("bestmove " + result.bestmove)
    assert result.infos and all(isinstance(i, Info) for i in result.infos)
    final = result.score
    assert final is not None and final.depth == 4 and final.score_cp is not None
    assert final.pv[0] == result.bestmove
    assert result.ponder is None or result.ponder == final.pv[1]
    assert result.elapsed_s >= 0


def test_go_ponder_then_ponderhit_gives_the_bestmove(real):
    real.position("startpos")
    real.start_go("ponder btime 0 wtime 0 byoyomi 200")
    time.sleep(0.2)
    real.ponderhit()
    assert real.wait_bestmove(timeout=10).bestmove


def test_go_infinite_then_stop(real):
    real.position("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    real.start_go("infinite")
    time.sleep(0.2)
    real.stop()
    assert real.wait_bestmove(timeout=10).bestmove


# --- waits, time-outs and ends ----------------------------------------------------------------

def test_timeout_raises_naming_the_engine(tmp_path):
    with UsiClient(fake_engine(tmp_path, QUIET)) as engine:
        engine.usi(timeout=10)
        engine.send("go depth 1")                       # never answered
        with pytest.raises(UsiTimeout, match="quiet one: no bestmove within 0.2 s"):
            engine.read_until("bestmove", timeout=0.2)


def test_timeout_names_the_program_before_the_handshake(tmp_path):
    mute = 'if line == "quit":\n    break\n'           # silent, but quits when told
    with UsiClient(fake_engine(tmp_path, mute, name="mute.py")) as engine:
        with pytest.raises(UsiTimeout, match="mute.py: no usiok"):
            engine.usi(timeout=0.2)


def test_go_sends_stop_after_its_timeout_when_given_a_grace(tmp_path):
    body = QUIET + """elif line == "stop":
    say("bestmove 7g7f")
"""
    with UsiClient(fake_engine(tmp_path, body)) as engine:
        result = engine.go("infinite", timeout=0.2, stop_grace=5)
        assert (result.bestmove, result.stopped) == ("7g7f", True)


def test_an_exiting_engine_raises_with_its_exit_code_and_stderr(tmp_path):
    body = """if line == "go":
    sys.stderr.write("dying now\\n"); sys.stderr.flush()
    sys.exit(3)
"""
    with UsiClient(fake_engine(tmp_path, body, name="crasher.py")) as engine:
        engine.send("go")
        with pytest.raises(UsiEngineExited, match="crasher.py exited .exit code 3.") as caught:
            engine.read_until("bestmove", timeout=10)
        assert caught.value.returncode == 3
        assert "dying now" in str(caught.value)
        with pytest.raises(UsiEngineExited):           # and it keeps saying so
            engine.read_line(timeout=1)
        with pytest.raises(UsiEngineExited):
            engine.send("isready")
        assert not engine.try_send("isready")


def test_a_program_that_cannot_be_run_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        UsiClient([str(tmp_path / "no-such-engine")])


def test_quit_kills_a_hung_engine(tmp_path):
    body = """if line == "quit":
    time.sleep(60)
"""
    engine = UsiClient(fake_engine(tmp_path, body))
    started = time.perf_counter()
    code = engine.quit(timeout=0.3)
    assert time.perf_counter() - started < 10
    assert not engine.alive and code is not None and code != 0


def test_quit_lets_a_polite_engine_exit(tmp_path):
    engine = UsiClient(fake_engine(tmp_path, QUIET))
    assert engine.quit(timeout=10) == 0


def test_context_manager_quits_the_engine(tmp_path):
    with UsiClient(fake_engine(tmp_path, QUIET)) as engine:
        assert engine.alive
    assert not engine.alive


def test_command_string_is_split_like_a_shell(tmp_path):
    script = tmp_path / "dir with space" / "fake.py"
    script.parent.mkdir()
    script.write_text("import sys\nfor line in sys.stdin:\n"
                      "    print(' '.join(sys.argv[1:]) if line.strip() == 'usi' else '', flush=True)\n"
                      "    break\n")
    command = f'"{sys.executable}" "{script}" --flag "two words"'
    assert split_command(command) == [sys.executable, str(script), "--flag", "two words"]
    with UsiClient(command) as engine:
        engine.send("usi")
        assert engine.read_line(timeout=10).text == "--flag two words"


def test_setoption_writes_bools_and_buttons(tmp_path):
    log = tmp_path / "log"
    body = f"""open({str(log)!r}, "a").write(line + "\\n")
""" + QUIET
    with UsiClient(fake_engine(tmp_path, body)) as engine:
        engine.handshake([("USI_Ponder", True), ("Threads", 2)])
        engine.setoption("Clear Hash")
        engine.isready(10)
    assert log.read_text().splitlines()[:6] == [
        "usi", "setoption name USI_Ponder value true", "setoption name Threads value 2",
        "isready", "setoption name Clear Hash", "isready"]


def test_position_accepts_startpos_sfen_and_moves(tmp_path):
    sent = []
    with UsiClient(fake_engine(tmp_path, QUIET), log=lambda d, t: sent.append(t) if d == "send" else None) as engine:
        engine.position()
        engine.position("startpos", ["7g7f"])
        engine.position("sfen 9/9/9/9/9/9/9/9/4K4 b - 1")
        engine.position("9/9/9/9/9/9/9/9/4K4 b - 1", ["5i5h"])
    assert sent[:4] == ["position startpos", "position startpos moves 7g7f",
                        "position sfen 9/9/9/9/9/9/9/9/4K4 b - 1",
                        "position sfen 9/9/9/9/9/9/9/9/4K4 b - 1 moves 5i5h"]


def test_forwarded_lines_and_exit_reach_the_callbacks(tmp_path):
    events: queue.Queue = queue.Queue()
    with UsiClient(fake_engine(tmp_path, QUIET)) as engine:
        engine.send("usi")
        time.sleep(0.3)                                  # some lines queued before forward
        engine.forward(lambda line: events.put(line.text), lambda code: events.put(("exit", code)))
        engine.send("isready", "quit")
        got = [events.get(timeout=10) for _ in range(4)]
        with pytest.raises(UsiError, match="forwarded"):
            engine.read_line(0.1)
    assert got == ["id name quiet one", "usiok", "readyok", ("exit", 0)]


# --- options -----------------------------------------------------------------------------------

def test_option_lines_are_parsed():
    combo = UsiOption.parse("option name Style type combo default Normal var Solid var Normal")
    assert (combo.name, combo.type, combo.default, combo.vars) == (
        "Style", "combo", "Normal", ["Solid", "Normal"])
    spaced = UsiOption.parse("option name Clear Hash type button")
    assert (spaced.name, spaced.type, spaced.default) == ("Clear Hash", "button", None)
    assert UsiOption.parse("id name x") is None


# --- parse_info --------------------------------------------------------------------------------

def test_parse_info_reads_every_numeric_field_and_the_pv():
    info = parse_info("info depth 8 seldepth 10 time 12 nodes 900 nps 75000 hashfull 3 "
                      "multipv 1 score cp -35 pv 7g7f 3c3d")
    assert (info.depth, info.seldepth, info.time_ms, info.nodes, info.nps, info.hashfull,
            info.multipv, info.score_cp, info.pv) == (8, 10, 12, 900, 75000, 3, 1, -35,
                                                      ["7g7f", "3c3d"])
    assert info.has_score and not info.is_mate and not info.is_bound


def test_parse_info_mate_in_plies_with_sign():
    assert parse_info("info score mate 5 pv 2b3c").score_mate == 5
    losing = parse_info("info score mate -4 pv 5a4a")
    assert (losing.score_mate, losing.mate_sign, losing.mate) == (-4, -1, (4, False))


def test_parse_info_mate_without_a_number():
    winning, losing = parse_info("info score mate + pv G*5b"), parse_info("info score mate -")
    assert (winning.score_mate, winning.mate_sign, winning.pv) == (None, 1, ["G*5b"])
    assert (losing.score_mate, losing.mate_sign, losing.is_mate) == (None, -1, True)
    assert losing.has_score and losing.mate == (None, False)


def test_parse_info_lowerbound_and_upperbound():
    lower = parse_info("info depth 5 score cp 30 lowerbound nodes 10 pv 7g7f")
    assert (lower.score_cp, lower.lowerbound, lower.upperbound, lower.nodes) == (30, True, False, 10)
    upper = parse_info("info depth 5 multipv 2 score mate -3 upperbound")
    assert (upper.score_mate, upper.upperbound, upper.multipv, upper.is_bound) == (-3, True, 2, True)


def test_parse_info_string_takes_the_rest_of_the_line():
    info = parse_info("info depth 3 string hello  score cp 5 pv 7g7f")
    assert info.string == "hello  score cp 5 pv 7g7f"
    assert (info.depth, info.score_cp, info.pv) == (3, None, [])


def test_parse_info_currmove_and_unknown_words():
    info = parse_info("info currmove 7g7f currmovenumber 3 cpuload 500 tbhits 0 frobs nodes 9")
    assert (info.currmove, info.currmovenumber, info.nodes) == ("7g7f", 3, 9)


def test_parse_info_malformed_numbers_are_left_out():
    info = parse_info("info depth x score cp 12x nodes 5 pv 7g7f")
    assert (info.depth, info.score_cp, info.has_score, info.nodes, info.pv) == (
        None, None, False, 5, ["7g7f"])
    assert parse_info("info score") == Info()


def test_parse_info_rejects_other_lines():
    with pytest.raises(ValueError):
        parse_info("bestmove 7g7f")
