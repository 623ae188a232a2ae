"""Bad input on the USI loop, as a careless GUI or script sends it: each gets a clear
``info string`` (never a skipped search or a crash), and the engine keeps its state.

Driven through the real executable (tests/helpers/usi_client.py) where the process matters
(signals, searches), in-process (``UsiEngine``) where only the parsing does.
"""
from __future__ import annotations

import io
import sys
import time

import cshogi
import pytest

from conftest import CTRL_C, sends_ctrl_c
from usi_client import UsiProcess
from usi_engine.usi.loop import UsiEngine

MATE_IN_1 = "position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1"


@pytest.fixture
def engine():
    with UsiProcess() as proc:
        proc.handshake()
        yield proc


def texts(lines) -> list[str]:
    return [line.text for line in lines]


def in_process(*lines: str) -> tuple[UsiEngine, list[str]]:
    """Feed lines to an in-process engine (no search); returns it and what it printed."""
    out = io.BytesIO()
    engine = UsiEngine(out)
    for line in lines:
        engine.handle_line(line)
    return engine, out.getvalue().decode().splitlines()


# ---- go limits of 2^31 and above: clamped, and searched --------------------------------------
@pytest.mark.parametrize("go", [
    "go depth 2147483648 movetime 300",
    "go depth 99999999999999999999999 movetime 300",
    "go nodes 9223372036854775808 movetime 300",
    "go btime 0 wtime 9223372036854775808 winc 9223372036854775808 byoyomi 300",
    "go movetime 9223372036854775808 depth 3",
])
def test_huge_go_values_are_clamped_and_the_search_still_runs(engine, go):
    lines, _ = engine.go("position startpos", go)
    board = cshogi.Board()
    said = texts(lines)
    assert not any("error" in text for text in said), said
    assert any(text.startswith("info depth") for text in said), said
    move = said[-1].split()[1]
    assert board.is_legal(board.move_from_usi(move))


def test_a_clamped_go_value_is_reported():
    _, said = in_process("go depth 2147483648 movetime 100000", "stop")
    assert any("depth 2147483648 is more than the engine takes; using 2147483647" in text
               for text in said), said


@pytest.mark.parametrize("go", ["go mate 9223372036854775808", "go mate 2147483648"])
def test_go_mate_with_a_huge_time_is_answered_by_checkmate(engine, go):
    engine.send(MATE_IN_1, go)
    lines = engine.read_until(lambda t: t.startswith(("checkmate", "bestmove")), timeout=20)
    assert lines[-1].text == "checkmate G*5b", texts(lines)


def test_a_stop_before_the_solver_begins_still_answers_a_short_mate():
    # (a GUI's stop, or quit, can be read before the solver's thread starts: a small
    # bounded proof must still find a mate in 1, not say timeout)
    from usi_engine.search.searcher import Searcher as RealSearcher

    class SlowToStart(RealSearcher):
        def mate_solver(self):
            time.sleep(0.3)          # the stop below is read meanwhile
            return super().mate_solver()

    out = io.BytesIO()
    engine = UsiEngine(out, searcher_factory=SlowToStart)
    for line in (MATE_IN_1, "go mate infinite", "stop"):
        engine.handle_line(line)
    engine._job.done.wait(10)
    checkmates = [t for t in out.getvalue().decode().splitlines() if t.startswith("checkmate")]
    assert checkmates == ["checkmate G*5b"]


def test_a_failing_go_mate_is_still_answered_by_checkmate():
    from usi_engine.search.searcher import Searcher as RealSearcher
    class Broken:
        def set_hash(self, mb):
            pass

        def clear_stop(self):
            pass

        def stop(self):
            pass

        def solve(self, *args, **kwargs):
            raise OverflowError("boom")

    class Searcher(RealSearcher):  # go mate's solver lives in the searcher's memory
        def mate_solver(self):
            return Broken()

    out = io.BytesIO()
    engine = UsiEngine(out, searcher_factory=Searcher)
    engine.handle_line(MATE_IN_1)
    engine.handle_line("go mate 1000")
    engine._job.done.wait(10)
    said = out.getvalue().decode().splitlines()
    assert said[-1] == "checkmate timeout" and "OverflowError" in said[-2]


# ---- positions the rules cannot have ----------------------------------------------------------
@pytest.mark.parametrize("line,named", [
    ("position startpos move 7g7f", "'move'"),
    ("position startpos 7g7f", "'7g7f'"),
    ("position 7g7f", "'7g7f'"),
    ("position", "got nothing"),
    ("position moves 7g7f", "'moves'"),
    ("position startpos sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
     "'sfen'"),
    ("position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 7g7f", "'7g7f'"),
    ("position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 1 moves 5i5h", "'1'"),
    ("position sfen 4k4/9/9/9/9/9/9/9/4K4 b", "2 fields"),
])
def test_a_position_line_usi_does_not_allow_is_named_and_the_old_position_kept(line, named):
    engine, said = in_process("position startpos moves 2g2f", line)
    assert len(said) == 1 and said[0].startswith("info string error: position: "), said
    assert named in said[0] and said[0].endswith("position unchanged"), said
    assert engine._position_now().usi_position().endswith(" moves 2g2f")


