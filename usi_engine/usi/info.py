"""The ``info`` lines a search reports: formatting ours, parsing any engine's.

* :func:`format_info` writes the lines this engine prints (the USI front end,
  :mod:`usi_engine.usi.loop`, decides when to print);
* :func:`parse_info` reads the line of any USI engine into a typed :class:`Info`: the
  one parser of the package (the USI client :mod:`usi_engine.usi.client`, the CSA
  bridge and ``relabel`` use it).

Example::

    >>> format_info({"depth": 1, "score_cp": 5, "pv": []})
    'info depth 1 score cp 5'
    >>> parse_info("info depth 1 score cp 5 pv 7g7f").score_cp
    5
"""
from __future__ import annotations

from typing import Any

from usi_engine.notation.score import MATE_VALUE
from usi_engine.usi.record import Record

__all__ = ["Info", "parse_info", "format_info", "format_mate_info", "same_line",
           "below_resign_value"]


class Info(Record):
    """One ``info`` line of a USI engine, parsed (:func:`parse_info`).

    Absent fields are None (``pv`` empty).  Scores are from the side to move, as USI
    gives them: ``score_cp`` in centipawns, or ``score_mate`` in plies with a sign
    (``+5``: the side to move mates in 5, ``-4``: it is mated in 4).  ``mate_sign`` is
    +1 / -1 for every mate score and 0 otherwise, so that gpsusi's bare ``mate +`` /
    ``mate -`` (a mate of unknown length: ``score_mate`` None) is still told apart.

    Example::

        >>> info = parse_info("info depth 9 score mate - pv 5a4b")
        >>> (info.depth, info.score_mate, info.mate_sign, info.is_mate, info.pv)
        (9, None, -1, True, ['5a4b'])
    """

    __slots__ = ("depth", "seldepth", "time_ms", "nodes", "nps", "hashfull", "score_cp",
                 "score_mate", "mate_sign", "lowerbound", "upperbound", "multipv",
                 "currmove", "currmovenumber", "pv", "string")

    def __init__(self, *, depth: int | None = None, seldepth: int | None = None,
                 time_ms: int | None = None, nodes: int | None = None, nps: int | None = None,
                 hashfull: int | None = None, score_cp: int | None = None,
                 score_mate: int | None = None, mate_sign: int = 0, lowerbound: bool = False,
                 upperbound: bool = False, multipv: int | None = None,
                 currmove: str | None = None, currmovenumber: int | None = None,
                 pv: list[str] | None = None, string: str | None = None) -> None:
        self.depth = depth
        self.seldepth = seldepth
        self.time_ms = time_ms
        self.nodes = nodes
        self.nps = nps
        self.hashfull = hashfull
        self.score_cp = score_cp
        self.score_mate = score_mate
        self.mate_sign = mate_sign
        self.lowerbound = lowerbound
        self.upperbound = upperbound
        self.multipv = multipv
        self.currmove = currmove
        self.currmovenumber = currmovenumber
        self.pv: list[str] = [] if pv is None else pv
        self.string = string

    @property
    def is_mate(self) -> bool:
        """True for a mate score (with or without its length)."""
        return self.mate_sign != 0

    @property
    def has_score(self) -> bool:
        """True when a cp or mate score was read."""
        return self.score_cp is not None or self.mate_sign != 0

    @property
    def is_bound(self) -> bool:
        """True when the score is only a lower or an upper bound."""
        return self.lowerbound or self.upperbound

    @property
    def mate(self) -> tuple[int | None, bool] | None:
        """A mate score as ``(plies or None, side to move mates)``, None if no mate."""
        if not self.mate_sign:
            return None
        return (None if self.score_mate is None else abs(self.score_mate), self.mate_sign > 0)


#: Fields followed by one integer, and the attribute each fills.
_INT_FIELDS = {"depth": "depth", "seldepth": "seldepth", "time": "time_ms", "nodes": "nodes",
               "nps": "nps", "hashfull": "hashfull", "multipv": "multipv",
               "currmovenumber": "currmovenumber"}
#: Words known to take one argument that :class:`Info` does not keep.
_SKIPPED_WITH_VALUE = {"cpuload", "tbhits", "sbhits"}


def _int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def parse_info(line: str) -> Info:
    """The fields of a USI ``info`` line; ValueError if the line is not one.

    Lenient, for any engine: unknown words are skipped, a malformed number leaves its
    field None (never raises); ``pv`` and ``string`` take the rest of the line.

    Example::

        >>> info = parse_info("info depth 8 seldepth 10 time 5 nodes 900 nps 180000 "
        ...                   "multipv 1 score cp -35 lowerbound pv 7g7f 3c3d")
        >>> (info.depth, info.time_ms, info.score_cp, info.lowerbound, info.pv)
        (8, 5, -35, True, ['7g7f', '3c3d'])
        >>> parse_info("info score mate -3 upperbound").score_mate
        -3
    """
    words = line.split()
    if not words or words[0] != "info":
        raise ValueError(f"not an info line: {line[:80]!r}")
    info = Info()
    i, n = 1, len(words)
    while i < n:
        word = words[i]
        if word in _INT_FIELDS:
            if i + 1 < n:
                setattr(info, _INT_FIELDS[word], _int(words[i + 1]))
            i += 2
        elif word == "score":
            kind = words[i + 1] if i + 1 < n else ""
            value = words[i + 2] if i + 2 < n else ""
            if kind == "cp":
                info.score_cp = _int(value)
            elif kind == "mate":
                plies = _int(value)
                if value in ("+", "-"):
                    info.mate_sign = 1 if value == "+" else -1
                elif plies is not None:
                    info.score_mate = plies
                    info.mate_sign = -1 if value.startswith("-") else 1
            i += 3
        elif word == "lowerbound":
            info.lowerbound = True
            i += 1
        elif word == "upperbound":
            info.upperbound = True
            i += 1
        elif word == "currmove":
            info.currmove = words[i + 1] if i + 1 < n else None
            i += 2
        elif word == "pv":
            info.pv = words[i + 1:]
            break
        elif word == "string":
            parts = line.split(None, i + 1)     # the rest of the line as sent
            info.string = parts[i + 1].rstrip() if len(parts) > i + 1 else ""
            break
        elif word in _SKIPPED_WITH_VALUE:
            i += 2
        else:
            i += 1
    return info


