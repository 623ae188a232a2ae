"""The ``go`` command's arguments: from the tokens after ``go`` to :class:`GoParams`.

Tolerant, as a GUI's line may be odd: an unknown token, a missing or malformed number
is skipped with a warning, never an exception.  What the parameters mean for the
clock is :mod:`usi_engine.usi.timeman`'s business.

    >>> params, warnings = parse_go("btime 0 wtime 0 byoyomi 10000".split())
    >>> params.byoyomi, warnings
    (10000, [])
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, Union

# Fields holding a time in ms: a negative value counts as 0 (a GUI may send a
# negative clock once it has run out, and the conformance sheet says so).
_TIME_FIELDS = ("btime", "wtime", "binc", "winc", "byoyomi", "movetime")
# Fields holding a count: must be positive to mean anything.
_COUNT_FIELDS = ("movestogo", "depth", "nodes")
_FLAGS = ("infinite", "ponder")
_KEYWORDS = frozenset(_TIME_FIELDS + _COUNT_FIELDS + _FLAGS + ("mate", "searchmoves"))
_INT_RE = re.compile(r"[+-]?[0-9]+")
#: The largest value the core takes for each field (C ints and int64 nanosecond
#: deadlines); a larger one is clamped to it, with a warning, and still searched.
#: 2^31-1 ms is 24 days, more than any clock.
MAX_FIELD_VALUE = 2**31 - 1

MateLimit = Union[int, Literal["infinite"], None]


@dataclass
class GoParams:
    """What a ``go`` line can carry. ``None`` means "not given".

    ``btime``/``binc`` are sente's (black's), ``wtime``/``winc`` gote's (white's);
    ``mate`` is ``None`` (not a mate search), a time in ms, or ``"infinite"``.

    Example::

        >>> GoParams(btime=1000, wtime=2000).clock(black=False)
        2000
    """

    btime: int | None = None
    wtime: int | None = None
    binc: int | None = None
    winc: int | None = None
    byoyomi: int | None = None
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    infinite: bool = False
    ponder: bool = False
    mate: MateLimit = None
    searchmoves: list[str] = field(default_factory=list)

    def clock(self, black: bool) -> int | None:
        """Main time left for the given side (``btime`` for black, ``wtime`` for white)."""
        return self.btime if black else self.wtime

    def increment(self, black: bool) -> int | None:
        """Fischer increment for the given side (``binc`` for black, ``winc`` for white)."""
        return self.binc if black else self.winc

    def has_clock(self) -> bool:
        """True when any clock field (times, increments, byoyomi) was given."""
        return any(
            v is not None for v in (self.btime, self.wtime, self.binc, self.winc, self.byoyomi)
        )


def parse_go(tokens: list[str]) -> tuple[GoParams, list[str]]:
    """Parse the tokens after ``go``; never raises.

    Returns the parameters and a list of warnings (for ``info string``). Unknown
    tokens are skipped; a keyword missing its number or given a non-integer is
    reported and left unset; negative times count as 0; a non-positive
    ``movestogo``/``depth``/``nodes`` is reported and ignored. ``searchmoves`` takes
    the following tokens up to the next keyword. ``mate`` takes ``infinite`` or a
    number of ms; alone (or followed by a keyword) it means infinite. Keywords are
    matched case-insensitively; a repeated keyword keeps its last value.

    Example::

        >>> params, warnings = parse_go("searchmoves 7g7f 2g2f btime -5 foo".split())
        >>> params.searchmoves, params.btime, warnings
        (['7g7f', '2g2f'], 0, ["go: unknown token 'foo' ignored"])
    """
    params = GoParams()
    warnings: list[str] = []
    n = len(tokens)
    i = 0
    while i < n:
        token = tokens[i]
        key = token.lower()
        i += 1
        if key in _FLAGS:
            setattr(params, key, True)
        elif key in _TIME_FIELDS or key in _COUNT_FIELDS:
            # Do not swallow a following keyword as the missing number: in
            # "btime wtime 100" the wtime must still be read.
            if i >= n or tokens[i].lower() in _KEYWORDS:
                warnings.append(f"go: {key} needs a value")
                continue
            text = tokens[i]
            i += 1
            if not _INT_RE.fullmatch(text):
                warnings.append(f"go: {key} needs an integer, got {_short(text)!r}")
                continue
            value = _saturating_int(text)
            if key in _TIME_FIELDS:
                value = max(0, value)
            elif value <= 0:
                warnings.append(f"go: {key} must be positive, got {_short(text)}; ignored")
                continue
            if value > MAX_FIELD_VALUE:
                warnings.append(f"go: {key} {_short(text)} is more than the engine takes; "
                                f"using {MAX_FIELD_VALUE}")
                value = MAX_FIELD_VALUE
            setattr(params, key, value)
        elif key == "mate":
            following = tokens[i] if i < n else None
            if following is None or following.lower() in _KEYWORDS - {"infinite"}:
                params.mate = "infinite"
            elif following.lower() == "infinite":
                params.mate = "infinite"
                i += 1
            elif _INT_RE.fullmatch(following):
                params.mate = max(0, _saturating_int(following))
                if params.mate > MAX_FIELD_VALUE:
                    warnings.append(f"go: mate {_short(following)} is more than the engine "
                                    f"takes; using {MAX_FIELD_VALUE}")
                    params.mate = MAX_FIELD_VALUE
                i += 1
            else:
                warnings.append(
                    f"go: mate needs ms or 'infinite', got {_short(following)!r}; "
                    "searching without limit"
                )
                params.mate = "infinite"
                i += 1
        elif key == "searchmoves":
            moves: list[str] = []
            while i < n and tokens[i].lower() not in _KEYWORDS:
                moves.append(tokens[i])
                i += 1
            if not moves:
                warnings.append("go: searchmoves has no moves; ignored")
            params.searchmoves = moves
        else:
            warnings.append(f"go: unknown token {_short(token)!r} ignored")
    return params, warnings


def _saturating_int(text: str) -> int:
    """int(text) for an _INT_RE match, with hundreds of digits read as a number just
    out of range (int() refuses strings over 4300 digits)."""
    if len(text.lstrip("+-")) > 30:
        return -(10**31) if text.startswith("-") else 10**31
    return int(text)


def _short(text: str, limit: int = 40) -> str:
    """text, cut to `limit` characters with its length noted: input is echoed in
    warnings, and a 100 kB token must not come back whole."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
