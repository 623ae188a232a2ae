"""What a mate's length means, in words, for the command line and ``go mate``.

A solve with a time limit may stop before it has proven that no shorter mate exists,
or before it has settled the longest defences; its line is a real mate (replayed), but
its length may then change with more time, either way (Zuko 98: 33 plies in 3 s, 35
in 30 s).  `MateResult.shortest` says whether the length is proven.

    >>> class Result:                                            # a MateResult's fields
    ...     status, pv, shortest = "mate", [1, 2, 3], True
    >>> length_note(Result())
    'mate in 3 plies: proven shortest, against the longest defence'
"""
from __future__ import annotations

from typing import Any

__all__ = ["length_note"]


def length_note(result: Any) -> str:
    """One line on the length of a mate `result` (a `MateResult` with status 'mate'):
    proven shortest, or not (a limit or the post-search level came first)."""
    plies = len(result.pv)
    if result.shortest:
        return f"mate in {plies} plies: proven shortest, against the longest defence"
    return (f"mate in {plies} plies: not proven shortest (a limit, or a PostSearchLevel "
            f"other than MinLength, ended the solve before shorter mates were ruled out "
            f"and the longest defences settled; more time may give another length)")
