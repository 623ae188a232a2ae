"""Search parameters as USI options, for tuning by games (``bench/strength/spsa_tune.py``).

The parameters live in the compiled search (``usi_engine.search.alphabeta.TUNABLES``). They are
offered as ``spin`` options only when the environment variable ``USI_ENGINE_TUNE`` is
set to a non-empty value other than ``0``, so that a GUI never lists them; they take
effect at ``isready``, like ``Threads``.

Example::

    $ USI_ENGINE_TUNE=1 usi-engine
    usi
    ...
    option name RfpMargin type spin default 150 min 50 max 400
    ...
    setoption name RfpMargin value 170
    isready
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from usi_engine.usi.options import Options, OptionSpec, OptionValue, spin

__all__ = ["ENV_VAR", "enabled", "option_specs", "apply"]

#: The environment variable that turns the tuning options on.
ENV_VAR = "USI_ENGINE_TUNE"


def enabled(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the tuning options are offered (``USI_ENGINE_TUNE`` set, not 0)."""
    return environ.get(ENV_VAR, "") not in ("", "0")


def option_specs() -> list[OptionSpec]:
    """One ``spin`` option per tuned search parameter, default as compiled."""
    from usi_engine.search.alphabeta import TUNABLES  # compiled: imported only when tuning
    return [spin(name, default, low, high, f"search parameter {name} (tuning)")
            for name, default, low, high in TUNABLES]


def apply(values: Options | Mapping[str, OptionValue], searcher: Any) -> None:
    """Give `searcher` (a `Searcher`) the tuned parameters' current option values."""
    from usi_engine.search.alphabeta import TUNABLES
    for name, _default, _low, _high in TUNABLES:
        searcher.set_parameter(name, int(values[name]))  # type: ignore[arg-type]
