"""Ctrl-C (SIGINT; Ctrl-Break on Windows) stops the long C loops at once: perft, the
tree search with no limit, the tsume solver, and the `mate`/`perft` commands.  Each
runs in a child process that is sent Ctrl-C once the loop is under way."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from conftest import CTRL_C, NEW_PROCESS_GROUP, sends_ctrl_c
from usi_client import engine_command, engine_env

pytestmark = sends_ctrl_c

#: The loops below run in a bare interpreter: on Windows it takes Ctrl-Break as Ctrl-C
#: as the engine's command line does.
BREAK_IS_INTERRUPT = ("import signal; signal.signal(signal.SIGBREAK, signal.default_int_handler)\n"
                      if sys.platform == "win32" else "")

MICROCOSMOS = ("g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/"
               "4+P1P1L/+B5G1g b - 1")   # 1525 plies: minutes of work
#: Generous: the loops poll every 1024 nodes and look at signals every 20 ms.
STOP_WITHIN_S = 1.0


def interrupt(command: list[str], started: str | None = None, wait_s: float = 1.0):
    """Run command, send Ctrl-C once it has printed `started` (and wait_s more), and
    return (exit code, seconds from the signal to the exit, stderr)."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=engine_env(), creationflags=NEW_PROCESS_GROUP)
    try:
        if started is not None:
            assert proc.stdout.readline().strip() == started
        time.sleep(wait_s)
        assert proc.poll() is None, "the loop ended before it could be interrupted"
        sent = time.perf_counter()
        proc.send_signal(CTRL_C)
        proc.wait(timeout=10)
        took = time.perf_counter() - sent
        return proc.returncode, took, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def python_loop(statement: str) -> list[str]:
    return [sys.executable, "-c", BREAK_IS_INTERRUPT +
            "from usi_engine.core.position import Position\n"
            "from usi_engine.search.searcher import Searcher\n"
            "from usi_engine.mate.solver import MateSolver\n"
            "print('started', flush=True)\n" + statement]


def test_ctrl_c_interrupts_a_search_without_limits_with_keyboard_interrupt():
    code, took, err = interrupt(python_loop("Searcher().search(Position())"), "started", 0.3)
    assert "KeyboardInterrupt" in err and code != 0
    assert took < STOP_WITHIN_S


def test_ctrl_c_interrupts_the_mate_solver_with_keyboard_interrupt():
    code, took, err = interrupt(python_loop(
        f"s = MateSolver(); s.set_hash(16); s.solve(Position({MICROCOSMOS!r}))"), "started", 0.3)
    assert "KeyboardInterrupt" in err and code != 0
    assert took < STOP_WITHIN_S


def test_ctrl_c_interrupts_perft_with_keyboard_interrupt():
    code, took, err = interrupt(python_loop("Position().perft(7)"), "started", 0.3)
    assert "KeyboardInterrupt" in err and code != 0
    assert took < STOP_WITHIN_S


@pytest.mark.parametrize("args", [["perft", "7"], ["mate", MICROCOSMOS, "--hash", "16"]],
                         ids=["perft-7", "mate"])
def test_ctrl_c_stops_the_command_line_at_once_with_code_130(args):
    code, took, err = interrupt(engine_command() + args, None, 1.5)
    assert code == 130 and "interrupted" in err
    assert took < STOP_WITHIN_S


def test_ctrl_c_in_a_mate_suite_still_prints_the_summary_of_what_was_solved(tmp_path):
    suite = tmp_path / "suite.txt"
    suite.write_text("one | 4k4/9/4P4/9/9/9/9/9/4K4 b G 1 | 1\n"
                     f"long | {MICROCOSMOS} | 1525\n")
    proc = subprocess.Popen(engine_command() + ["mate", "--suite", str(suite), "--hash", "16"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=engine_env(), creationflags=NEW_PROCESS_GROUP)
    try:
        while not proc.stdout.readline().startswith("one "):
            assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.5)                                   # into the long problem
        proc.send_signal(CTRL_C)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and "interrupted" in err
    assert out.splitlines()[-1].startswith("interrupted after 1 of 2 problems: solved 1/1, "
                                           "expected length matched 1"), out
