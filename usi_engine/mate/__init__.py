"""Tsume (mate) solving: `MateSolver`, a df-pn search with its own table (`table`),
proof search (`dfpn`) and the extraction of the shortest proven line (`line`).

>>> from usi_engine import Position
>>> from usi_engine.mate import MateSolver
>>> MateSolver().solve(Position("4k4/9/4G4/9/9/9/9/9/4K4 b G 1"), time_ms=1000).status
'mate'

The compiled modules load on first use of a name below.
"""
from typing import TYPE_CHECKING

__all__ = ["MateSolver", "MateResult"]

if TYPE_CHECKING:
    from usi_engine.mate.solver import MateResult, MateSolver


def __getattr__(name: str) -> object:
    if name in __all__:
        from usi_engine.mate import solver
        return getattr(solver, name)
    raise AttributeError(f"module 'usi_engine.mate' has no attribute {name!r}")
