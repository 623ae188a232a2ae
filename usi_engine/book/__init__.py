"""Opening books: YaneuraOu's text book (``.db``) and Apery's binary book (``.bin``),
the choice of a book move under YaneuraOu's book options, and the tools of
``usi-engine book`` (convert, merge, sort, think, from-records).

* :mod:`usi_engine.book.model`: :class:`BookMove`, :class:`MemoryBook`, SFEN helpers;
* :mod:`usi_engine.book.textdb`: ``read_db``/``write_db``, :class:`OnTheFlyBook`;
* :mod:`usi_engine.book.apery`: ``apery_key`` (our mt19937_64 Zobrist keys),
  :class:`AperyBook`, ``write_bin``;
* :mod:`usi_engine.book.select`: :class:`BookSettings`, ``probe``;
* :mod:`usi_engine.book.loader`: :class:`BookLoader` (the USI loop's, at isready);
* :mod:`usi_engine.book.tools`: what the ``usi-engine book`` commands (:mod:`usi_engine.cli.book`) do with books.

Only the model and text formats are pure Python; ``probe`` and the tools use the
compiled core (legality, Position).
"""
from usi_engine.book.model import BookMove, MemoryBook
from usi_engine.notation.sfen import flip_move, flip_sfen, split_ply
from usi_engine.book.textdb import OnTheFlyBook, read_db, write_db
from usi_engine.book.loader import BookLoader, open_book
from usi_engine.book.select import BookHit, BookSettings, probe

__all__ = ["BookMove", "MemoryBook", "flip_move", "flip_sfen", "split_ply", "OnTheFlyBook",
           "read_db", "write_db", "BookLoader", "open_book", "BookHit", "BookSettings",
           "probe", "read_book", "write_book"]


def read_book(path: str) -> MemoryBook:
    """Any book file into memory: a text book as it is, a .bin by walking the tree
    from the start position (see :func:`usi_engine.book.tools.bin_to_memory`)."""
    if path.lower().endswith(".bin"):
        from usi_engine.book.tools import bin_to_memory
        return bin_to_memory(path)
    return read_db(path)


def write_book(path: str, book: MemoryBook) -> int:
    """Write ``book`` as a .bin (by the name) or a sorted text book."""
    if path.lower().endswith(".bin"):
        from usi_engine.book.apery import write_bin
        return write_bin(path, book)
    return write_db(path, book)
