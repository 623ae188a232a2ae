"""Progress lines of the long training commands (``gensfen``, ``relabel``) on a terminal."""
from __future__ import annotations

import sys
import time


def format_seconds(seconds: float) -> str:
    """``1h05m`` from an hour up, else ``4m07s``.

    >>> format_seconds(3900), format_seconds(247)
    ('1h05m', '4m07s')
    """
    seconds = int(seconds)
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m" if seconds >= 3600 else \
        f"{seconds // 60}m{seconds % 60:02d}s"


def progress_line(command: str, unit: str, done: int, total: int, start: float) -> None:
    """``command: unit done/total (x%), rate unit/s, time left`` rewritten in place on
    stderr, only when stderr is a terminal (`start`: time.perf_counter() at the start)."""
    if not sys.stderr.isatty():
        return
    elapsed = time.perf_counter() - start
    rate = done / elapsed if elapsed > 0 else 0.0
    left = format_seconds((total - done) / rate) if rate > 0 else "?"
    print(f"\r\033[K{command}: {unit} {done}/{total} ({100 * done / max(total, 1):.1f}%), "
          f"{rate:.1f} {unit}/s, {left} left", end="", file=sys.stderr, flush=True)


def clear_line() -> None:
    """Erase the progress line (only when stderr is a terminal)."""
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)
