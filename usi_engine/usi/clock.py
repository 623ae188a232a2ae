"""The clock of one ``go``, handed to the search.

A plan (:class:`usi_engine.usi.timeman.TimePlan`: a soft and a hard limit in ms) is
counted from when the clock started: the ``go`` line, or for ``go ponder`` the
``ponderhit`` (until then the clock does not run). The search attaches to the clock
when it starts and is given its deadlines then; a ``ponderhit`` starts the clock (with
a new plan when it brings clocks of its own) and reaches the attached search at once,
whichever of the two comes first. The protocol thread and the search thread share it.

    >>> from types import SimpleNamespace
    >>> plan = SimpleNamespace(soft_ms=1000, hard_ms=1000)
    >>> clock = MoveClock(plan, started_at=None)       # go ponder: no clock yet
    >>> clock.deadlines()
    (None, None)
    >>> clock.start(time.perf_counter())
    True
    >>> soft, hard = clock.deadlines(); 990 <= soft == hard <= 1000
    True
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

#: What the attached search is given: the soft and hard limits in ms from now (None: none).
SetDeadlines = Callable[[int | None, int | None], None]


def remaining_ms(limit_ms: int | None, since: float, now: float) -> int | None:
    """``limit_ms`` counted from ``since`` (time.perf_counter() s), as ms from ``now``;
    at least 1 ms (None: no limit)."""
    if limit_ms is None:
        return None
    return max(1, int(limit_ms - (now - since) * 1000.0))


class MoveClock:
    """One move's clock: its plan, when it started (None: not yet), the attached search."""

    def __init__(self, plan: Any, started_at: float | None) -> None:
        self._lock = threading.Lock()
        self._plan = plan
        self._started_at = started_at
        self._attached: SetDeadlines | None = None

    @property
    def plan(self) -> Any:
        """The plan the clock counts (replaced by a ponderhit that brings clocks)."""
        return self._plan

    @property
    def started_at(self) -> float | None:
        """When the clock started (time.perf_counter() s), or None while pondering."""
        return self._started_at

    def deadlines(self) -> tuple[int | None, int | None]:
        """The soft and hard limits as ms from now, both read off one clock reading, so
        that equal limits (byoyomi) stay equal; (None, None) before the clock starts."""
        with self._lock:
            return self._deadlines()

    def attach(self, set_deadlines: SetDeadlines) -> None:
        """The search starts: give it the deadlines now and at the clock's start."""
        with self._lock:
            self._attached = set_deadlines
            set_deadlines(*self._deadlines())

    def detach(self) -> None:
        """The search has ended: a later start reaches nothing."""
        with self._lock:
            self._attached = None

    def start(self, at: float, plan: Any = None) -> bool:
        """Start the clock at ``at`` (ponderhit), under ``plan`` if one is given; False
        (and nothing changes) when it has started already."""
        with self._lock:
            if self._started_at is not None:
                return False
            if plan is not None:
                self._plan = plan
            self._started_at = at
            if self._attached is not None:
                self._attached(*self._deadlines())
            return True

    def _deadlines(self) -> tuple[int | None, int | None]:
        if self._started_at is None:
            return None, None
        now = time.perf_counter()
        return (remaining_ms(self._plan.soft_ms, self._started_at, now),
                remaining_ms(self._plan.hard_ms, self._started_at, now))
