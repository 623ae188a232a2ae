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

# A source checkout whose core was never compiled hides an installed copy when Python
# starts in the checkout (`python -m usi_engine`, Ray workers, which put the working
# folder first on the path). Then the installed copy is used, with a note on stderr;
# where there is none, say at once what to do instead of failing later with a puzzling
# "cannot import name 'position'".
def _compiled_copy_elsewhere() -> "list[str] | None":
    """The package folders of another copy of usi_engine whose core is compiled (on
    sys.path past this folder, or known to an import hook such as an editable
    install's), or None."""
    import os
    import sys
    from importlib.machinery import PathFinder
    here = os.path.realpath(__path__[0])
    others = [entry for entry in sys.path
              if os.path.realpath(entry or os.curdir) != os.path.dirname(here)]
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = (PathFinder.find_spec(__name__, others) if finder is PathFinder
                    else find(__name__, None))
        except Exception:            # a foreign hook that cannot answer: ask the next
            continue
        folders = list(spec.submodule_search_locations or []) if spec else []
        folders = [f for f in folders if os.path.realpath(f) != here]
        cores = [os.path.join(folder, "core") for folder in folders]
        if folders and PathFinder.find_spec("position", cores) is not None:
            return folders
    return None


if _util.find_spec(__name__ + ".core.position") is None:
    _elsewhere = _compiled_copy_elsewhere()
    if _elsewhere is None:
        raise ImportError(
            f"usi_engine: the compiled core is not built in {__path__[0]} (a source "
            "checkout?): build it there with `pip install -e .` (or `python setup.py "
            "build_ext --inplace`), or start Python outside that folder to use the "
            "installed copy")
    import sys as _sys
    print(f"usi_engine: {__path__[0]} is not compiled; using the installed copy in "
          f"{_elsewhere[0]}", file=_sys.stderr)
    __path__[:] = _elsewhere         # every submodule now comes from the installed copy
    for _name in [name for name in _sys.modules if name.startswith(__name__ + ".")]:
        del _sys.modules[_name]      # (the check above imported this folder's core)


if TYPE_CHECKING:  # what the lazy __getattr__ below returns, for type checkers
    from usi_engine.core.position import (STARTPOS_SFEN, Position, move_to_usi, square_name,
                                     usi_to_move)


def __getattr__(name: str) -> object:
    if name in __all__:
        from usi_engine.core import position
        return getattr(position, name)
    raise AttributeError(f"module 'usi_engine' has no attribute {name!r}")
