"""The score convention of USI engines and their files: centipawns, and a mate in n
plies as +-(MATE_VALUE - n), as YaneuraOu writes books and PackedSfenValue records.
(The search's own VALUE_MATE in search/alphabeta.pxd is the same number; a test holds
them equal.)

    >>> mate_in(3), mated_in(2)
    (31997, -31998)
"""
from __future__ import annotations

__all__ = ["MATE_VALUE", "mate_in", "mated_in"]

#: The value of a mate at the root; a mate in n plies is MATE_VALUE - n.
MATE_VALUE = 32000


def mate_in(plies: int) -> int:
    """The score of giving mate in ``plies`` plies."""
    return MATE_VALUE - plies


def mated_in(plies: int) -> int:
    """The score of being mated in ``plies`` plies."""
    return -(MATE_VALUE - plies)
