"""usi/clock.py: one move's clock, which the search attaches to and a ponderhit starts."""
from types import SimpleNamespace

import pytest

from usi_engine.usi import clock as clock_module
from usi_engine.usi.clock import MoveClock

PLAN = SimpleNamespace(soft_ms=800, hard_ms=1000)


@pytest.fixture
def now(monkeypatch):
    """The clock's time.perf_counter, set by the test (seconds)."""
    reading = SimpleNamespace(value=100.0)
    monkeypatch.setattr(clock_module.time, "perf_counter", lambda: reading.value)
    return reading


def test_a_running_clock_counts_its_limits_from_its_start(now):
    now.value = 100.25
    assert MoveClock(PLAN, started_at=100.0).deadlines() == (550, 750)


def test_a_ponder_clock_gives_no_deadlines_until_it_starts(now):
    assert MoveClock(PLAN, started_at=None).deadlines() == (None, None)


def test_a_search_attached_before_ponderhit_gets_the_deadlines_at_ponderhit(now):
    given = []
    clock = MoveClock(PLAN, started_at=None)
    clock.attach(lambda soft, hard: given.append((soft, hard)))
    now.value = 103.0
    assert clock.start(102.9)
    assert given == [(None, None), (700, 900)]


def test_a_search_attached_after_ponderhit_gets_the_started_clock(now):
    given = []
    clock = MoveClock(PLAN, started_at=None)
    clock.start(100.0)
    now.value = 100.1
    clock.attach(lambda soft, hard: given.append((soft, hard)))
    assert given == [(700, 900)]


def test_a_ponderhit_with_clocks_replaces_the_plan(now):
    clock = MoveClock(PLAN, started_at=None)
    clock.start(100.0, SimpleNamespace(soft_ms=5000, hard_ms=6000))
    assert clock.deadlines() == (5000, 6000)


def test_a_second_start_changes_nothing(now):
    clock = MoveClock(PLAN, started_at=None)
    assert clock.start(100.0)
    assert not clock.start(99.0, SimpleNamespace(soft_ms=1, hard_ms=1))
    assert (clock.started_at, clock.plan) == (100.0, PLAN)


def test_a_detached_search_is_not_reached(now):
    given = []
    clock = MoveClock(PLAN, started_at=None)
    clock.attach(lambda soft, hard: given.append((soft, hard)))
    clock.detach()
    clock.start(100.0)
    assert given == [(None, None)]


def test_a_limit_that_has_passed_leaves_one_millisecond(now):
    now.value = 102.0
    assert MoveClock(PLAN, started_at=100.0).deadlines() == (1, 1)
