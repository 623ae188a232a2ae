"""The BookFile / BookDir / BookOnTheFly options turned into a book, at ``isready``.

An empty BookFile, or YaneuraOu's ``no_book``, means no book. A relative BookFile is
looked for in BookDir first, then as given, then among the books the package ships
(``standard_book.db``, the default, made by ``usi-engine book think``: see
docs/book.md), so that a user's own ``book/standard_book.db`` takes its place. A name ending in ``.bin`` is an Apery
book; anything else a YaneuraOu text book. A book is read again only when the file,
its modification time or BookOnTheFly changed. A file that cannot be read is
reported and the engine plays without a book.
"""
from __future__ import annotations

import os
import time
from typing import Any

__all__ = ["BookLoader", "open_book", "resolve_book_path", "shipped_book_path", "NO_BOOK",
           "SHIPPED_BOOK"]

#: YaneuraOu's name for "no book".
NO_BOOK = "no_book"


#: The book the package ships, BookFile's default.
SHIPPED_BOOK = "standard_book.db"


def shipped_book_path(name: str = SHIPPED_BOOK) -> str:
    """Where the package keeps its book called ``name`` (it may not exist)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "data", name)


def resolve_book_path(book_file: str, book_dir: str) -> str | None:
    """The path BookFile names, or None for none: a relative name in BookDir, else as
    given (from the working folder), else the package's book of that name."""
    book_file = book_file.strip()
    if not book_file or os.path.basename(book_file) == NO_BOOK:
        return None
    if os.path.isabs(book_file):
        return book_file
    candidates = [os.path.join(book_dir, book_file)] if book_dir else []
    candidates += [book_file, shipped_book_path(book_file)]
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    return book_file


def open_book(path: str, on_the_fly: bool = False) -> Any:
    """A book object for ``path`` (with ``find(sfen, ignore_ply)``)."""
    if path.lower().endswith(".bin"):
        from usi_engine.book.apery import AperyBook
        return AperyBook(path, on_the_fly=on_the_fly)
    if on_the_fly:
        from usi_engine.book.textdb import OnTheFlyBook
        return OnTheFlyBook(path)
    from usi_engine.book.textdb import read_db
    return read_db(path)


class BookLoader:
    """Holds the book the options name; :meth:`apply` at each ``isready``."""

    def __init__(self) -> None:
        self.book: Any = None
        self._state: tuple[str, float, bool] | None = None

    def apply(self, book_file: str, book_dir: str, on_the_fly: bool) -> list[str]:
        """Load the book if the options or the file changed; returns the messages to
        print as ``info string``."""
        path = resolve_book_path(book_file, book_dir)
        if path is None:
            self._drop()
            return []
        try:
            mtime = os.path.getmtime(path)
        except OSError as exc:
            self._drop()
            return [f"BookFile: cannot read {path} ({exc.strerror or exc}); playing without a book"]
        state = (os.path.abspath(path), mtime, on_the_fly)
        if state == self._state and self.book is not None:
            return []
        self._drop()
        start = time.perf_counter()
        try:
            book = open_book(path, on_the_fly)
        except (OSError, ValueError) as exc:
            return [f"BookFile: cannot read {path} ({exc}); playing without a book"]
        self.book, self._state = book, state
        ms = int((time.perf_counter() - start) * 1000)
        if on_the_fly:
            return [f"BookFile: {path} opened on the fly"]
        return [f"BookFile: read {path}, {len(book)} "
                f"{'entries' if path.lower().endswith('.bin') else 'positions'} in {ms} ms"]

    def _drop(self) -> None:
        if self.book is not None and hasattr(self.book, "close"):
            self.book.close()
        self.book, self._state = None, None
