"""usi_engine: a shogi engine speaking USI, with a Cython core.

>>> from usi_engine import Position
>>> Position().perft(2)
900

The compiled core is imported on first use so that `usi-engine` answers `usi`
before any heavy set-up.
"""
__all__ = ["Position", "move_to_usi", "usi_to_move", "square_name", "STARTPOS_SFEN"]
__version__ = "0.1.0"


def __getattr__(name):
    if name in __all__:
        from usi_engine import position
        return getattr(position, name)
    raise AttributeError(f"module 'usi_engine' has no attribute {name!r}")
