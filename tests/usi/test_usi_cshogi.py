"""Our engine under a real USI client nobody here wrote: cshogi.

* ``cshogi.usi.Engine``: the handshake, ``usi``, ``isready``, ``position``, ``go``
  (byoyomi, Fischer, nodes, ponder + ponderhit), ``go_mate``, ``gameover``, ``quit``;
* ``cshogi.cli.main``: cshogi's match runner plays our engine against itself to the
  end of each game; no illegal move, no time loss, and (stricter than cshogi's own
  1 s grace) no move that took longer than the mover's remaining main time.

cshogi's client loops forever if the engine dies (it compares bytes with ``''``),
so every test runs under a watchdog that kills the engines and fails instead.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import math
import re
import signal
import sys
import threading
import time
from pathlib import Path

import cshogi
import pytest
from cshogi import cli
from cshogi.usi import Engine

from usi_client import write_engine_script

# every test runs under the SIGALRM watchdog below (cshogi would otherwise spin forever
# on a dead engine), and Windows has no SIGALRM
pytestmark = pytest.mark.skipif(sys.platform == "win32",
                                reason="the cshogi watchdog needs SIGALRM (not on Windows)")


@pytest.fixture(scope="module")
def engine_path(tmp_path_factory) -> str:
    return str(write_engine_script(tmp_path_factory.mktemp("engine")))


class Tracker:
    """Wraps cshogi's Engine methods: remembers every engine process (to kill them on
    a timeout) and times every ``go`` against the mover's clock."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.procs: list = []
        self.moves: list[dict] = []   # one entry per go: side, clocks, elapsed, answer
        self._lock = threading.Lock()
        connect, position, go = Engine.connect, Engine.position, Engine.go
        tracker = self

        def tracked_connect(engine, *args, **kwargs):
            result = connect(engine, *args, **kwargs)
            tracker.procs.append(engine.proc)
            return result

        def tracked_position(engine, moves=None, *args, **kwargs):
            engine._tracked_plies = len(moves or [])
            return position(engine, moves, *args, **kwargs)

        def tracked_go(engine, *args, **kwargs):
            start = time.perf_counter()
            answer = go(engine, *args, **kwargs)
            elapsed_ms = math.ceil((time.perf_counter() - start) * 1000)
            side = getattr(engine, "_tracked_plies", 0) % 2  # 0 black, 1 white
            with tracker._lock:
                tracker.moves.append({
                    "side": side, "ponder": kwargs.get("ponder", False),
                    "main": kwargs.get("btime") if side == 0 else kwargs.get("wtime"),
                    "byoyomi": kwargs.get("byoyomi"), "elapsed_ms": elapsed_ms,
                    "answer": answer})
            return answer

        monkeypatch.setattr(Engine, "connect", tracked_connect)
        monkeypatch.setattr(Engine, "position", tracked_position)
        monkeypatch.setattr(Engine, "go", tracked_go)

    def kill_all(self) -> None:
        for proc in self.procs:
            if proc is None:
                continue
            with contextlib.suppress(Exception):
                proc.kill()
                proc.wait(timeout=2)
            # cshogi's reader would spin on b"" forever: make it raise instead.
            with contextlib.suppress(Exception):
                proc.stdout.close()


