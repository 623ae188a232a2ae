"""The USI pipe itself: lines in (any line end, the time each arrived) and lines out
(thread-safe, flushed, never raising on a closed pipe).

Example::

    >>> import io
    >>> out = Output(io.BytesIO()); out.write("usiok")
    >>> [line for line, _ in iter_lines(iter([b"usi\\n", b""]).__next__)]
    ['usi']
"""
from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import BinaryIO

# Line ends: LF, CR LF, or a lone CR (old Mac-style GUIs / some bridges).
_LINE_END = re.compile(rb"\r\n|\r|\n")


# --- input --------------------------------------------------------------------------------


def iter_lines(read: Callable[[], bytes]) -> Iterator[tuple[str, float]]:
    """Yield ``(line, time_read)`` from a chunk reader until it returns ``b""`` (EOF).

    Lines may end in LF, CR LF or a lone CR; ``time_read`` is the
    :func:`time.monotonic` moment the chunk holding the line arrived, which is when
    the engine's clock starts for a ``go`` (not when the line is parsed).
    Blank lines are dropped, so a CR LF pair split across two reads (CR ending
    one chunk, LF starting the next) costs nothing but an empty line, which is
    skipped; a lone CR still ends its line at once, without waiting for more input.

    Example::

        >>> chunks = iter([b"usi\\r\\nisre", b"ady\\rquit\\n", b""])
        >>> [line for line, _ in iter_lines(lambda: next(chunks))]
        ['usi', 'isready', 'quit']
    """
    pending = b""
    while True:
        chunk = read()
        now = time.monotonic()
        if not chunk:
            if pending.strip():
                yield _decode(pending), now
            return
        pending += chunk
        parts = _LINE_END.split(pending)
        pending = parts.pop()  # the unterminated tail (maybe b"")
        for part in parts:
            if part.strip():
                yield _decode(part), now


def _decode(raw: bytes) -> str:
    # GUIs send ASCII commands; option values (paths) may be UTF-8 or Shift-JIS.
    # Never raise on bad bytes: a garbage line must not kill the engine.
    return raw.decode("utf-8", errors="replace").lstrip("\ufeff")


# --- output -------------------------------------------------------------------------------


class Output:
    """Thread-safe line writer: one lock, one flush per batch, never raises.

    ``lines`` written in one call appear together (the final ``info`` and the
    ``bestmove`` cannot be split by a ``readyok`` from the other thread).

    Example::

        >>> import io
        >>> buf = io.BytesIO(); out = Output(buf)
        >>> out.write("readyok"); buf.getvalue()
        b'readyok\\n'
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        #: Set once stdout is gone (GUI closed the pipe): the loop then quits.
        self.broken = False

    def write(self, *lines: str) -> None:
        """Write each line followed by LF and flush."""
        data = "".join(line + "\n" for line in lines).encode("utf-8", errors="replace")
        with self._lock:
            if self.broken:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):
                # BrokenPipe / closed file: nobody is listening any more.
                self.broken = True
