"""YaneuraOu's text book (``#YANEURAOU-DB2016 1.00``): read into memory, written sorted,
or searched on disk without loading it (:class:`OnTheFlyBook`, BookOnTheFly).

The format: ``#`` and ``//`` lines are comments (the first line names the format); a
line ``sfen <board> <side> <hand> <ply>`` starts a position; each following line is
one move, ``<move> <ponder> [<value> [<depth> [<count>]]]``. Written sorted by the SFEN
text in byte order, each position once (at its smallest ply), moves by count then
value descending, so that a reader can binary-search the file.

Example::

    >>> import os, tempfile
    >>> from usi_engine.book.model import BookMove, MemoryBook
    >>> book = MemoryBook()
    >>> book.add("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ...          BookMove("7g7f", "3c3d", 40, 20, 3))
    >>> path = os.path.join(tempfile.mkdtemp(), "book.db")
    >>> write_db(path, book)
    1
    >>> print(open(path).read(), end="")
    #YANEURAOU-DB2016 1.00
    sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1
    7g7f 3c3d 40 20 3
    >>> with OnTheFlyBook(path) as disk:
    ...     [m.line() for m in disk.find("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")]
    ['7g7f 3c3d 40 20 3']
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import IO

from usi_engine.book.model import BookMove, MemoryBook, sort_moves
from usi_engine.notation.sfen import split_ply

__all__ = ["HEADER", "read_db", "iter_db", "write_db", "OnTheFlyBook", "BookFormatError"]

#: The first line of a YaneuraOu text book.
HEADER = "#YANEURAOU-DB2016 1.00"


class BookFormatError(ValueError):
    """A line of a book that is neither a comment, a position nor a move."""


def _is_comment(line: str) -> bool:
    return line.startswith("#") or line.startswith("//")


def iter_db(stream: IO[str], name: str = "book") -> Iterator[tuple[str, list[BookMove]]]:
    """``(sfen with ply, moves)`` for each position of a text book, in file order.
    Blank and comment lines are skipped; a move before any position, or a bad move
    line, raises :class:`BookFormatError` naming the line."""
    sfen: str | None = None
    moves: list[BookMove] = []
    parse = BookMove.parse
    for number, raw in enumerate(stream, start=1):
        line = raw.strip()
        if not line or line[0] in "#/" and _is_comment(line):
            continue
        if line[0] == "s" and line.startswith("sfen "):
            if sfen is not None:
                yield sfen, moves
            sfen, moves = " ".join(line[5:].split()), []
            continue
        if sfen is None:
            raise BookFormatError(f"{name}:{number}: a move line before any 'sfen' line")
        try:
            moves.append(parse(line))
        except ValueError as exc:
            raise BookFormatError(f"{name}:{number}: {exc}") from None
    if sfen is not None:
        yield sfen, moves


def read_db(path: str, progress: Callable[[int], None] | None = None) -> MemoryBook:
    """Read a text book into memory (moves of a position listed twice are merged)."""
    book = MemoryBook()
    with open(path, encoding="utf-8", errors="replace") as stream:
        for number, (sfen, moves) in enumerate(iter_db(stream, path), start=1):
            key, ply = split_ply(sfen)
            if key in book.positions:
                for move in moves:
                    book.add(sfen, move)
            else:
                book.positions[key] = (ply, moves)
            if progress is not None and number % 10000 == 0:
                progress(number)
    return book


def write_db(path: str, book: MemoryBook) -> int:
    """Write ``book`` sorted (SFEN byte order; moves by count then value) to ``path``
    through a temporary file (an interrupted write leaves the old file). Positions
    without moves are left out. Returns the number of positions written."""
    rows = sorted((sfen, moves) for sfen, moves in book.items() if moves)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="ascii", newline="\n") as out:
        out.write(HEADER + "\n")
        for sfen, moves in rows:
            out.write(f"sfen {sfen}\n")
            for move in sort_moves(moves):
                out.write(move.line() + "\n")
    os.replace(tmp, path)
    return len(rows)


class OnTheFlyBook:
    """A sorted text book searched on disk (BookOnTheFly): each ``find`` is a binary
    search over byte offsets, a few dozen short reads, nothing loaded beforehand.

    The file must be sorted as :func:`write_db` writes it (``usi-engine book sort``).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._file = open(path, "rb")
        self._file.seek(0, os.SEEK_END)
        self._size = self._file.tell()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "OnTheFlyBook":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:   # unknown without reading it all; a book is "non-empty"
        return 1

    def _first_sfen_from(self, offset: int) -> tuple[str, int, int] | None:
        """The first ``sfen`` line starting at or after ``offset``: (its SFEN text, the
        offset after that line, its start), or None at the end of the file."""
        f = self._file
        if offset > 0:
            f.seek(offset - 1)
            f.readline()               # the rest of the line holding byte offset - 1
        else:
            f.seek(0)
        while True:
            start = f.tell()
            raw = f.readline()
            if not raw:
                return None
            if raw.startswith(b"sfen "):
                return " ".join(raw[5:].decode("ascii", "replace").split()), f.tell(), start

    def find(self, sfen: str, ignore_ply: bool = False) -> list[BookMove] | None:
        """The moves of ``sfen`` (by count then value, descending), or None."""
        target, ply = split_ply(sfen)
        lo, hi = 0, self._size
        while lo < hi:
            mid = (lo + hi) // 2
            found = self._first_sfen_from(mid)
            if found is None:
                hi = mid
                continue
            key, book_ply = split_ply(found[0])
            if key > target:
                hi = mid
            elif key < target:
                lo = found[1]
            else:
                if not ignore_ply and book_ply != ply:
                    return None
                return self._moves_after(found[1]) or None
        return None

    def _moves_after(self, offset: int) -> list[BookMove]:
        f = self._file
        f.seek(offset)
        moves = []
        for raw in f:
            line = raw.decode("ascii", "replace").strip()
            if not line or _is_comment(line):
                continue
            if line.startswith("sfen "):
                break
            try:
                moves.append(BookMove.parse(line))
            except ValueError:
                continue
        return sort_moves(moves)
