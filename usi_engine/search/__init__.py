"""The alpha-beta search: `Searcher` (iterative deepening, MultiPV, threads) and its
C core (`alphabeta`: principal variation search, quiescence, move ordering, pruning).

>>> from usi_engine import Position
>>> from usi_engine.search import Searcher
>>> Searcher().search(Position(), depth=3).best != 0
True

The compiled modules load on first use of a name below.
"""
from typing import TYPE_CHECKING

__all__ = ["Searcher", "SearchResult"]

if TYPE_CHECKING:
    from usi_engine.search.searcher import SearchResult, Searcher


def __getattr__(name: str) -> object:
    if name in __all__:
        from usi_engine.search import searcher
        return getattr(searcher, name)
    raise AttributeError(f"module 'usi_engine.search' has no attribute {name!r}")
