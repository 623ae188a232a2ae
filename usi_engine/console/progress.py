"""Progress lines of the long commands (gensfen, relabel, analyze, book) on a terminal."""
from __future__ import annotations

import sys
import time

#: ANSI "erase to the end of the line".
ERASE_LINE = "\033[K"
#: Whether stderr's console takes VT sequences: None until first asked (only Windows asks).
_vt_ok: bool | None = None
#: Width of the line last written in place, which padding must cover without VT.
_last_width = 0


def _enable_vt_mode() -> bool:
    """On a Windows console, turn on ENABLE_VIRTUAL_TERMINAL_PROCESSING for stderr
    (Windows 10 and later); whether the console now takes VT sequences."""
    try:
        import ctypes
        from ctypes import wintypes
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
        handle = kernel32.GetStdHandle(-12)                 # STD_ERROR_HANDLE
        mode = wintypes.DWORD()
        if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
            return False
        if mode.value & 0x0004:                             # already on
            return True
        return bool(kernel32.SetConsoleMode(handle, mode.value | 0x0004))
    except (AttributeError, OSError, ValueError):
        return False


def vt_supported() -> bool:
    """Whether stderr takes ``\\033[K``: always off Windows; on Windows, when VT mode
    is (or could be turned) on for the console (asked once)."""
    global _vt_ok
    if sys.platform != "win32":
        return True
    if _vt_ok is None:
        _vt_ok = _enable_vt_mode()
    return _vt_ok


def in_place(text: str) -> str:
    """``text`` to print (with ``end=""``) so that it replaces the line written in place
    before: ``\\r\\033[K`` + text, or where the console takes no VT sequences (an old
    Windows console) ``\\r`` + text padded with spaces over the rest of the last one."""
    global _last_width
    padding = ""
    if not vt_supported():
        padding = " " * max(_last_width - len(text), 0)
    _last_width = len(text)
    if padding:
        return f"\r{text}{padding}\r{text}"
    return f"\r{ERASE_LINE}{text}" if vt_supported() else f"\r{text}"


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
    print(in_place(f"{command}: {unit} {done}/{total} ({100 * done / max(total, 1):.1f}%), "
                   f"{rate:.1f} {unit}/s, {left} left"), end="", file=sys.stderr, flush=True)


def clear_line() -> None:
    """Erase the progress line (only when stderr is a terminal)."""
    if sys.stderr.isatty():
        print(in_place(""), end="", file=sys.stderr, flush=True)