@contextlib.contextmanager
def watchdog(seconds: int, tracker: Tracker | None = None):
    """Fail (and kill the engines) if the block runs longer than ``seconds``."""
    def expire(signum, frame):
        raise TimeoutError(f"cshogi did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    except BaseException:
        if tracker is not None:
            tracker.kill_all()
        raise
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def tracker(monkeypatch):
    t = Tracker(monkeypatch)
    yield t
    t.kill_all()


@pytest.fixture
def engine(engine_path, tracker):
    with watchdog(30, tracker):
        e = Engine(engine_path)
        e.isready()
    yield e
    if e.proc is not None:
        with watchdog(10, tracker):
            e.quit()


def legal(sfen_moves: list[str], move: str) -> bool:
    board = cshogi.Board()
    for m in sfen_moves:
        board.push_usi(m)
    return bool(board.is_legal(board.move_from_usi(move)))


# --- cshogi.usi.Engine ------------------------------------------------------------------------


def test_cshogi_handshake_reads_our_name(engine_path, tracker):
    with watchdog(30, tracker):
        e = Engine(engine_path)
        assert re.fullmatch(r"usi_engine \d+\.\d+\.\d+\S*", e.name)
        e.quit()


def test_cshogi_usi_lists_our_options(engine):
    with watchdog(10):
        lines = engine.usi()
    assert lines[0].startswith("id name usi_engine")
    assert any(l.startswith("option name USI_Hash type spin") for l in lines)
    assert any(l.startswith("option name USI_Ponder type check") for l in lines)


@pytest.mark.timing
def test_cshogi_setoption_isready_position_go_byoyomi(engine, tracker):
    with watchdog(20, tracker):
        engine.setoption("USI_Hash", 32)
        engine.setoption("MultiPV", 1)
        engine.isready()
        engine.usinewgame()
        engine.position(["7g7f", "3c3d"])
        best, ponder = engine.go(btime=0, wtime=0, byoyomi=500)
    assert legal(["7g7f", "3c3d"], best)
    assert ponder is None or legal(["7g7f", "3c3d", best], ponder)
    assert tracker.moves[-1]["elapsed_ms"] < 500


@pytest.mark.timing
def test_cshogi_go_fischer_as_white(engine, tracker):
    with watchdog(20, tracker):
        engine.position(["2g2f"])
        best, _ = engine.go(btime=600000, wtime=2000, binc=1000, winc=1000)
    assert legal(["2g2f"], best)
    assert tracker.moves[-1]["elapsed_ms"] < 2000


def test_cshogi_go_nodes(engine):
    with watchdog(20):
        engine.position([])
        best, _ = engine.go(nodes=3000)
    assert legal([], best)


def test_cshogi_go_mate_reads_the_mating_line(engine):
    with watchdog(10):
        engine.position(sfen="sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1")
        assert engine.go_mate(byoyomi=1000) == "G*5b"
        assert engine.go_mate() == "G*5b"  # "go mate infinite"
        engine.position(sfen="sfen 4k4/9/9/9/9/9/9/9/4K4 b 2r2b4g4s4n4l18p 1")
        assert engine.go_mate(byoyomi=1000) == "nomate"
        engine.isready()  # nothing else was owed: the next exchange is clean


def test_cshogi_ponder_then_ponderhit(engine, tracker):
    with watchdog(20, tracker):
        engine.setoption("USI_Ponder", "true")
        engine.position(["7g7f", "3c3d"])
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            future = pool.submit(engine.go, ponder=True, btime=0, wtime=0, byoyomi=300)
            time.sleep(0.5)
            assert not future.done()  # pondering: no bestmove before ponderhit
            engine.ponderhit()
            best, _ = future.result(timeout=2)
    assert legal(["7g7f", "3c3d"], best)


def test_cshogi_gameover_and_quit(engine_path, tracker):
    with watchdog(20, tracker):
        e = Engine(engine_path)
        e.isready()
        e.usinewgame()
        e.position([])
        e.go(byoyomi=100)
        e.gameover("win")
        proc = e.proc
        e.quit()
    assert proc.returncode == 0


# --- cshogi.cli.main: engine against engine -------------------------------------------------


def play_match(engine_path: str, tracker: Tracker, tmp_path: Path, capsys, *, games: int,
               seconds: int, **kwargs) -> dict:
    """Run cshogi's match runner; check every game ended properly and no clock was
    overstepped. Returns cshogi's result dict."""
    with watchdog(seconds, tracker):
        result = cli.main(engine_path, engine_path, games=games, csa=str(tmp_path),
                          print_summary=True, **kwargs)
    out = capsys.readouterr().out
    assert result["total"] == games
    endings = re.findall(r"^まで(\d+)手で(.*)$", out, re.M)
    assert len(endings) == games, out
    for plies, how in endings:
        assert "反則" not in how, f"illegal move / rule violation after {plies} plies: {how}"
        assert "切れ負け" not in how, f"time loss after {plies} plies"
    for record in tmp_path.glob("*.csa"):
        last = record.read_text().strip().splitlines()[-1]
        assert last in ("%TORYO", "%KACHI", "%SENNICHITE", "%JISHOGI"), (record.name, last)
    assert len(list(tmp_path.glob("*.csa"))) == games
    # Stricter than cshogi (which forgives 1 s): never more than the main time left,
    # or under byoyomi, than the byoyomi itself.
    for move in tracker.moves:
        if move["ponder"]:
            continue  # timed from ponderhit by cshogi, not by this wrapper
        budget = (move["main"] or 0) + (move["byoyomi"] or 0)
        assert move["elapsed_ms"] < budget, move
    return result


@pytest.mark.timing
def test_cshogi_match_fast_fischer_plays_to_the_end(engine_path, tracker, tmp_path, capsys):
    result = play_match(engine_path, tracker, tmp_path, capsys, games=2, seconds=150,
                        time=2000, inc=100)
    assert result["engine1_won"] + result["engine2_won"] + result["draw"] == 2
    margins = [m["main"] - m["elapsed_ms"] for m in tracker.moves]
    print(f"\n[figure] cshogi Fischer 2s+0.1s: {len(tracker.moves)} moves, smallest clock margin "
          f"{min(margins)} ms")


@pytest.mark.slow
def test_cshogi_match_more_fischer_games(engine_path, tracker, tmp_path, capsys):
    play_match(engine_path, tracker, tmp_path, capsys, games=6, seconds=900, time=5000, inc=200)


@pytest.mark.slow
def test_cshogi_match_byoyomi(engine_path, tracker, tmp_path, capsys):
    play_match(engine_path, tracker, tmp_path, capsys, games=2, seconds=900, byoyomi=300)


@pytest.mark.slow
def test_cshogi_match_with_ponder(engine_path, tracker, tmp_path, capsys):
    play_match(engine_path, tracker, tmp_path, capsys, games=2, seconds=900, time=3000, inc=200,
               ponder=True)
