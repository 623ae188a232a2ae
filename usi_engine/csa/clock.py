"""The CSA server's clocks, mirrored on the client, and the USI ``go`` times they give.

The server (shogi-server, which runs floodgate) keeps, for each side, the time left
``R`` in Time_Unit. A move that took ``t`` units (``,T<t>`` in the server's echo; the
elapsed time rounded down, or up with ``Time_Roundup:YES``, and at least
``Least_Time_Per_Move``) makes ``R := max(0, R + Increment - t)``. The mover loses
on time when ``t >= R + Byoyomi + Increment``: on its turn a side may spend its time
left plus *this move's* increment (Fischer) or plus the byoyomi.

USI engines read ``btime`` as the time they may spend on this move and ``binc`` as
what each *later* move adds (YaneuraOu and this engine both say so). So for our side
the bridge sends ``btime = R + Increment`` (minus what has already elapsed and the
network margin) and ``binc = Increment``: the increment is counted once. Sending
``R + Increment`` to an engine that then adds ``binc`` again, or adding the
increment to the mirrored clock both when a move ends and when the next begins, is
the double count other bridges make.

Example::

    >>> tc = parse_time_section(["Time_Unit:1sec", "Total_Time:300", "Increment:10"])
    >>> clock = Clock({"+": tc, "-": tc})
    >>> clock.go_times("+", elapsed_ms=0, margin_ms=1000)
    {'btime': 309000, 'wtime': 300000, 'binc': 10000, 'winc': 10000}
    >>> clock.charge("+", 5)
    5
    >>> clock.remaining_ms["+"]
    305000
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["TimeControl", "Clock", "parse_time_unit", "parse_time_section",
           "NO_LIMIT_BYOYOMI_MS"]

#: With no time limit at all, the engine is still given this byoyomi per move, so
#: that it answers.
NO_LIMIT_BYOYOMI_MS = 10_000

_UNIT_RE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(msec|sec|min)\s*$")
_UNIT_MS = {"msec": 1, "sec": 1000, "min": 60_000}


@dataclass(frozen=True)
class TimeControl:
    """One side's time control, in Time_Unit (``unit_ms`` ms each)."""
    unit_ms: int = 1000
    total: int = 0
    byoyomi: int = 0
    increment: int = 0
    least: int = 0
    roundup: bool = False
    delay: int = 0

    @property
    def kind(self) -> str:
        """``'fischer'``, ``'byoyomi'``, ``'sudden death'`` or ``'none'``."""
        if self.increment > 0:
            return "fischer"
        if self.byoyomi > 0:
            return "byoyomi"
        return "sudden death" if self.total > 0 else "none"

    def describe(self) -> str:
        """E.g. ``300+10F sec`` or ``600+10 sec`` (byoyomi)."""
        unit = {1: "msec", 1000: "sec", 60_000: "min"}.get(self.unit_ms, f"x{self.unit_ms}ms")
        if self.kind == "fischer":
            text = f"{self.total}+{self.increment}F"
        elif self.kind == "byoyomi":
            text = f"{self.total}+{self.byoyomi}"
        else:
            text = str(self.total)
        extras = (" roundup" if self.roundup else "") + (
            f" least {self.least}" if self.least else "")
        return f"{text} {unit}{extras}"


def parse_time_unit(text: str) -> int:
    """``1sec`` -> 1000, ``1min`` -> 60000, ``1msec`` -> 1 (ms per unit)."""
    m = _UNIT_RE.match(text)
    if not m:
        raise ValueError(f"Time_Unit {text!r} is not <number>msec|sec|min")
    unit_ms = float(m.group(1)) * _UNIT_MS[m.group(2)]
    if unit_ms <= 0 or unit_ms != int(unit_ms):
        raise ValueError(f"Time_Unit {text!r} is not a whole number of ms")
    return int(unit_ms)


_INT_KEYS = {"Total_Time": "total", "Byoyomi": "byoyomi", "Increment": "increment",
             "Least_Time_Per_Move": "least", "Delay": "delay"}


