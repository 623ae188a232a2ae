"""Whether a game has ended at a position, by the rules the engine plays: one referee
for the USI loop's root decisions and gensfen's self-play games. (The match runner in
bench/ keeps cshogi as its referee on purpose: an independent judge of our moves.)

Example::

    >>> from usi_engine.core.position import Position
    >>> game_over(Position("4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1"))
    Outcome(result=-1, reason='no legal move')
    >>> game_over(Position()) is None
    True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Outcome", "game_over", "REPETITION_RESULTS"]

#: game_repetition()'s words as a result for the side to move.
REPETITION_RESULTS = {"draw": 0, "win": 1, "lose": -1}


@dataclass(frozen=True)
class Outcome:
    """How a game ended, for the side to move: ``result`` 1 (a win), -1 (a loss) or 0
    (a draw), and why: ``no legal move`` (mated, or no move at all), ``declaration``
    (the side to move can declare under the entering-king rule), ``repetition`` (the
    fourth occurrence), ``perpetual check`` or ``move limit``."""

    result: int
    reason: str


def game_over(position: Any, entering_king_rule: str = "CSARule27",
              max_ply: int = 0) -> Outcome | None:
    """The outcome if the game is over at ``position``, else None. ``max_ply``: a draw
    once the position's ply passes it (0: no limit). Under ``TryRule`` the try is a
    move to play (``position.try_move()``), not an ending here."""
    if not position.legal_moves():
        return Outcome(-1, "no legal move")
    if (entering_king_rule not in ("NoEnteringKing", "TryRule")
            and position.declaration(entering_king_rule) == "win"):
        return Outcome(1, "declaration")
    repetition = position.game_repetition()
    if repetition != "none":
        return Outcome(REPETITION_RESULTS[repetition],
                       "repetition" if repetition == "draw" else "perpetual check")
    if max_ply and position.ply > max_ply:
        return Outcome(0, "move limit")
    return None
