"""Shared fixtures: the reference suites in sfen/."""
import signal
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The tests' helper modules (the USI client under test, fake engines, the differential
#: corpus): importable by name from every test folder.
HELPERS = Path(__file__).resolve().parent / "helpers"
# The helpers, and every test folder too: a few tests take fixtures and builders from a
# test of another package (the bridge's fake server, the learner's records), which must
# not depend on the order in which pytest collects the folders.
for _folder in [HELPERS] + sorted(p for p in HELPERS.parent.iterdir()
                                  if p.is_dir() and any(p.glob("test_*.py"))):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))
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
    """[(name, sfen, {depth: count})] from sfen/perft.txt (``name | sfen | depth=count
    ...`` lines, read by the package's suite reader)."""
    from usi_engine.mate.suites import read_fields
    return [(fields[0], fields[1],
             {int(d): int(c) for d, c in (kv.split("=") for kv in fields[2].split())})
            for _number, fields in read_fields(SFEN_DIR / "perft.txt")]


@pytest.fixture
def solver():
    """A fresh tsume solver with a 16 MB table."""
    from usi_engine.mate.solver import MateSolver
    s = MateSolver()
    s.set_hash(16)
    return s


@pytest.fixture
def startpos():
    from usi_engine import Position
    return Position()


# ---- jobs started at collection, run beside the tests ------------------------------------
#: Checks that are one long subprocess (mypy over the package: 12 s on one core) start as
#: soon as collection shows one of their tests is selected, and run on the second core
#: while the others run; their tests then wait for the result.  {test file: job}
BACKGROUND_JOBS: dict[str, "BackgroundJob"] = {}


class BackgroundJob:
    """A command run in a subprocess from collection on; :meth:`result` waits for it."""

    def __init__(self, command: list[str], **popen) -> None:
        self.command, self.popen, self.proc = command, popen, None
        self._result: subprocess.CompletedProcess | None = None

    def start(self) -> None:
        if self.proc is None:
            self.proc = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True, **self.popen)

    def result(self, timeout: float = 300) -> subprocess.CompletedProcess:
        if self._result is None:
            self.start()
            out, err = self.proc.communicate(timeout=timeout)
            self._result = subprocess.CompletedProcess(self.command, self.proc.returncode,
                                                       out, err)
        return self._result

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


#: The test files whose checks share the differential walk (tests/helpers/differential_corpus.py).
WALKING_FILES = {"test_differential.py", "test_generators.py"}


def pytest_collection_modifyitems(session, config, items):
    wanted = {Path(str(item.fspath)).name for item in items}
    for name, job in BACKGROUND_JOBS.items():
        if name in wanted:
            job.start()
    # The default corpus' walk (25 s on one core) likewise, in a forked child, once every
    # check is registered (collection imported the files that register them).
    corpus = sys.modules.get("differential_corpus")
    if corpus is not None and any(Path(str(item.fspath)).name in WALKING_FILES
                                  and "[large]" not in item.nodeid for item in items):
        corpus.start_background_walk("default")


def pytest_unconfigure(config):
    for job in BACKGROUND_JOBS.values():
        job.stop()
    corpus = sys.modules.get("differential_corpus")
    if corpus is not None:
        corpus.stop_background_walks()