def test_position_keywords_and_an_empty_move_list_are_what_usi_allows():
    engine, said = in_process("position startpos moves", "position sfen 4k4/9/9/9/9/9/9/9/4K4 b - "
                              "moves 5i5h", "position startpos moves 7g7f")
    assert said == []
    assert engine._position_now().usi_position().endswith(" moves 7g7f")


@pytest.mark.parametrize("sfen", ["9/9/9/9/9/9/9/9/9 b - 1", "9/9/9/9/4P4/9/9/9/9 w G 1"])
def test_a_position_without_any_king_is_refused_and_the_old_one_kept(engine, sfen):
    engine.send("position startpos moves 7g7f", f"position sfen {sfen}")
    error = engine.expect(lambda t: t.startswith("info string error"), timeout=5)
    assert "no king" in error.text and "position unchanged" in error.text
    engine.send("go depth 1")
    bestmove = engine.expect("bestmove", timeout=10).text.split()[1]
    board = cshogi.Board()
    board.push_usi("7g7f")                           # white to move, as before
    assert board.is_legal(board.move_from_usi(bestmove))


def test_a_tsume_without_the_attackers_king_is_still_solved(engine):
    engine.send("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1", "go mate 5000")
    assert engine.expect("checkmate", timeout=10).text == "checkmate G*5b"


# ---- numbers and words -------------------------------------------------------------------------
@pytest.mark.parametrize("go", ["go depth \u0669", "go movetime \u0661\u0660\u0660",
                                "go depth \uff13"])
def test_digits_other_than_ascii_are_not_numbers(go):
    engine, said = in_process(go, "stop")
    engine._finish_job(cancel=True)
    assert any("needs an integer" in text for text in said), said


def test_a_sfen_with_arabic_indic_digits_is_refused():
    _, said = in_process("position sfen 4k4/9/9/9/9/9/9/9/4K\u0664 b - 1")
    assert len(said) == 1 and said[0].startswith("info string error: position: sfen board")


@pytest.mark.parametrize("line,debug", [("debug", True), ("debug on", True),
                                         ("debug off", False), ("DEBUG ON", True)])
def test_debug_takes_on_and_off(line, debug):
    engine, said = in_process(line)
    assert engine.debug is debug and said == []


@pytest.mark.parametrize("word", ["o", "of", "onn", "1", "true"])
def test_debug_with_another_word_is_reported_and_changes_nothing(word):
    engine, said = in_process(f"debug {word}")
    assert engine.debug is False
    assert len(said) == 1 and said[0].startswith("info string error: debug: expected on or off")


@pytest.mark.parametrize("line", [
    "x" * 100_000,
    "go depth " + "9" * 100_000,
    "go " + "y" * 100_000,
    "position startpos moves " + "7g7f" * 25_000,
    "setoption name " + "Z" * 100_000 + " value 1",
    "setoption name USI_Hash value " + "9" * 100_000,
])
def test_a_huge_token_is_not_echoed_back_whole(line):
    engine, said = in_process(line)
    engine._finish_job(cancel=True)
    assert said and all(len(text) <= 500 for text in said), \
        [len(text) for text in said]
    assert not any("internal error" in text for text in said), said


# ---- the final info line ------------------------------------------------------------------------
def test_the_final_info_is_not_a_repeat_of_the_last_one(engine):
    lines, _ = engine.go("position startpos", "go depth 3")
    infos = [text for text in texts(lines) if text.startswith("info depth")]

    def key(text):
        words = text.split()
        return (words[words.index("depth") + 1], words[words.index("nodes") + 1],
                text.split(" pv ")[-1])
    assert len({key(text) for text in infos}) == len(infos), infos
    assert infos and lines[-2].text == infos[-1]      # the full statistics just before bestmove


# ---- Ctrl-C ----------------------------------------------------------------------------------
@pytest.mark.parametrize("searching", [False, True])
@sends_ctrl_c
def test_ctrl_c_ends_the_loop_quietly(searching):
    with UsiProcess(new_session=sys.platform == "win32") as proc:
        proc.handshake()
        if searching:
            proc.send("position startpos", "go infinite")
            proc.expect(lambda t: t.startswith("info depth"), timeout=10)
        else:
            time.sleep(0.2)
        proc.proc.send_signal(CTRL_C)
        code = proc.wait_exit(5)
        assert code == 0
        assert "Traceback" not in proc.stderr() and "KeyboardInterrupt" not in proc.stderr()
