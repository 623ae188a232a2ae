"""The ``info`` lines a search reports, and the judgements made from its final score.

Formatting only: the USI front end (:mod:`usi_engine.usi.loop`) decides when to print.

Example::

    >>> format_info({"depth": 1, "score_cp": 5, "pv": []})
    'info depth 1 score cp 5'
"""
from __future__ import annotations

from typing import Any


def format_mate_info(info: dict[str, Any]) -> str:
    """An `info` line of the tsume solver's progress: time, nodes, nps, hashfull."""
    return "info time {} nodes {} nps {} hashfull {}".format(
        int(info.get("time_ms", 0)), int(info.get("nodes", 0)), int(info.get("nps", 0)),
        int(info.get("hashfull", 0)))


#: Centipawn equivalent of a mate score (mate in n plies = MATE_CP - n), as engines
#: compare it with ResignValue; above the largest ResignValue is never reached.
MATE_CP = 32000


def below_resign_value(result: Any, resign_value: int) -> bool:
    """The search's score for us is below -ResignValue; a mate against us counts as
    -(MATE_CP - plies), so the default 99999 never resigns, not even when mated."""
    if result.score_mate is not None:
        score = MATE_CP - abs(result.score_mate)
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