def parse_time_section(lines: list[str], base: TimeControl | None = None) -> TimeControl:
    """A ``BEGIN Time`` (or ``Time+``/``Time-``) section's ``key:value`` lines; keys
    not given keep their value in ``base``. ValueError names a bad field."""
    values: dict[str, Any] = {}
    for line in lines:
        if ":" not in line:
            if line.strip():
                raise ValueError(f"time line {line!r} is not key:value")
            continue
        key, value = (part.strip() for part in line.split(":", 1))
        if key == "Time_Unit":
            values["unit_ms"] = parse_time_unit(value)
        elif key == "Time_Roundup":
            if value.upper() not in ("YES", "NO"):
                raise ValueError(f"Time_Roundup must be YES or NO, not {value!r}")
            values["roundup"] = value.upper() == "YES"
        elif key in _INT_KEYS:
            try:
                number = int(value)
            except ValueError:
                raise ValueError(f"{key} must be an integer, not {value!r}") from None
            if number < 0:
                raise ValueError(f"{key} must not be negative")
            values[_INT_KEYS[key]] = number
    return replace(base or TimeControl(), **values)


class Clock:
    """Both sides' time left (ms), as the server counts it."""

    def __init__(self, time: dict[str, TimeControl]) -> None:
        self.time = dict(time)
        self.remaining_ms = {c: tc.total * tc.unit_ms for c, tc in self.time.items()}

    def units_for(self, color: str, elapsed_ms: float) -> int:
        """What the server charges for a move that took ``elapsed_ms``: rounded down
        (up with Time_Roundup), at least Least_Time_Per_Move."""
        tc = self.time[color]
        units = elapsed_ms / tc.unit_ms
        units = math.ceil(units - 1e-9) if tc.roundup else math.floor(units + 1e-9)
        return max(int(units), tc.least)

    def charge(self, color: str, units: int | None, elapsed_ms: float = 0.0) -> int:
        """Record a move of ``color`` that the server says took ``units`` (None: the
        line had no ``,T``; then ``elapsed_ms`` as measured here). Returns the units
        charged."""
        tc = self.time[color]
        if units is None:
            units = self.units_for(color, elapsed_ms)
        units = max(units, tc.least)
        left = self.remaining_ms[color] + (tc.increment - units) * tc.unit_ms
        self.remaining_ms[color] = max(0, left)
        return units

    def available_ms(self, color: str) -> int | None:
        """What ``color`` may spend on its current move (None: no limit)."""
        tc = self.time[color]
        if tc.kind == "none":
            return None
        return self.remaining_ms[color] + (tc.increment + tc.byoyomi) * tc.unit_ms

    def go_times(self, our_color: str, elapsed_ms: float, margin_ms: int,
                 increment_as_byoyomi: bool = False) -> dict[str, int]:
        """The time fields of ``go`` for our move (or ``go ponder`` on the move we
        expect to make next): ``elapsed_ms`` already gone since our clock started,
        ``margin_ms`` kept back for the network.

        Fischer: our ``btime`` is our time left plus this move's increment;
        ``binc``/``winc`` the increments of later moves. Byoyomi: the part of the
        budget beyond the time left is sent as ``byoyomi``; the margin comes off the
        byoyomi first. Sudden death: the time left. Never negative.

        ``increment_as_byoyomi`` is for engines that know no ``binc``/``winc`` (GPS's
        gpsusi stops on them): this move's increment is sent as ``byoyomi``, which
        such engines add to ``btime`` just as the server does.
        """
        ours = self.time[our_color]
        theirs_color = "-" if our_color == "+" else "+"
        out: dict[str, int] = {}
        available = self.available_ms(our_color)
        if available is None:
            out["byoyomi"] = NO_LIMIT_BYOYOMI_MS
            mine = 0
        else:
            budget = max(0, int(available - elapsed_ms - margin_ms))
            extra = ours.byoyomi if ours.kind == "byoyomi" else (
                ours.increment if increment_as_byoyomi else 0)
            if extra:
                byoyomi = max(0, min(extra * ours.unit_ms - margin_ms, budget))
                mine = budget - byoyomi
                out["byoyomi"] = byoyomi
            else:
                mine = budget
        their = self.remaining_ms[theirs_color]
        out["btime"], out["wtime"] = (mine, their) if our_color == "+" else (their, mine)
        incs = {c: self.time[c].increment * self.time[c].unit_ms for c in "+-"}
        if (incs["+"] or incs["-"]) and not increment_as_byoyomi:
            out["binc"], out["winc"] = incs["+"], incs["-"]
        return {k: out[k] for k in ("btime", "wtime", "byoyomi", "binc", "winc") if k in out}

    def go_args(self, our_color: str, elapsed_ms: float, margin_ms: int,
                increment_as_byoyomi: bool = False) -> str:
        """:meth:`go_times` as the words after ``go`` (``btime 309000 wtime ...``)."""
        times = self.go_times(our_color, elapsed_ms, margin_ms, increment_as_byoyomi)
        return " ".join(f"{k} {v}" for k, v in times.items())
