"""Time management: from the tokens of a ``go`` line to soft and hard deadlines.

Everything here is a pure function of its arguments (no clock is read), so the
protocol loop decides *when* the clock started and the tests can drive every time
control exactly.

* :func:`usi_engine.usi.go.parse_go` turns the tokens after ``go`` into
  :class:`GoParams`, tolerantly (text; in its own module).
* :func:`plan` turns :class:`GoParams` plus the side to move, the game ply and the
  options into a :class:`TimePlan`:

  - ``soft_ms``: after this many ms the search stops *between* iterations;
  - ``hard_ms``: never pass this; the search polls it inside the tree.

Both are measured from the moment the engine's clock started: when the ``go`` line
was read, or, for ``go ponder``, when ``ponderhit`` was read (see :func:`plan`).

Example::

    >>> from usi_engine.usi.go import parse_go
    >>> params, warnings = parse_go("btime 0 wtime 0 byoyomi 10000".split())
    >>> plan(params, side_to_move_is_black=True, ply=1, options={})
    TimePlan(soft_ms=9800, hard_ms=9800, depth=None, nodes=None, infinite=False, ponder=False)

The formulas (all times in ms; ``T`` main time of the side to move, ``I`` its
increment, ``B`` byoyomi, ``D`` NetworkDelay, ``D2`` NetworkDelay2, ``M``
MinimumThinkingTime, ``S`` SlowMover, ``R`` = :func:`moves_to_go`, ``W`` the
worst-case number of moves still to play: R, or the moves left before
MaxMovesToDraw when that is set and there is no ``movestogo``, or under sudden
death without it those before ply max(320, ply + 40))::

    ceiling(A)  = A - D                  latest deadline for A ms on the clock,
                                         (A - 1 if D = 0); if that is <= 0:
                                         max(1, A/4), as the delay margin is
                                         unattainable, think briefly anyway
    period(X)   = max(ceiling(X), 0.6 X)     a fixed period's deadline: neither
                                         delay cuts a short one below 60%
    byo(B)      = min(max(B - D2, 0.6 B), period(B))
    gross       = T + 0.8 I (R - 1)
    reserve     = min(L R + max(0, L + m - 0.8 I) (W - R), cap)      if B == 0
                = 0                                                   if B > 0
                  L: the measured loss per move (ClockLoss), m = 2 ms (the
                  least think of a move beyond R), cap = gross - m W;
                  before any is measured L = D and cap = 0.5 gross
    pool        = gross - reserve
    share       = pool / R               main time for this move
    soft        = share * S/100 + byo(B)
                  raised to M if B > 0 or M W <= pool ("when there is time"),
                  then lowered to hard
    hard        = min(5 share, max(T/2, share)) + byo(B)
                  <= T + byo(B) and <= max(ceiling(T + B), T + 0.6 B)  (with byoyomi)
                  <= ceiling(T)                         (without)
    movetime X, go mate X:  soft = hard = period(X)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from usi_engine.usi.go import GoParams, parse_go  # noqa: F401 (parse_go: the docstring's)

__all__ = [
    "GoParams",
    "TimePlan",
    "parse_go",
    "plan",
    "moves_to_go",
    "deadline_ceiling",
    "period_ceiling",
    "byoyomi_budget",
    "TIME_OPTION_DEFAULTS",
    "EXPECTED_GAME_PLIES",
    "MIN_REMAINING_PLIES",
    "FISCHER_EXPECTED_GAME_PLIES",
    "FISCHER_MIN_REMAINING_PLIES",
    "INC_WEIGHT",
    "MAX_SHARE_RATIO",
    "MAX_MAIN_FRACTION",
    "MIN_THINK_PER_MOVE_MS",
    "UNBOUNDED_GAME_PLIES",
    "BYOYOMI_MIN_FRACTION",
    "FALLBACK_FRACTION",
    "UNMEASURED_RESERVE_FRACTION",
    "CLOCK_LOSS_WINDOW",
    "ClockLoss",
]

# --- tuning constants (documented in the module docstring) --------------------------

#: Typical length of a shogi game in plies (games last ~120-160).
EXPECTED_GAME_PLIES = 150
#: However long the game already is, plan as if at least this many plies remain:
#: a long game may go on, and sudden-death time must never be spent as if it ended.
MIN_REMAINING_PLIES = 40
#: With an increment (Fischer) each future move brings time of its own, so the main
#: time need not fund a long tail: it is spread as if the game lasted this long (the
#: project's match records end at a median of 112-131 plies, 90% by 124-184) ...
FISCHER_EXPECTED_GAME_PLIES = 130
#: ... with at least this many plies to come. Under sudden death the same horizon
#: flagged 3 of 50 games that went past ply 215 at 10 s (docs/time.md).
FISCHER_MIN_REMAINING_PLIES = 30
#: Weight of future increments in the time pool; below 1 because the game may end
#: before they are all received and the increment is only credited after a move.
INC_WEIGHT = 0.8
#: The hard deadline allows at most this multiple of the move's main-time share, so
#: an unstable search may think longer, but one move cannot eat the game's time.
MAX_SHARE_RATIO = 5.0
#: ... nor more than this fraction of the main time (unless the share itself is
#: larger, which happens only on the last move before a time control / the draw).
MAX_MAIN_FRACTION = 0.5
#: Without byoyomi, the loss per move measured by :class:`ClockLoss` is held back for
#: each move that may still come (see ``pool`` in the module docstring), but every
#: one of those moves keeps at least this much to think. Chosen by simulating
#: sudden-death games to the 256-ply limit (5 s to 300 s, 2 to 120 ms lost a move):
#: a cap of 90% of the clock flagged 10 s games losing 60 ms a move, this did not.
MIN_THINK_PER_MOVE_MS = 2
#: Without a draw limit (MaxMovesToDraw 0) the sudden-death reserve still holds the
#: loss and least think of every move to this ply: at 10 s, games past ply 248 flagged
#: (9 of 200, either build) when it held them for the expected moves alone (docs/time.md).
UNBOUNDED_GAME_PLIES = 320
#: Before any loss is measured, NetworkDelay stands in for it, but as a guess it may
#: hold back at most this fraction of the clock: where it would take more, the game
#: could not be finished at that delay anyway, so the guess is doubtful (5 s of
#: sudden death: 33 ms a move, not the 6 ms that NetworkDelay 120 would leave).
UNMEASURED_RESERVE_FRACTION = 0.5
#: How many of the latest measured losses per move :class:`ClockLoss` remembers; the
#: largest of them is held back for each future move.
CLOCK_LOSS_WINDOW = 8
#: Under byoyomi (and for movetime and go mate), neither NetworkDelay2 nor NetworkDelay
#: may cut the think below this fraction of the period: with a 1-3 s byoyomi a fixed
#: 1120 ms margin would leave almost nothing, and with a 150 ms byoyomi NetworkDelay
#: 120 left 30 ms (a local GUI's own latency is a few ms).
BYOYOMI_MIN_FRACTION = 0.6
#: When NetworkDelay swallows the whole budget (e.g. byoyomi 100, delay 120) the
#: margin cannot be honoured; think for this fraction of the budget instead.
FALLBACK_FRACTION = 0.25

#: The options :func:`plan` reads, with the values used when the mapping lacks them
#: (the same defaults as ``usi_engine.usi.options.DEFAULT_OPTIONS``).
TIME_OPTION_DEFAULTS: dict[str, int] = {
    "NetworkDelay": 120,
    "NetworkDelay2": 200,
    "MinimumThinkingTime": 100,
    "SlowMover": 100,
    "MaxMovesToDraw": 0,
    "DepthLimit": 0,
    "NodesLimit": 0,
    "RoundUpToFullSecond": 0,
}

# --- planning --------------------------------------------------------------------------


@dataclass(frozen=True)
class TimePlan:
    """Limits for one search. Times are ms from the start of the engine's clock.

    ``soft_ms``: stop between iterations once this has elapsed (``None``: no limit).
    ``hard_ms``: abort the search at this point (``None``: no limit);
    ``soft_ms <= hard_ms`` whenever both are set.
    ``depth``/``nodes``: search limits (``None``: none).
    ``infinite``: do not send ``bestmove`` before ``stop`` even if the search ends.
    ``ponder``: the deadlines apply from ``ponderhit``; until then search without
    time limit and send no ``bestmove`` before ``ponderhit`` or ``stop``.

    Example::

        >>> TimePlan(soft_ms=None, hard_ms=None, depth=5).depth
        5
    """

    soft_ms: int | None
    hard_ms: int | None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    ponder: bool = False


def moves_to_go(ply: int, movestogo: int | None = None, max_moves_to_draw: int = 0,
                increment: bool = False) -> int:
    """How many moves (of our own, this one included) the main time must last.

    ``ply`` is the game ply of the move about to be played, 1 for the first move
    (the SFEN move number). Without ``movestogo`` a game is expected to last
    :data:`EXPECTED_GAME_PLIES` plies, but never fewer than
    :data:`MIN_REMAINING_PLIES` are assumed to remain; with an ``increment``
    :data:`FISCHER_EXPECTED_GAME_PLIES` and :data:`FISCHER_MIN_REMAINING_PLIES`.
    With ``max_moves_to_draw`` (floodgate: 256) the game cannot go past that ply,
    which caps the count.

    Example::

        >>> moves_to_go(1), moves_to_go(200), moves_to_go(250, max_moves_to_draw=256)
        (75, 20, 4)
        >>> moves_to_go(1, increment=True), moves_to_go(200, increment=True)
        (65, 15)
    """
    if movestogo is not None and movestogo > 0:
        moves = movestogo
    else:
        expected, floor = ((FISCHER_EXPECTED_GAME_PLIES, FISCHER_MIN_REMAINING_PLIES)
                           if increment else (EXPECTED_GAME_PLIES, MIN_REMAINING_PLIES))
        remaining_plies = max(expected - ply, floor)
        moves = (remaining_plies + 1) // 2
    if max_moves_to_draw > 0:
        moves = min(moves, _moves_until(ply, max_moves_to_draw))
    return max(1, moves)


def _moves_until(ply: int, last_ply: int) -> int:
    """Our moves from ``ply`` up to ``last_ply`` inclusive (at least 1)."""
    # Our moves are at ply, ply+2, ... and the last playable ply is the limit.
    return (last_ply - ply) // 2 + 1 if ply <= last_ply else 1


def deadline_ceiling(available: int, delay: int) -> int:
    """The latest hard deadline for ``available`` ms on the clock.

    ``available - delay``, and always strictly less than ``available`` (even with
    delay 0: a deadline at the flag is already a loss once output latency counts).
    If the delay leaves nothing, the margin cannot be honoured and a small fraction
    (:data:`FALLBACK_FRACTION`) of the time is used so the engine still moves; the
    result is at least 1 ms.

    Example::

        >>> deadline_ceiling(1000, 120), deadline_ceiling(100, 120)
        (880, 25)
    """
    limit = available - max(delay, 1)
    if limit > 0:
        return limit
    return max(1, int(available * FALLBACK_FRACTION))


def period_ceiling(period: int, delay: int) -> int:
    """The latest deadline of a fixed period (a movetime, a byoyomi, a go mate limit):
    :func:`deadline_ceiling`, but never below :data:`BYOYOMI_MIN_FRACTION` of the
    period, and always strictly less than it.

    Example::

        >>> period_ceiling(1000, 120), period_ceiling(200, 120), period_ceiling(150, 120)
        (880, 120, 90)
    """
    if period <= 1:
        return 1
    floor = min(math.ceil(period * BYOYOMI_MIN_FRACTION), period - 1)
    return max(deadline_ceiling(period, delay), floor)


def byoyomi_budget(byoyomi: int, delay: int, delay2: int) -> int:
    """The part of one byoyomi period that is safe to think for.

    ``byoyomi - delay2`` (NetworkDelay2: transport delay plus whole-second rounding
    by CSA servers), but at least :data:`BYOYOMI_MIN_FRACTION` of the byoyomi so
    fast controls still think, and never past :func:`period_ceiling`.

    Example::

        >>> byoyomi_budget(10000, 120, 1120), byoyomi_budget(1000, 120, 1120)
        (8880, 600)
        >>> byoyomi_budget(200, 120, 1120)  # NetworkDelay would leave 80: 60% it is
        120
    """
    if byoyomi <= 0:
        return 0
    target = max(byoyomi - delay2, math.ceil(byoyomi * BYOYOMI_MIN_FRACTION))
    return min(target, period_ceiling(byoyomi, delay))


def _lookup(options: Any, name: str) -> Any:
    """``options[name]`` with a case-insensitive fallback over ``items()``."""
    try:
        return options[name]
    except (KeyError, TypeError, IndexError):
        pass
    items = getattr(options, "items", None)
    if callable(items):
        wanted = name.lower()
        for key, value in items():
            if isinstance(key, str) and key.lower() == wanted:
                return value
    return None


def _read_options(options: Mapping[str, Any] | Any | None) -> dict[str, int]:
    """The time options as ints, defaults filling what is missing or unreadable."""
    values = dict(TIME_OPTION_DEFAULTS)
    if options is None:
        return values
    for name, default in TIME_OPTION_DEFAULTS.items():
        raw = _lookup(options, name)
        try:
            value = int(raw) if raw is not None else default
        except (TypeError, ValueError):
            value = default
        values[name] = max(0, value)
    values["SlowMover"] = max(1, values["SlowMover"])
    return values


def _min_limit(a: int | None, b: int) -> int | None:
    """Combine a ``go`` limit with an option limit where 0 means none."""
    if b <= 0:
        return a
    return b if a is None else min(a, b)


@dataclass
class _Move:
    """One of our moves under a clock, as far as :class:`ClockLoss` follows it."""

    black: bool
    ply: int
    clock: int
    increment: int
    think_ms: float | None = None


class ClockLoss:
    """How much main time each of our moves really costs beyond the thinking itself.

    The GUI (or server) takes off our clock the time from sending ``go`` to reading
    ``bestmove``, rounded its own way; the engine knows only the time from reading
    ``go`` to writing ``bestmove``. The difference (transport, the GUI's latency,
    rounding to whole seconds) shows in the next ``go``'s clock::

        loss = clock before + increment - clock after - our think time

    Sudden-death and Fischer plans hold the largest recent loss back for every
    move still to play, instead of the NetworkDelay guess: on a local GUI a few ms,
    on a server that rounds to seconds up to a second. Only consecutive moves of
    one game count (same side, two plies on, no byoyomi); ``forget`` at
    ``usinewgame``. The caller supplies the times, so this reads no clock.

    Example::

        >>> loss = ClockLoss()
        >>> params, _ = parse_go("btime 60000 wtime 60000".split())
        >>> loss.before_go(params, black=True, ply=1) is None
        True
        >>> loss.after_bestmove(think_ms=500.0)
        >>> params, _ = parse_go("btime 59480 wtime 58000".split())
        >>> loss.before_go(params, black=True, ply=3)
        20
    """

    def __init__(self) -> None:
        self._last: _Move | None = None
        self._losses: list[int] = []

    def forget(self) -> None:
        """A new game: nothing measured so far applies (another GUI, another server)."""
        self._last = None
        self._losses.clear()

    def before_go(self, params: GoParams, black: bool, ply: int) -> int | None:
        """Note a ``go`` for the side to move; returns the loss per move to plan with
        (the largest of the last :data:`CLOCK_LOSS_WINDOW` measured), or ``None``."""
        clock = params.clock(black)
        timed = clock is not None and not params.byoyomi and params.movetime is None
        last = self._last
        if (timed and last is not None and last.think_ms is not None
                and last.black == black and last.ply + 2 == ply):
            loss = last.clock + last.increment - clock - last.think_ms  # type: ignore[operator]
            self._losses = (self._losses + [max(0, math.ceil(loss))])[-CLOCK_LOSS_WINDOW:]
        self._last = (_Move(black, ply, clock, params.increment(black) or 0)  # type: ignore[arg-type]
                      if timed else None)
        return max(self._losses) if self._losses else None

    def after_bestmove(self, think_ms: float | None) -> None:
        """The ``bestmove`` of the last ``go`` was written ``think_ms`` after our clock
        started (``None``: it did not count, e.g. a ponder search that was stopped)."""
        if self._last is not None:
            self._last.think_ms = think_ms


def plan(
    params: GoParams,
    side_to_move_is_black: bool,
    ply: int,
    options: Mapping[str, Any] | Any | None = None,
    measured_loss: int | None = None,
) -> TimePlan:
    """Turn ``go`` parameters into deadlines for the side to move.

    ``measured_loss``: the main time each move has really lost beyond the think
    (:class:`ClockLoss`); it replaces NetworkDelay in the sudden-death reserve.

    ``ply``: game ply of the move to play (1 = first move). ``options``: any
    mapping with (case-insensitive) keys NetworkDelay, NetworkDelay2,
    MinimumThinkingTime, SlowMover, MaxMovesToDraw and optionally DepthLimit,
    NodesLimit -- an :class:`usi_engine.usi.options.Options` or a plain dict; missing
    keys take :data:`TIME_OPTION_DEFAULTS`.

    Precedence: ``infinite`` (no time limit), then ``mate`` (its ms, or none),
    then ``movetime``, then the clocks (byoyomi / Fischer / sudden death, with
    ``movestogo`` if given); with none of these there is no time limit (e.g.
    ``go depth 10``). ``depth``/``nodes`` and the DepthLimit/NodesLimit options
    apply in every case (the smaller wins).

    Ponder: for ``go ponder ...`` the plan is computed from the clocks on the line
    as if the clock started at ``ponderhit`` -- ``ponderhit`` carries no clock, so
    the caller keeps this plan (no second call) and measures ``soft_ms``/``hard_ms``
    from the moment it reads ``ponderhit``; before that the search is unlimited.

    Guarantees: ``hard_ms >= 1``; ``soft_ms <= hard_ms``; ``hard_ms`` never passes
    the time available (main time + byoyomi, or the movetime) minus NetworkDelay
    when that is positive, and is always below the available time when it is at
    least 2 ms.

    Example::

        >>> params, _ = parse_go("btime 1000 wtime 60000 byoyomi 0".split())
        >>> p = plan(params, side_to_move_is_black=False, ply=2, options={})
        >>> p.soft_ms, p.hard_ms  # gote's 60 s of sudden death, not sente's 1 s
        (549, 2745)
    """
    opts = _read_options(options)
    delay = opts["NetworkDelay"]
    depth = _min_limit(params.depth, opts["DepthLimit"])
    nodes = _min_limit(params.nodes, opts["NodesLimit"])

    def make(soft: float | None, hard: float | None, infinite: bool = False) -> TimePlan:
        return TimePlan(
            soft_ms=None if soft is None else int(soft),
            hard_ms=None if hard is None else int(hard),
            depth=depth,
            nodes=nodes,
            infinite=infinite,
            ponder=params.ponder,
        )

    if params.infinite:
        return make(None, None, infinite=True)
    if params.mate is not None:
        if params.mate == "infinite":
            return make(None, None)
        budget = period_ceiling(int(params.mate), delay)
        return make(budget, budget)
    if params.movetime is not None:
        # A fixed time per move: use all of it, there is nothing to save for.
        budget = period_ceiling(params.movetime, delay)
        return make(budget, budget)
    if not params.has_clock():
        return make(None, None)

    black = side_to_move_is_black
    # A missing clock for our side counts as empty: moving fast beats flagging.
    main = params.clock(black) or 0
    inc = params.increment(black) or 0
    byoyomi = params.byoyomi or 0

    moves = moves_to_go(ply, params.movestogo, opts["MaxMovesToDraw"], increment=inc > 0)
    # The reserve must cover the moves that may still come, not just the expected
    # ones: when the draw limit bounds the game, plan the reserve for all of them;
    # under sudden death without one, for the moves to UNBOUNDED_GAME_PLIES (or
    # MIN_REMAINING_PLIES more), as no increment pays for a long game's tail.
    worst = moves
    if params.movestogo is None and opts["MaxMovesToDraw"] > 0:
        worst = max(moves, _moves_until(ply, opts["MaxMovesToDraw"]))
    elif params.movestogo is None and inc == 0 and byoyomi == 0:
        last_ply = max(UNBOUNDED_GAME_PLIES, ply + MIN_REMAINING_PLIES)
        worst = max(moves, _moves_until(ply, last_ply))
    gross = main + INC_WEIGHT * inc * (moves - 1)
    # Without byoyomi every future move also loses main time beyond the think
    # (transport, rounding): the measured loss, else NetworkDelay, is held back per
    # move: this reserve is what keeps sudden death from flagging. Moves beyond the
    # expected R also bring their increment, so they need only the part of the loss
    # and of their least think (MIN_THINK_PER_MOVE_MS) that it does not cover, so that
    # a game can always be played out to the draw limit at the least think. The reserve is
    # capped so that a short clock still thinks (see MIN_THINK_PER_MOVE_MS and
    # UNMEASURED_RESERVE_FRACTION). With byoyomi the byoyomi absorbs the transport time.
    reserve = 0.0
    if byoyomi == 0:
        per_move = delay if measured_loss is None else measured_loss
        cap = (UNMEASURED_RESERVE_FRACTION * gross if measured_loss is None
               else max(0.0, gross - MIN_THINK_PER_MOVE_MS * worst))
        uncovered = max(0.0, per_move + MIN_THINK_PER_MOVE_MS - INC_WEIGHT * inc)
        reserve = min(per_move * moves + uncovered * (worst - moves), cap)
    pool = max(0.0, gross - reserve)
    share = pool / moves
    byo = byoyomi_budget(byoyomi, delay, opts["NetworkDelay2"])

    hard = min(MAX_SHARE_RATIO * share, max(MAX_MAIN_FRACTION * main, share)) + byo
    if byoyomi > 0:
        # Main time runs out first, then the byoyomi: keep the NetworkDelay2 margin
        # on the byoyomi part even when the main time is almost gone.
        # (and never below main + 60% of the byoyomi, as byo(B) itself)
        ceiling = min(main + byo, max(deadline_ceiling(main + byoyomi, delay),
                                      main + period_ceiling(byoyomi, delay)),
                      max(1, main + byoyomi - 1))
    else:
        # The increment is credited after the move, so only the main time counts.
        ceiling = deadline_ceiling(main, delay)
    hard = max(1, min(int(hard), ceiling))

    # SlowMover scales only the main-time share: unused byoyomi is lost anyway.
    soft = share * opts["SlowMover"] / 100 + byo
    minimum = opts["MinimumThinkingTime"]
    # The floor applies only "when there is time": always under byoyomi (it comes
    # back every move), otherwise only if every remaining move could have it --
    # else, in sudden death, the floor itself would run the clock down.
    if byoyomi > 0 or minimum * worst <= pool:
        soft = max(soft, minimum)
    soft = min(int(soft), hard)
    if opts["RoundUpToFullSecond"]:
        hard = round_up_to_full_second(hard, delay, ceiling)
        soft = min(round_up_to_full_second(soft, delay, ceiling), hard)
    return make(soft, hard)


def round_up_to_full_second(ms: int, delay: int, ceiling: int) -> int:
    """RoundUpToFullSecond: for a server that counts whole seconds dropping the fraction,
    ``ms`` stretched to just before the next whole second (its end less NetworkDelay:
    the same charge), never past ``ceiling``, never shortened (YaneuraOu's round_up).

    Example::

        >>> round_up_to_full_second(2100, 120, 60000), round_up_to_full_second(2950, 120, 60000)
        (2880, 3880)
        >>> round_up_to_full_second(2100, 120, 2500)
        2500
    """
    rounded = -(-ms // 1000) * 1000 - delay
    if rounded < ms:
        rounded += 1000
    return max(ms, min(rounded, ceiling))
