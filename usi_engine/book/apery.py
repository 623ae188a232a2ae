"""Apery's binary book (``.bin``): 16-byte little-endian entries ``<key u64,
fromToPro u16, count u16, score i32>`` sorted by key, the entries of one key by count
descending.

The move field is this engine's move int (``to | from << 7 | promote << 14``, a drop's
``from`` being 80 + the piece type, pawn 1 .. gold 7). The key is Apery's Zobrist hash:
64-bit words drawn from ``std::mt19937_64`` with its default seed (5489), first one per
(piece code, square) for the 31 piece codes 0..30 (the engine's codes: type | colour
<< 4), then one per (hand piece, count 0..18) for pawn, lance, knight, silver, gold,
bishop, rook, then one for white to move; the key XORs the board's pieces, the hand of
the side to move only, and the side word when white is to move. :class:`MT19937_64`
is our own implementation (tests check its keys against cshogi's ``book_key``).

Example::

    >>> mt = MT19937_64()
    >>> mt.next()          # std::mt19937_64's first output with the default seed
    14514284786278117030
    >>> hex(apery_key("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"))
    '0xeebe8ee7e1ad7e15'
"""
from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from usi_engine.book.model import BookMove, MemoryBook, is_move_text
from usi_engine.notation.sfen import board_cells, parse_hand

__all__ = ["ENTRY", "MT19937_64", "apery_key", "move_to_apery", "apery_to_move",
           "AperyBook", "read_bin", "write_bin", "APERY_DEPTH"]

#: One entry of the file (the same layout as cshogi's ``BookEntry``).
ENTRY = np.dtype([("key", "<u8"), ("fromToPro", "<u2"), ("count", "<u2"), ("score", "<i4")])
#: The depth a .bin entry is given when read (the file has none; YaneuraOu's choice).
APERY_DEPTH = 256

_MASK64 = (1 << 64) - 1


class MT19937_64:
    """The 64-bit Mersenne Twister of C++'s ``std::mt19937_64`` (default seed 5489)."""

    _N, _M = 312, 156
    _MATRIX_A = 0xB5026F5AA96619E9
    _UPPER, _LOWER = 0xFFFFFFFF80000000, 0x7FFFFFFF

    def __init__(self, seed: int = 5489) -> None:
        mt = [seed & _MASK64]
        for i in range(1, self._N):
            prev = mt[-1]
            mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & _MASK64)
        self._mt = mt
        self._index = self._N

    def _twist(self) -> None:
        mt, n, m = self._mt, self._N, self._M
        for i in range(n):
            x = (mt[i] & self._UPPER) | (mt[(i + 1) % n] & self._LOWER)
            xa = x >> 1
            if x & 1:
                xa ^= self._MATRIX_A
            mt[i] = mt[(i + m) % n] ^ xa
        self._index = 0

    def next(self) -> int:
        """The next 64-bit output."""
        if self._index >= self._N:
            self._twist()
        y = self._mt[self._index]
        self._index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & _MASK64


_PIECE_TYPES = {"P": 1, "L": 2, "N": 3, "S": 4, "B": 5, "R": 6, "G": 7, "K": 8}
_HAND_PIECES = "PLNSGBR"      # Apery's hand-piece order
_TABLES: tuple[list[list[int]], list[list[int]], int] | None = None


def _tables() -> tuple[list[list[int]], list[list[int]], int]:
    global _TABLES
    if _TABLES is None:
        mt = MT19937_64()
        pieces = [[mt.next() for _ in range(81)] for _ in range(31)]
        hands = [[mt.next() for _ in range(19)] for _ in range(7)]
        _TABLES = (pieces, hands, mt.next())
    return _TABLES


def _hand_counts(text: str, upper: bool) -> dict[str, int]:
    """One side's hand counts by upper-case letter: black's (upper) or white's."""
    return {letter.upper(): count for letter, count in parse_hand(text).items()
            if letter.isupper() == upper}


def apery_key(sfen: str) -> int:
    """Apery's book key of the position ``sfen`` (the ply does not count)."""
    pieces, hands, turn_key = _tables()
    words = sfen.split()
    if len(words) < 3 or words[1] not in ("b", "w"):
        raise ValueError(f"bad SFEN {sfen[:80]!r}")
    key = 0
    for rank, cells in enumerate(board_cells(words[0])):
        for column, cell in enumerate(cells):
            if not cell:
                continue
            letter = cell[-1]
            code = _PIECE_TYPES[letter.upper()] + (8 if cell[0] == "+" else 0)
            code |= (0 if letter.isupper() else 1) << 4
            square = (8 - column) * 9 + rank
            key ^= pieces[code][square]
    white = words[1] == "w"
    counts = _hand_counts(words[2], upper=not white)
    for index, letter in enumerate(_HAND_PIECES):
        key ^= hands[index][min(counts.get(letter, 0), 18)]
    if white:
        key ^= turn_key
    return key


