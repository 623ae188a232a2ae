"""SFEN text in pure Python: the start position, the ply, hands, board cells, and the
same position with the colours swapped.

Example::

    >>> split_ply(STARTPOS_SFEN)
    ('lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -', 1)
    >>> parse_hand("2Pb"), format_hand({"b": 1, "P": 2})
    ({'P': 2, 'b': 1}, '2Pb')
    >>> flip_move("7g7f"), flip_move("P*5e")
    ('3c3d', 'P*5e')
"""
from __future__ import annotations

__all__ = ["STARTPOS_SFEN", "split_ply", "parse_hand", "format_hand", "board_cells",
           "format_board", "flip_sfen", "flip_move"]

#: The initial position, black (sente) to move, ply 1.
STARTPOS_SFEN = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


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


def format_hand(counts: dict[str, int]) -> str:
    """An SFEN hand field from counts by piece letter (black's pieces first, then
    white's, each R B G S N L P): ``{'P': 2, 'b': 1}`` is ``2Pb``; none is ``-``."""
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


def format_board(ranks: list[list[str]]) -> str:
    """The SFEN board field of 9 ranks of 9 cells (:func:`board_cells`' form)."""
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
    return " ".join([format_board(flipped), side, format_hand(hand)] + words[3:4])


def _flip_square(text: str) -> str:
    return f"{10 - int(text[0])}{chr(ord('a') + ord('i') - ord(text[1]))}"


def flip_move(move: str) -> str:
    """A USI move as seen from the other side (``7g7f`` is ``3c3d``); a text that is not
    a move (a book's ``none``, ``resign``) stays."""
    if len(move) < 4:
        return move
    if len(move) >= 4 and move[1] == "*":
        return move[:2] + _flip_square(move[2:4])
    return _flip_square(move[0:2]) + _flip_square(move[2:4]) + move[4:]
