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


def iter_lines(read: Callable[[], bytes],
               on_cp932: Callable[[str], None] | None = None) -> Iterator[tuple[str, float]]:
    """Yield ``(line, time_read)`` from a chunk reader until it returns ``b""`` (EOF).

    Lines may end in LF, CR LF or a lone CR; ``time_read`` is the
    :func:`time.perf_counter` moment the chunk holding the line arrived, which is when
    the engine's clock starts for a ``go`` (not when the line is parsed).
    Blank lines are dropped, so a CR LF pair split across two reads (CR ending
    one chunk, LF starting the next) costs nothing but an empty line, which is
    skipped; a lone CR still ends its line at once, without waiting for more input.
    A line that is not UTF-8 but is CP932 (Shift-JIS: a Japanese Windows GUI's option
    value, a path) is read as CP932, and ``on_cp932(line)`` called before it is yielded.

    Example::

        >>> chunks = iter([b"usi\\r\\nisre", b"ady\\rquit\\n", b""])
        >>> [line for line, _ in iter_lines(lambda: next(chunks))]
        ['usi', 'isready', 'quit']
    """
    pending = b""
    while True:
        chunk = read()
        now = time.perf_counter()
        if not chunk:
            if pending.strip():
                yield _decode(pending, on_cp932), now
            return
        pending += chunk
        parts = _LINE_END.split(pending)
        pending = parts.pop()  # the unterminated tail (maybe b"")
        for part in parts:
            if part.strip():
                yield _decode(part, on_cp932), now


def decode_line(raw: bytes) -> tuple[str, bool]:
    """``(text, read_as_cp932)``: GUIs send ASCII commands; option values (paths) may
    be UTF-8 or, from a Japanese Windows GUI, CP932 (Shift-JIS). UTF-8 first; then
    CP932; bytes that are neither are replaced (a garbage line must not kill the engine).

        >>> decode_line("setoption name BookFile value 定跡.db".encode("cp932"))
        ('setoption name BookFile value 定跡.db', True)
        >>> decode_line("setoption name BookFile value 定跡.db".encode("utf-8"))[1]
        False
    """
    try:
        return raw.decode("utf-8").lstrip("\ufeff"), False
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("cp932"), True
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace").lstrip("\ufeff"), False


def _decode(raw: bytes, on_cp932: Callable[[str], None] | None = None) -> str:
    text, cp932 = decode_line(raw)
    if cp932 and on_cp932 is not None:
        on_cp932(text)
    return text


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
