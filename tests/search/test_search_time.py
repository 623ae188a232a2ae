"""How the search spends its time: under a main time it stops between iterations near
the soft target, scaled by how settled the best move is (never starting one past the
scaled target), under byoyomi it uses the budget to the hard deadline, and a cut-off
iteration never loses the move already found."""
import threading
import time

import pytest

from usi_engine.core.position import Position
from usi_engine.search.searcher import Searcher, spend_factor

MIDGAME = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"


@pytest.fixture()
def searcher():
    s = Searcher()
    s.set_hash(16)
    s.set_threads(1)
    return s


def test_no_iteration_is_started_past_the_scaled_soft_target(searcher):
    ends = {}          # depth -> ms at which that iteration ended (first report of it)

    def note(info):
        ends.setdefault(info["depth"], info["time_ms"])

    start = time.perf_counter()
    result = searcher.search(Position(MIDGAME), soft_ms=200, hard_ms=20000, on_info=note)
    elapsed = time.perf_counter() - start
    depths = sorted(ends)
    # the last iteration began when the one before it ended: before 60% of the soft
    # target at the largest scale (the best move changing every iteration, its score
    # falling fast)
    assert len(depths) >= 2 and ends[depths[-2]] < 200 * 0.6 * spend_factor(2.0, 1e9, 0)
    assert elapsed < 20.0 and result.depth == depths[-1]


@pytest.mark.timing
def test_a_byoyomi_budget_is_used_up_to_the_hard_deadline(searcher):
    start = time.perf_counter()
    result = searcher.search(Position(MIDGAME), soft_ms=400, hard_ms=400)
    elapsed = time.perf_counter() - start
    assert 0.3 <= elapsed < 0.6
    assert result.depth >= 1


def test_a_cut_off_iteration_keeps_a_legal_best_move(searcher):
    for hard in (5, 20, 80):
        result = searcher.search(Position(MIDGAME), hard_ms=hard)
        assert result.best in Position(MIDGAME).legal_moves()
        assert result.pv and result.pv[0] == result.best


@pytest.mark.timing
def test_a_byoyomi_budget_set_mid_search_is_used_up_to_the_hard_deadline(searcher):
    # ponderhit: the search has run without a clock, then gets equal soft and hard
    # limits from that moment; the time already spent must not count against them
    set_at = []

    def ponderhit():
        set_at.append(time.perf_counter())
        searcher.set_deadlines(300, 300)

    threading.Timer(0.6, ponderhit).start()
    searcher.search(Position(MIDGAME))
    waited = time.perf_counter() - set_at[0]
    assert 0.25 < waited < 0.6, waited


def test_a_settled_search_spends_its_soft_budget_as_planned():
    assert spend_factor(0.0, 0.0, 3) == 1.0


def test_a_best_move_that_changed_in_the_last_iteration_gets_more_time():
    assert spend_factor(1.0, 0.0, 0) > spend_factor(0.5, 0.0, 1) > spend_factor(0.0, 0.0, 2)


def test_a_falling_score_gets_more_time_and_a_rising_one_less():
    assert spend_factor(0.0, 100.0, 3) > 1.0 > spend_factor(0.0, -100.0, 3)


def test_a_move_held_for_eight_iterations_gets_less_time():
    assert spend_factor(0.0, 0.0, 8) < spend_factor(0.0, 0.0, 7) == 1.0


def test_the_scale_is_bounded_however_the_search_goes():
    scales = [spend_factor(c, d, k) for c in (0.0, 1.0, 2.0) for d in (-1e9, 0.0, 1e9)
              for k in (0, 9)]
    assert 0.5 <= min(scales) and max(scales) <= 4.0
