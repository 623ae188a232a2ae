"""Shared fixtures: the reference suites in sfen/."""
import signal
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SFEN_DIR = ROOT / "sfen"

# A shell without job control starts a background command (`pytest ... &`, nohup) with
# SIGINT ignored, and an ignored signal stays ignored in every child it execs, so the
# engines the Ctrl-C tests start would never see their interrupt.  A handler (not
# SIG_IGN) here resets to the default in each child, whose Python then turns Ctrl-C into
# KeyboardInterrupt as it does when started from a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def under_wine() -> bool:
    """True when this Python is a Windows one running under wine (its ntdll exports
    wine_get_version): process starts there cost ten times what they do on Windows."""
    if sys.platform != "win32":
        return False
    import ctypes
    return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")


def latency_bound(latencies: list[float]) -> float:
    """The figure a latency test bounds: the worst answer on Windows and Linux, the median
    under wine. There every pipe write reaches the engine's reader thread through
    wineserver, and on a loaded 2-core CI machine one isready in five once took 75 ms."""
    return statistics.median(latencies) if under_wine() else max(latencies)


#: Ctrl-C as a test can send it to a child: SIGINT; on Windows CTRL_BREAK_EVENT, which
#: reaches only a child started in a process group of its own (NEW_PROCESS_GROUP; a
#: CTRL_C_EVENT would reach the whole console) and which the engine takes as Ctrl-C.
if sys.platform == "win32":
    CTRL_C, NEW_PROCESS_GROUP = signal.CTRL_BREAK_EVENT, subprocess.CREATE_NEW_PROCESS_GROUP
else:
    CTRL_C, NEW_PROCESS_GROUP = signal.SIGINT, 0

#: A test that sends CTRL_C: not under wine, whose piped processes have no console for
#: GenerateConsoleCtrlEvent to signal (it fails there; on Windows it does not).
sends_ctrl_c = pytest.mark.skipif(under_wine(), reason="wine gives piped processes no "
                                  "console, so GenerateConsoleCtrlEvent (Ctrl-Break) fails")


def read_perft_suite():
    """[(name, sfen, {depth: count})] from sfen/perft.txt (bench's reader of it)."""
    from bench.lib.suites import read_perft_file
    return [(r.name, r.sfen, r.counts) for r in read_perft_file(SFEN_DIR / "perft.txt")]


@pytest.fixture
def startpos():
    from usi_engine import Position
    return Position()
