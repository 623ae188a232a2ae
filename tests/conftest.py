"""Shared fixtures: the reference suites in sfen/."""
import signal
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


def read_perft_suite():
    """[(name, sfen, {depth: count})] from sfen/perft.txt (bench's reader of it)."""
    from bench.lib.suites import read_perft_file
    return [(r.name, r.sfen, r.counts) for r in read_perft_file(SFEN_DIR / "perft.txt")]


@pytest.fixture
def startpos():
    from usi_engine import Position
    return Position()