def format_mate_info(info: dict[str, Any]) -> str:
    """An `info` line of the tsume solver's progress: time, nodes, nps, hashfull, and
    once a mate is proved its length and line (``score mate N pv ...``, the shortest
    proved so far, as KomoringHeights shows it while it searches on).

    >>> from usi_engine.core.position import usi_to_move
    >>> format_mate_info({"time_ms": 5, "nodes": 900, "nps": 180000, "hashfull": 1,
    ...                   "score_mate": 1, "pv": [usi_to_move("G*5b")]})
    'info time 5 nodes 900 nps 180000 hashfull 1 score mate 1 pv G*5b'
    """
    line = "info time {} nodes {} nps {} hashfull {}".format(
        int(info.get("time_ms", 0)), int(info.get("nodes", 0)), int(info.get("nps", 0)),
        int(info.get("hashfull", 0)))
    if info.get("pv"):
        from usi_engine.core.position import move_to_usi  # loaded by now: a solve ran
        line += " score mate {} pv {}".format(int(info["score_mate"]),
                                              " ".join(move_to_usi(m) for m in info["pv"]))
    return line


# A mate score compares with ResignValue as its centipawn equivalent (mate in n plies =
# MATE_VALUE - n, notation/score.py); above the largest ResignValue is never reached.

def below_resign_value(result: Any, resign_value: int) -> bool:
    """The search's score for us is below -ResignValue; a mate against us counts as
    -(MATE_VALUE - plies), so the default 99999 never resigns, not even when mated."""
    if result.score_mate is not None:
        score = MATE_VALUE - abs(result.score_mate)
        score = -score if result.score_mate < 0 else score
    elif result.score_cp is not None:
        score = result.score_cp
    else:
        return False
    return score < -resign_value


def format_info(info: dict[str, Any], multipv: bool = False) -> str:
    """One USI ``info`` line from a search progress dict (see search.Searcher).

    Field order follows the habit of the common engines; ``seldepth`` only with
    ``depth``; ``multipv`` only when more than one PV is asked for; the score is
    from the side to move's view; ``pv`` comes last because it takes the rest of
    the line. Moves in ``pv`` are ints and are converted here.

    Example::

        >>> format_info({"depth": 3, "seldepth": 5, "nodes": 900, "time_ms": 3, "nps": 300000,
        ...              "score_cp": -12, "bound": "upper", "pv": []})
        'info depth 3 seldepth 5 time 3 nodes 900 nps 300000 score cp -12 upperbound'
    """
    parts = ["info"]
    depth = info.get("depth")
    if depth is not None:
        parts += ["depth", str(int(depth))]
        if info.get("seldepth") is not None:
            parts += ["seldepth", str(int(info["seldepth"]))]
    for key, word in (("time_ms", "time"), ("nodes", "nodes"), ("nps", "nps"),
                      ("hashfull", "hashfull")):
        if info.get(key) is not None:
            parts += [word, str(int(info[key]))]
    if multipv and info.get("multipv") is not None:
        parts += ["multipv", str(int(info["multipv"]))]
    if info.get("score_mate") is not None:
        parts += ["score", "mate", str(int(info["score_mate"]))]
    elif info.get("score_cp") is not None:
        parts += ["score", "cp", str(int(info["score_cp"]))]
    bound = info.get("bound")
    if bound == "lower":
        parts.append("lowerbound")
    elif bound == "upper":
        parts.append("upperbound")
    pv = info.get("pv") or []
    if pv:
        from usi_engine.core.position import move_to_usi  # loaded by now: a search ran
        parts.append("pv")
        parts += [move_to_usi(m) for m in pv]
    return " ".join(parts)


def same_line(final: dict[str, Any], last: dict[str, Any] | None) -> bool:
    """Does the last printed info already report the final result (same depth, nodes,
    score and pv)?  Then printing it again before bestmove would only repeat it."""
    if last is None:
        return False

    def score(info: dict[str, Any]) -> tuple[str, Any]:
        mate = info.get("score_mate")
        return ("mate", mate) if mate is not None else ("cp", info.get("score_cp"))

    return (final.get("depth") == last.get("depth") and final.get("nodes") == last.get("nodes")
            and score(final) == score(last)
            and list(final.get("pv") or []) == list(last.get("pv") or []))
