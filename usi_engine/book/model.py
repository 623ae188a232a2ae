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
    >>> flip_move("7g7f"), flip_move("P*5e")
    ('3c3d', 'P*5e')
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

__all__ = ["BookMove", "MemoryBook", "NO_MOVE", "split_ply", "flip_sfen", "flip_move",
           "sort_moves", "is_move_text"]

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


def split_ply(sfen: str) -> tuple[str, int]:
    """``(board side hand, ply)`` of an SFEN (ply 0 when absent or not a number).

    >>> split_ply("9/9/9/9/9/9/9/9/9 b - 12")
    ('9/9/9/9/9/9/9/9/9 b -', 12)
    """
    words = sfen.split()
    if len(words) >= 4 and words[3].lstrip("+-").isdigit():
        return " ".join(words[:3]), int(words[3])
    return " ".join(words[:3]), 0


_HAND_ORDER = "RBGSNLP"


def parse_hand(text: str) -> dict[str, int]:
    """The counts of an SFEN hand field by piece letter, case kept (``2Pb``:
    ``{'P': 2, 'b': 1}``; ``-``: none)."""
    counts: dict[str, int] = {}
    if text == "-":
        return counts
    number = ""
    for ch in text:
        if ch.isdigit():
            number += ch
            continue
        counts[ch] = counts.get(ch, 0) + (int(number) if number else 1)
        number = ""
    return counts


def _format_hand(counts: dict[str, int]) -> str:
    parts = []
    for letters in (_HAND_ORDER, _HAND_ORDER.lower()):
        for ch in letters:
            n = counts.get(ch, 0)
            if n:
                parts.append(f"{n if n > 1 else ''}{ch}")
    return "".join(parts) or "-"


def board_cells(board: str) -> list[list[str]]:
    """The 9 ranks (a first) of an SFEN board, each 9 cells from file 9 to file 1;
    a cell is ``""`` (empty) or a piece such as ``"+P"`` or ``"k"``."""
    ranks = []
    for row in board.split("/"):
        cells: list[str] = []
        promote = ""
        for ch in row:
            if ch.isdigit():
                cells.extend([""] * int(ch))
            elif ch == "+":
                promote = "+"
            else:
                cells.append(promote + ch)
                promote = ""
        if len(cells) != 9:
            raise ValueError(f"bad SFEN rank {row!r}")
        ranks.append(cells)
    if len(ranks) != 9:
        raise ValueError(f"bad SFEN board {board[:80]!r}")
    return ranks


def _format_board(ranks: list[list[str]]) -> str:
    rows = []
    for cells in ranks:
        text, empty = "", 0
        for cell in cells:
            if not cell:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += cell
        rows.append(text + (str(empty) if empty else ""))
    return "/".join(rows)


def flip_sfen(sfen: str) -> str:
    """The same position with the colours swapped (board turned 180 degrees, hands and
    side to move exchanged); the ply, if any, is kept.

    >>> flip_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2")
    'lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 2'
    """
    words = sfen.split()
    if len(words) < 3:
        raise ValueError(f"bad SFEN {sfen[:80]!r}")
    ranks = board_cells(words[0])
    flipped = [[ranks[8 - r][8 - c].swapcase() for c in range(9)] for r in range(9)]
    side = "w" if words[1] == "b" else "b"
    hand = {ch.swapcase(): n for ch, n in parse_hand(words[2]).items()}
    return " ".join([_format_board(flipped), side, _format_hand(hand)] + words[3:4])


def _flip_square(text: str) -> str:
    return f"{10 - int(text[0])}{chr(ord('a') + ord('i') - ord(text[1]))}"


def flip_move(move: str) -> str:
    """A USI move as seen from the other side (``7g7f`` is ``3c3d``); ``none`` stays."""
    if not is_move_text(move):
        return move
    if len(move) >= 4 and move[1] == "*":
        return move[:2] + _flip_square(move[2:4])
    return _flip_square(move[0:2]) + _flip_square(move[2:4]) + move[4:]


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
