"""usi_engine: a shogi engine speaking USI, with a Cython core.

>>> from usi_engine import Position
>>> Position().perft(2)
900

The compiled core is imported on first use so that `usi-engine` answers `usi`
before any heavy set-up.
"""
import importlib.util as _util
from typing import TYPE_CHECKING

__all__ = ["Position", "move_to_usi", "usi_to_move", "square_name", "STARTPOS_SFEN"]
__version__ = "0.1.0"

# A source checkout whose core was never compiled (e.g. Python started in the checkout
# after `pip install .`) would hide an installed copy and fail later with a puzzling
# "cannot import name 'position'": say at once what to do instead.
if _util.find_spec(__name__ + ".core.position") is None:
    raise ImportError(
        f"usi_engine: the compiled core is not built in {__path__[0]} (a source "
        "checkout?): build it there with `pip install -e .` (or `python setup.py "
        "build_ext --inplace`), or start Python outside that folder to use the "
        "installed copy")


if TYPE_CHECKING:  # what the lazy __getattr__ below returns, for type checkers
    from usi_engine.core.position import (STARTPOS_SFEN, Position, move_to_usi, square_name,
                                     usi_to_move)


def __getattr__(name: str) -> object:
    if name in __all__:
        from usi_engine.core import position
        return getattr(position, name)
    raise AttributeError(f"module 'usi_engine' has no attribute {name!r}")
