"""Lazy SMP: helper threads share the table safely, stop together, leave mate scores and
game rules as one thread finds them, and the Threads option takes effect at isready."""
import os
import sys
import threading
import time

import pytest

from usi_engine.core.position import Position, move_to_usi
from usi_engine.search.searcher import Searcher
from usi_engine.core.tt import concurrent_table_check, torn_entry_check

from usi_client import UsiProcess

MATE_IN_3_TSUME = "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"   # Koten 3-ply
MIDGAME = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"


@pytest.fixture(scope="module")
def searcher():
    s = Searcher()
    s.set_hash(16)
    s.set_threads(3)
    return s


def _live_helpers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("usi_engine-helper")]


def test_a_torn_table_entry_reads_as_a_miss():
    # one write's key word with another write's data word matches neither key
    assert torn_entry_check() == (False, False)


def test_table_entries_survive_concurrent_writers():
    # writers store entries whose every field is a function of the key, on a few
    # buckets shared by all; readers must never see a key with another write's data
    checked, torn = concurrent_table_check(threads=4, rounds=500_000)
    assert checked > 10_000
    assert torn == 0


def test_threads_must_be_in_range():
    s = Searcher()
    with pytest.raises(ValueError):
        s.set_threads(0)
    with pytest.raises(ValueError):
        s.set_threads(257)
    s.set_threads(256)
    assert s.threads == 256


def test_every_helper_searches_and_adds_its_nodes_to_the_count(searcher):
    result = searcher.search(Position(MIDGAME), soft_ms=300, hard_ms=300)
    assert result.best in Position(MIDGAME).legal_moves()
    per_thread = searcher.thread_nodes
    assert len(per_thread) == 3 and all(n > 0 for n in per_thread)
    assert sum(per_thread) == result.nodes


@pytest.mark.timing
def test_stop_ends_every_thread_at_once(searcher):
    threading.Timer(0.2, searcher.stop).start()
    start = time.perf_counter()
    result = searcher.search(Position(MIDGAME))
    assert time.perf_counter() - start < 0.4
    assert result.best in Position(MIDGAME).legal_moves()
    assert _live_helpers() == []


def test_helper_threads_do_not_outlive_a_search(searcher):
    searcher.search(Position(), depth=6)
    assert _live_helpers() == []


def test_mate_distance_is_exact_with_helpers(searcher):
    result = searcher.search(Position(MATE_IN_3_TSUME), depth=7)
    assert result.score_mate == 3
    pos = Position(MATE_IN_3_TSUME)
    for m in result.pv:
        pos.push(m)
    assert pos.is_checkmate()


def test_perpetual_check_is_a_loss_with_helpers(searcher):
    pos = Position("8k/9/6R2/9/9/9/9/9/K8 b - 1")
    for u in ["3c3a", "1a1b", "3a3b", "1b1a"]:
        pos.push_usi(u)
    result = searcher.search(pos, depth=5, searchmoves=[pos.parse_usi("3b3a")])
    assert result.score_mate is not None and result.score_mate < 0


def test_node_limited_search_is_reproducible_with_helpers(searcher):
    searcher.new_game()
    first = searcher.search(Position(MIDGAME), nodes=20000)
    searcher.new_game()
    second = searcher.search(Position(MIDGAME), nodes=20000)
    assert (first.best, first.nodes) == (second.best, second.nodes)
    assert first.nodes <= 20000


@pytest.mark.skipif(sys.platform == "win32" or not os.path.isdir("/proc/self/task"),
                    reason="counts threads in Linux /proc/PID/task (wine's Z:\\proc is the "
                           "host's, with other pids)")
def test_threads_option_takes_effect_at_isready():
    def threads_while_thinking(engine) -> int:
        engine.send("position startpos", "go infinite")
        time.sleep(0.8)   # past the root mate probe (300 ms), which runs on one thread
        count = len(os.listdir(f"/proc/{engine.proc.pid}/task"))
        engine.send("stop")
        engine.expect("bestmove", timeout=2)
        return count

    with UsiProcess() as engine:
        engine.handshake()
        engine.send("setoption name Threads value 1", "isready")
        engine.expect("readyok")
        one = threads_while_thinking(engine)
        engine.send("setoption name Threads value 4")
        assert threads_while_thinking(engine) == one   # not before isready
        engine.send("isready")
        engine.expect("readyok")
        assert threads_while_thinking(engine) == one + 3