def _square(text: str) -> int:
    file, rank = int(text[0]), ord(text[1]) - ord("a")
    if not (1 <= file <= 9 and 0 <= rank <= 8):
        raise ValueError(f"bad square {text!r}")
    return (file - 1) * 9 + rank


def _square_text(sq: int) -> str:
    return f"{sq // 9 + 1}{chr(ord('a') + sq % 9)}"


def move_to_apery(move: str) -> int:
    """A USI move as the 16-bit move of a .bin entry (the engine's move int)."""
    if len(move) >= 4 and move[1] == "*":
        return _square(move[2:4]) | (80 + _PIECE_TYPES[move[0].upper()]) << 7
    value = _square(move[2:4]) | _square(move[0:2]) << 7
    if move[4:] == "+":
        value |= 1 << 14
    elif move[4:]:
        raise ValueError(f"bad USI move {move!r}")
    return value


_DROP_LETTERS = {v: k for k, v in _PIECE_TYPES.items()}


def apery_to_move(value: int) -> str:
    """The USI text of a .bin entry's 16-bit move."""
    to, source = value & 0x7F, (value >> 7) & 0x7F
    if to > 80:
        raise ValueError(f"bad book move {value:#06x}")
    if source > 80:
        letter = _DROP_LETTERS.get(source - 80)
        if letter is None or letter == "K":
            raise ValueError(f"bad book move {value:#06x}")
        return f"{letter}*{_square_text(to)}"
    return _square_text(source) + _square_text(to) + ("+" if value & (1 << 14) else "")


class AperyBook:
    """A .bin book: in memory (``np.fromfile``) or mapped from disk (BookOnTheFly)."""

    def __init__(self, path: str, on_the_fly: bool = False) -> None:
        self.path = path
        size = os.path.getsize(path)
        if size % ENTRY.itemsize:
            raise ValueError(f"{path}: {size} bytes is not a whole number of 16-byte entries")
        if size == 0:
            self.entries = np.zeros(0, ENTRY)
        elif on_the_fly:
            self.entries = np.memmap(path, dtype=ENTRY, mode="r")
        else:
            self.entries = np.fromfile(path, dtype=ENTRY)

    def __len__(self) -> int:
        return len(self.entries)

    def close(self) -> None:
        self.entries = np.zeros(0, ENTRY)

    def find_key(self, key: int) -> list[BookMove]:
        """The moves stored under ``key`` (by count, then score, descending)."""
        keys = self.entries["key"]
        lo = int(np.searchsorted(keys, np.uint64(key), side="left"))
        hi = int(np.searchsorted(keys, np.uint64(key), side="right"))
        moves = []
        for entry in self.entries[lo:hi]:
            try:
                text = apery_to_move(int(entry["fromToPro"]))
            except ValueError:
                text = f"bad-move-{int(entry['fromToPro']):#06x}"
            moves.append(BookMove(text, "none", int(entry["score"]), APERY_DEPTH,
                                  int(entry["count"])))
        moves.sort(key=lambda m: (-m.count, -m.value))
        return moves

    def find(self, sfen: str, ignore_ply: bool = True) -> list[BookMove] | None:
        """The moves of the position ``sfen`` (the file has no plies), or None."""
        return self.find_key(apery_key(sfen)) or None


def read_bin(path: str) -> AperyBook:
    """Read a .bin book into memory."""
    return AperyBook(path)


def write_bin(path: str, book: MemoryBook,
              progress: Callable[[int], None] | None = None) -> int:
    """Write ``book`` as a .bin (keys ascending, one key's entries by count
    descending; counts capped at 65535, ``none`` moves left out). Returns the number
    of entries."""
    rows: list[tuple[int, int, int, int]] = []
    for number, (sfen, moves) in enumerate(book.items(), start=1):
        key = apery_key(sfen)
        for move in moves:
            if not is_move_text(move.move):
                continue
            score = max(-(1 << 31), min((1 << 31) - 1, move.value))
            rows.append((key, -min(max(move.count, 0), 65535), -score, move_to_apery(move.move)))
        if progress is not None and number % 10000 == 0:
            progress(number)
    rows.sort()
    table = np.zeros(len(rows), ENTRY)
    if rows:
        table["key"] = np.array([r[0] for r in rows], dtype=np.uint64)
        table["count"] = np.array([-r[1] for r in rows], dtype=np.uint16)
        table["score"] = np.array([-r[2] for r in rows], dtype=np.int32)
        table["fromToPro"] = np.array([r[3] for r in rows], dtype=np.uint16)
    tmp = f"{path}.tmp{os.getpid()}"
    table.tofile(tmp)
    os.replace(tmp, path)
    return len(rows)
