"""What a book holds, independent of its file format: :class:`BookMove`, the SFEN
helpers books need (the ply cut off, the colours flipped), and :class:`MemoryBook`.

Pure Python (no compiled core): the formats read and write text.

Example::

    >>> book = MemoryBook()
    >>> book.add("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ...          BookMove("7g7f", "3c3d", 40, 20, 3))
    >>> [m.move for m in book.find("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")]
    ['7g7f']
    >>> book.find("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 9") is None
    True
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from usi_engine.notation.sfen import split_ply

__all__ = ["BookMove", "MemoryBook", "NO_MOVE", "sort_moves", "is_move_text"]

#: How a book writes "no move" (YaneuraOu's ``none``; ``resign`` is read the same).
NO_MOVE = "none"


class BookMove(NamedTuple):
    """One candidate of a book position: the move (USI text), the expected reply
    (``none`` if unknown), the value after the move from the mover's side in cp, the
    search depth that gave it, and how often it was chosen.

    A named tuple, not a dataclass: a frozen dataclass costs five ``__setattr__`` calls
    a move, and reading YaneuraOu's text book is mostly making these (the shipped
    book's 12,000 moves in 25 ms of its 105 ms at every ``isready``)."""

    move: str
    ponder: str = NO_MOVE
    value: int = 0
    depth: int = 0
    # the field shadows tuple.count, which no caller of a book move wants
    count: int = 1  # type: ignore[assignment]

    def line(self) -> str:
        """The move's line in a YaneuraOu text book."""
        return f"{self.move} {self.ponder} {self.value} {self.depth} {self.count}"

    @classmethod
    def parse(cls, line: str) -> "BookMove":
        """Parse ``<move> <ponder> [<value> [<depth> [<count>]]]`` (missing fields: 0, 0,
        1). ``ValueError`` on a line with fewer than two words or a bad number."""
        words = line.split()
        if len(words) < 2:
            raise ValueError(f"book move line needs a move and a ponder move: {line[:80]!r}")
        move, ponder = words[0], words[1]
        if move == "resign":
            move = NO_MOVE
        if ponder == "resign":
            ponder = NO_MOVE
        if len(words) >= 5:
            return cls(move, ponder, int(words[2]), int(words[3]), int(words[4]))
        numbers = [int(w) for w in words[2:5]]
        value, depth, count = numbers + [0, 0, 1][len(numbers):]
        return cls(move, ponder, value, depth, count)


def sort_moves(moves: Iterable[BookMove]) -> list[BookMove]:
    """By count, then value, descending (the order books are written in); stable."""
    return sorted(moves, key=lambda m: (-m.count, -m.value))


def is_move_text(text: str) -> bool:
    """Whether ``text`` names a move (not ``none``/``resign``)."""
    return text not in (NO_MOVE, "resign", "")


class MemoryBook:
    """A book in memory: positions (SFEN without the ply) -> (ply, moves).

    A position is kept once, at the smallest ply added; moves of one position are
    unique (adding a move again replaces its value, depth and ponder and, with
    ``add_counts``, sums the counts). ``find`` needs the ply to match unless
    ``ignore_ply`` (YaneuraOu's IgnoreBookPly).
    """

    def __init__(self) -> None:
        self.positions: dict[str, tuple[int, list[BookMove]]] = {}

    def __len__(self) -> int:
        return len(self.positions)

    def __contains__(self, sfen: object) -> bool:
        return isinstance(sfen, str) and split_ply(sfen)[0] in self.positions

    def add(self, sfen: str, move: BookMove, add_counts: bool = False) -> None:
        """Add (or update) one move of the position ``sfen`` (with its ply)."""
        key, ply = split_ply(sfen)
        entry = self.positions.get(key)
        if entry is None or ply < entry[0]:
            moves = [] if entry is None else entry[1]
            self.positions[key] = (ply, moves)
            entry = self.positions[key]
        moves = entry[1]
        for index, old in enumerate(moves):
            if old.move == move.move:
                count = old.count + move.count if add_counts else move.count
                moves[index] = move._replace(count=count)
                return
        moves.append(move)

    def set_moves(self, sfen: str, moves: Iterable[BookMove]) -> None:
        """Replace the moves of ``sfen`` (its ply is the smaller of the two)."""
        key, ply = split_ply(sfen)
        entry = self.positions.get(key)
        if entry is not None:
            ply = min(ply, entry[0])
        self.positions[key] = (ply, list(moves))

    def find(self, sfen: str, ignore_ply: bool = False) -> list[BookMove] | None:
        """The moves of ``sfen`` (by count then value, descending), or None."""
        key, ply = split_ply(sfen)
        entry = self.positions.get(key)
        if entry is None or not entry[1] or (not ignore_ply and entry[0] != ply):
            return None
        return sort_moves(entry[1])

    def items(self) -> Iterator[tuple[str, list[BookMove]]]:
        """``(sfen with its ply, moves)`` for each position, in no set order."""
        for key, (ply, moves) in self.positions.items():
            yield f"{key} {ply}", moves

    def merge(self, other: "MemoryBook") -> None:
        """Add ``other``'s positions: counts of a move in both are summed; its value,
        depth and ponder are those of the deeper entry."""
        for sfen, moves in other.items():
            key, ply = split_ply(sfen)
            mine = self.positions.get(key)
            if mine is None:
                self.positions[key] = (ply, list(moves))
                continue
            merged = {m.move: m for m in mine[1]}
            for move in moves:
                old = merged.get(move.move)
                if old is None:
                    merged[move.move] = move
                else:
                    best = move if move.depth > old.depth else old
                    merged[move.move] = best._replace(count=old.count + move.count)
            self.positions[key] = (min(ply, mine[0]), list(merged.values()))
