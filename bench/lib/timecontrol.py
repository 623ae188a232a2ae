"""A match's time control: main time, byoyomi, increment, or a node limit per move, and
its text form for --tc (``200``, ``10000+100``, ``10000/200``, ``inc=100``, ``nodes=N``)."""
from __future__ import annotations

import argparse
import re
from dataclasses import dataclass


@dataclass
class TimeControl:
    main_ms: int | None = None       # None: no main time (pure byoyomi)
    byoyomi_ms: int | None = None
    inc_ms: int | None = None
    nodes: int | None = None         # `go nodes N`: no clock at all (see NODE_LIMITED_MS)

    def __str__(self) -> str:
        if self.nodes is not None:
            return f"{self.nodes} nodes a move"
        if self.byoyomi_ms is not None:
            return (f"{self.main_ms} ms + {self.byoyomi_ms} ms byoyomi" if self.main_ms
                    else f"{self.byoyomi_ms} ms byoyomi")
        return f"{self.main_ms} ms + {self.inc_ms} ms increment"


def parse_tc(text: str) -> TimeControl:
    """``200`` or ``byoyomi=200``: 200 ms a move (byoyomi); ``10000+100``: 10 s main
    time plus a 100 ms increment (Fischer); ``10000/200``: 10 s main time, then 200 ms
    byoyomi; ``inc=100``: no main time, 100 ms increment."""
    t = text.strip().lower().replace(" ", "")
    if m := re.fullmatch(r"(?:byoyomi=)?(\d+)", t):
        return TimeControl(None, int(m[1]), None)
    if m := re.fullmatch(r"(\d+)\+(\d+)", t):
        return TimeControl(int(m[1]), None, int(m[2]))
    if m := re.fullmatch(r"(\d+)/(\d+)", t):
        return TimeControl(int(m[1]), int(m[2]), None)
    if m := re.fullmatch(r"inc=(\d+)", t):
        return TimeControl(0, None, int(m[1]))
    if m := re.fullmatch(r"nodes=(\d+)", t):
        return TimeControl(nodes=int(m[1]))
    raise argparse.ArgumentTypeError(
        f"bad time control {text!r}: use MS (byoyomi), MAIN+INC (increment) or MAIN/BYOYOMI, in ms, "
        "or nodes=N")
