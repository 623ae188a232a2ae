"""The engine under real use: the memory a user sets is the memory used, nothing heavy
happens inside `go` or on the input thread, quit/EOF still print what is owed, and
`go mate` counts lengths as the user chooses.  Latency limits here are generous
margins; bench/memory_bench.py measures the figures."""
from __future__ import annotations

import re
import sys
import time

import pytest

from usi_client import UsiProcess

MATE_IN_3 = "position sfen 3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"
MICROCOSMOS = ("position sfen g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/"
               "1P3ssP1/2P1+Ps2N/4+P1P1L/+B5G1g b - 1")
BUSY = "position sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
# a real-game mate: after B*5a the rook drop R*6b blocks, is taken, and the mate goes on
BLOCKED = ("position sfen gn2+R4/l1k5l/pp2N3p/2p1p2S1/3p1p2P/2P1PnP1L/PP1P5/L2G1S3/+bNS1KG3 "
           "b BS4Prg 85")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def started(hash_mb: int) -> UsiProcess:
    engine = UsiProcess()
    engine.send("usi")
    engine.read_until("usiok")
    engine.send(f"setoption name USI_Hash value {hash_mb}", "isready")
    engine.expect("readyok", timeout=30)
    return engine


@pytest.mark.timing
def test_first_go_mate_of_a_three_ply_mate_answers_at_once():
    with started(256) as engine:
        engine.send("usinewgame", MATE_IN_3)
        at = engine.send("go mate 10000")
        line = engine.expect(lambda t: t.startswith("checkmate"))
    assert line.text == "checkmate 9f5b+ 4a5b S*4b"
    assert line.at - at < 0.5          # the issue asks for 100 ms; measured in bench/


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_go_mate_works_inside_the_hash_the_user_set():
    with started(256) as engine:
        after_isready = rss_mb(engine.proc.pid)
        engine.send(BUSY, "go mate 1500")
        engine.expect(lambda t: t.startswith("checkmate"), timeout=10)
        after_mate = rss_mb(engine.proc.pid)
    assert after_isready > 256                 # the memory is touched at isready
    assert after_mate < 256 + 80               # no second table for the solver


@pytest.mark.timing
def test_isready_and_quit_during_a_long_go_mate_are_answered_at_once():
    with started(64) as engine:
        engine.send(MICROCOSMOS, "go mate infinite")
        time.sleep(0.5)
        at = engine.send("isready")
        ready = engine.expect("readyok")
        quit_at = engine.send("quit")
        owed = engine.expect(lambda t: t.startswith("checkmate"), timeout=2)
        code = engine.wait_exit(2)
    assert ready.at - at < 0.5
    assert owed.text == "checkmate timeout" and owed.at - quit_at < 1.0
    assert code == 0


def test_end_of_input_during_a_search_prints_the_owed_bestmove():
    with started(16) as engine:
        engine.send("position startpos", "go depth 30")
        time.sleep(0.2)
        closed_at = time.perf_counter()
        engine.proc.stdin.close()
        best = engine.expect(lambda t: t.startswith("bestmove"), timeout=2)
        code = engine.wait_exit(2)
    assert best.at - closed_at < 1.0 and best.text != "bestmove resign"
    assert code == 0


def test_gameover_then_quit_owes_no_bestmove():
    with started(16) as engine:
        engine.send(BUSY, "go infinite")
        time.sleep(0.2)
        engine.send("gameover lose", "quit")
        assert engine.wait_exit(2) == 0
    assert not any(l.text.startswith("bestmove") for l in engine.lines)


@pytest.mark.timing
def test_usinewgame_at_1024_mb_is_answered_at_once():
    # clearing 1 GB took 35 ms; nothing is cleared now (a fraction of a millisecond).
    # The fastest of three answers: a loaded machine only ever adds time.
    waits = []
    with started(1024) as engine:
        for _ in range(3):
            engine.send(MATE_IN_3, "go mate 1000")
            engine.expect(lambda t: t.startswith("checkmate"))
            at = engine.send("usinewgame", "isready")
            waits.append(engine.expect("readyok").at - at)
    assert min(waits) < 0.01


@pytest.mark.skipif(sys.platform == "win32",
                    reason="limits the address space with resource.RLIMIT_AS (POSIX only)")
def test_a_refused_allocation_keeps_the_engine_playing_and_says_so(monkeypatch):
    # an address-space limit makes the system refuse the table, as a small machine would
    from usi_client import engine_command
    limit = 1 << 30
    wrapper = (f"import os, resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}));"
               " os.execvp(sys.argv[1], sys.argv[1:])")
    monkeypatch.setenv("USI_ENGINE_CMD", " ".join([sys.executable, "-c", repr(wrapper)]
                                                  + engine_command()))
    with UsiProcess() as engine:
        engine.send("usi", "setoption name USI_Hash value 2048", "isready")
        lines = engine.read_until("readyok", timeout=30)
        notes = [l.text for l in lines if l.text.startswith("info string")]
        engine.send("position startpos", "go depth 3")
        best = engine.expect(lambda t: t.startswith("bestmove"))
    assert len(notes) == 1, notes
    got = re.fullmatch(r"info string USI_Hash: the system refused 2048 MB; using (\d+) MB "
                       r"instead", notes[0])
    # the largest size the 1 GB of address space still held, not a fixed 16 MB
    assert got and 128 <= int(got.group(1)) < 1024, notes
    assert best.text.startswith("bestmove ") and best.text != "bestmove resign"


@pytest.mark.parametrize("setting, plies", [("published", 5), ("strict", 7)])
def test_mate_length_option_chooses_how_defences_are_counted(setting, plies):
    with started(16) as engine:
        engine.send(f"setoption name MateLength value {setting}", BLOCKED, "go mate 10000")
        line = engine.expect(lambda t: t.startswith("checkmate"), timeout=15)
    assert len(line.text.split()) - 1 == plies
