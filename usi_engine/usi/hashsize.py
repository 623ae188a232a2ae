"""Sizing the table memory (``USI_Hash``) at ``isready``, off the protocol thread.

The block is allocated and every page touched at once (seconds for gigabytes), so it
is done in an allocation thread; that thread answers the ``readyok`` lines owed by
the ``isready`` commands that came meanwhile, while the protocol thread goes on
reading (``quit`` still works).  The old block is dropped first, so the process
never holds two; a size the system refuses, or one larger than the memory available,
falls back to a smaller block and says so.

Example (with a stand-in searcher)::

    >>> class Stub:
    ...     hash_mb = 0
    ...     def release_memory(self): pass
    ...     def use_memory(self, memory): self.hash_mb = memory.megabytes
    ...     def mate_solver(self): pass
    >>> said = []
    >>> sizer = HashSizer(lambda *lines: said.extend(lines))
    >>> stub = Stub()
    >>> sizer.isready(stub, 2)
    True
    >>> sizer.wait(); stub.hash_mb, said
    (2, ['readyok'])
    >>> sizer.isready(stub, 2)      # already that size: the caller answers at once
    False
"""
from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["HashSizer", "available_mb"]


def _kernel32() -> Any:
    import ctypes
    return ctypes.WinDLL("kernel32")  # type: ignore[attr-defined]


def _windows_available_mb() -> int | None:
    """``ullAvailPhys`` of ``GlobalMemoryStatusEx`` in MB; None if the call fails."""
    import ctypes

    class MemoryStatusEx(ctypes.Structure):
        _fields_ = [("dwLength", ctypes.c_uint32), ("dwMemoryLoad", ctypes.c_uint32),
                    ("ullTotalPhys", ctypes.c_uint64), ("ullAvailPhys", ctypes.c_uint64),
                    ("ullTotalPageFile", ctypes.c_uint64), ("ullAvailPageFile", ctypes.c_uint64),
                    ("ullTotalVirtual", ctypes.c_uint64), ("ullAvailVirtual", ctypes.c_uint64),
                    ("ullAvailExtendedVirtual", ctypes.c_uint64)]

    status = MemoryStatusEx()
    status.dwLength = ctypes.sizeof(MemoryStatusEx)
    try:
        if not _kernel32().GlobalMemoryStatusEx(ctypes.byref(status)):
            return None
    except (AttributeError, OSError):
        return None
    return int(status.ullAvailPhys) // (1024 * 1024)


def available_mb() -> int | None:
    """Memory the system can still give (Linux ``MemAvailable``; on Windows the
    available physical memory of ``GlobalMemoryStatusEx``), in MB; None if unknown.

    The table is touched as it is allocated, so asking for more than this would not
    fail cleanly: the kernel would kill the process instead."""
    if sys.platform == "win32":
        return _windows_available_mb()
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


#: Of the memory available, the share a table that did not fit may take in its place
#: (the rest, and HEADROOM_MB more, stays free for the process and the system).
FALLBACK_SHARE = 0.5
HEADROOM_MB = 64


def fallback_sizes(want: int, available: int | None, previous: int) -> list[int]:
    """The sizes (MB) to try, largest first, when ``want`` did not fit: the largest
    that leaves room (FALLBACK_SHARE of the memory available, less HEADROOM_MB: the
    table is touched as it is allocated, and the machine has other work), then
    halves of it down to 1 MB; without a figure for the memory, halves of ``want``.

        >>> fallback_sizes(100000, 1000, 0)[:3], fallback_sizes(100000, 1000, 0)[-1]
        ([436, 218, 109], 1)
        >>> fallback_sizes(64, None, 16)
        [32, 16, 8, 4, 2, 1]
    """
    if available is not None:
        largest = int((available + previous) * FALLBACK_SHARE) - HEADROOM_MB
    else:
        largest = want // 2
    largest = max(1, min(largest, want - 1))
    sizes = []
    while largest >= 1:
        sizes.append(largest)
        largest //= 2
    return sizes


class HashSizer:
    """Sizes a searcher's memory at ``isready`` in a thread; ``write(*lines)`` prints.

    ``after`` (optional) runs in the allocation thread once the memory is in place
    (the engine forgets the last game there)."""

    def __init__(self, write: Callable[..., None], after: Callable[[], None] | None = None) -> None:
        self._write = write
        self._after = after
        self._lock = threading.Lock()              # guards the three fields below
        self._thread: threading.Thread | None = None
        self._owed = 0                             # readyok lines to print when done
        self.sized_mb: int | None = None           # USI_Hash the memory was sized for

    @property
    def busy(self) -> bool:
        """Whether an allocation is under way."""
        with self._lock:
            return self._thread is not None

    def isready(self, searcher: Any, want: int) -> bool:
        """Handle ``isready``: True if the allocation thread will answer it (one is
        running, or ``want`` MB differs from the size in place and one starts now);
        False if the caller answers ``readyok`` itself."""
        with self._lock:
            if self._thread is None and want == self.sized_mb:
                return False
            self._owed += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._size, args=(searcher, want),
                                                name="usi-hash", daemon=True)
                self._thread.start()
            return True

    def wait(self) -> None:
        """Wait for a running allocation (only a GUI that sends ``go`` before the
        ``readyok`` of its ``isready`` makes the protocol thread wait here)."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join()

    def _size(self, searcher: Any, want: int) -> None:
        notes: list[str] = []
        try:
            from usi_engine.core.tt import HashMemory
            previous = int(searcher.hash_mb)
            searcher.release_memory()  # never hold two blocks: RSS stays within USI_Hash
            memory = None
            available = available_mb()
            if available is not None and want > available + previous - 64:
                notes.append(f"USI_Hash: {want} MB is more than the {available + previous} MB "
                             f"of memory available")
            else:
                try:
                    memory = HashMemory(want)
                except MemoryError:
                    notes.append(f"USI_Hash: the system refused {want} MB")
            if memory is None:
                for fallback in fallback_sizes(want, available, previous):
                    try:
                        memory = HashMemory(fallback)
                        break
                    except MemoryError:
                        continue
                if memory is None:
                    raise MemoryError("cannot allocate even 1 MB of hash")
                notes[-1] += f"; using {memory.megabytes} MB instead"
            searcher.use_memory(memory)
            searcher.mate_solver()  # built now: the first go mate allocates nothing
            if self._after is not None:
                self._after()
        except Exception as exc:  # report, but the GUI must still get readyok
            notes.append(f"error: isready: {type(exc).__name__}: {exc}")
        finally:
            with self._lock:
                self.sized_mb = want  # do not retry at every isready
                owed, self._owed = self._owed, 0
                self._thread = None
            self._write(*("info string " + " ".join(note.split()) for note in notes),
                        *["readyok"] * owed)
