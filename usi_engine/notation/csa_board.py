"""The CSA board: pieces on the board and in hand by CSA kind, with just enough shogi to
convert moves between CSA (``+7776FU``) and USI (``7g7f``), read a CSA position (``PI``,
``P1``..``P9``, ``P+``/``P-`` lines, handicaps) and write it as SFEN or CSA lines.

It does not check legality (:class:`~usi_engine.core.position.Position` does). The
floodgate bridge (:mod:`usi_engine.csa`) and the game records (:mod:`usi_engine.record`)
share it.

Example::

    >>> board = CsaBoard.initial()
    >>> board.usi_to_csa("7g7f")
    '+7776FU'
    >>> board.push_csa("+7776FU")
    '7g7f'
    >>> board.csa_to_usi("-3334FU")
    '3c3d'
"""
from __future__ import annotations

import re

__all__ = ["CsaBoard", "CsaPositionError", "PROMOTE", "UNPROMOTE", "KINDS", "HAND_KINDS",
           "SFEN_LETTER", "FROM_SFEN_LETTER", "FULL_SET"]

# --- pieces ---------------------------------------------------------------------------

PROMOTE = {"FU": "TO", "KY": "NY", "KE": "NK", "GI": "NG", "KA": "UM", "HI": "RY"}
UNPROMOTE = {v: k for k, v in PROMOTE.items()}
KINDS = ("FU", "KY", "KE", "GI", "KI", "KA", "HI", "OU") + tuple(UNPROMOTE)
HAND_KINDS = ("HI", "KA", "KI", "GI", "KE", "KY", "FU")
#: CSA kind -> SFEN letter (black's case); promoted kinds get a '+'.
SFEN_LETTER = {"FU": "P", "KY": "L", "KE": "N", "GI": "S", "KI": "G", "KA": "B", "HI": "R",
               "OU": "K"}
FROM_SFEN_LETTER = {v: k for k, v in SFEN_LETTER.items()}
#: Pieces of one kind in a full set (for ``00AL``).
FULL_SET = {"FU": 18, "KY": 4, "KE": 4, "GI": 4, "KI": 4, "KA": 2, "HI": 2, "OU": 2}

_USI_MOVE_RE = re.compile(r"^([1-9])([a-i])([1-9])([a-i])(\+?)$")
_USI_DROP_RE = re.compile(r"^([PLNSGBR])\*([1-9])([a-i])$")
_CSA_MOVE_RE = re.compile(r"^([+-])([0-9])([0-9])([1-9])([1-9])([A-Z]{2})$")
_RANKS = "abcdefghi"


class CsaPositionError(ValueError):
    """A CSA position (``PI``/``P1``..``P9``/``P+``/``P-`` lines) that cannot be read."""


def _in_zone(color: str, rank: int) -> bool:
    return rank <= 3 if color == "+" else rank >= 7


def _base(kind: str) -> str:
    return UNPROMOTE.get(kind, kind)


class CsaBoard:
    """Pieces on the board and in hand, and the side to move.

    Squares are ``(file, rank)`` pairs, 1..9 each, as in CSA (``77`` is file 7,
    rank 7, USI ``7g``); a piece is ``(color, kind)`` with color ``'+'`` (black) or
    ``'-'`` and a CSA kind (``'FU'`` .. ``'RY'``).
    """

    def __init__(self) -> None:
        self.squares: dict[tuple[int, int], tuple[str, str]] = {}
        self.hands: dict[str, dict[str, int]] = {"+": {}, "-": {}}
        self.turn = "+"

    @classmethod
    def initial(cls) -> "CsaBoard":
        """The initial position, black to move."""
        return cls.from_csa_lines(["PI", "+"])

    def copy(self) -> "CsaBoard":
        """An independent copy."""
        other = CsaBoard()
        other.squares = dict(self.squares)
        other.hands = {c: dict(h) for c, h in self.hands.items()}
        other.turn = self.turn
        return other

    # --- reading a CSA position ---------------------------------------------------

    @classmethod
    def from_csa_lines(cls, lines: list[str]) -> "CsaBoard":
        """Read ``PI`` / ``P1``..``P9`` / ``P+``/``P-`` lines and the side-to-move line.

        Raises :class:`CsaPositionError` naming the bad line.
        """
        board = cls()
        for line in lines:
            line = line.rstrip("\r\n")
            if not line or line.startswith("'"):
                continue
            try:
                board._read_line(line)
            except (ValueError, KeyError, IndexError) as exc:
                raise CsaPositionError(f"bad position line {line!r}: {exc}") from None
        if sum(1 for c, k in board.squares.values() if k == "OU") == 0:
            raise CsaPositionError("the position has no king")
        return board

    def _read_line(self, line: str) -> None:
        if line in ("+", "-"):
            self.turn = line
        elif line.startswith("PI"):
            self._read_initial(line[2:])
        elif len(line) >= 2 and line[0] == "P" and line[1] in "123456789":
            self._read_rank(int(line[1]), line[2:])
        elif line.startswith("P+") or line.startswith("P-"):
            self._read_pieces(line[1], line[2:])
        else:
            raise ValueError("not a position line")

    def _read_initial(self, removals: str) -> None:
        self.squares.clear()
        back = ("KY", "KE", "GI", "KI", "OU", "KI", "GI", "KE", "KY")
        for file in range(1, 10):
            self.squares[(file, 1)] = ("-", back[file - 1])
            self.squares[(file, 3)] = ("-", "FU")
            self.squares[(file, 7)] = ("+", "FU")
            self.squares[(file, 9)] = ("+", back[file - 1])
        self.squares[(8, 2)] = ("-", "HI")
        self.squares[(2, 2)] = ("-", "KA")
        self.squares[(2, 8)] = ("+", "HI")
        self.squares[(8, 8)] = ("+", "KA")
        if len(removals) % 4:
            raise ValueError("handicap removals come in groups of 4 characters (82HI)")
        for i in range(0, len(removals), 4):
            square = (int(removals[i]), int(removals[i + 1]))
            kind = removals[i + 2:i + 4]
            if self.squares.get(square, ("", ""))[1] != kind:
                raise ValueError(f"no {kind} on {removals[i:i + 2]} to remove")
            del self.squares[square]

    def _read_rank(self, rank: int, cells: str) -> None:
        cells = cells.ljust(27)
        if len(cells) > 27 and cells[27:].strip():
            raise ValueError("more than 9 squares")
        for index in range(9):
            cell = cells[3 * index:3 * index + 3]
            file = 9 - index
            if cell.strip() in ("*", ""):
                self.squares.pop((file, rank), None)
            elif cell[0] in "+-" and cell[1:] in KINDS:
                self.squares[(file, rank)] = (cell[0], cell[1:])
            else:
                raise ValueError(f"bad square {cell!r}")

    def _read_pieces(self, color: str, groups: str) -> None:
        if len(groups) % 4:
            raise ValueError("pieces come in groups of 4 characters (00KA, 55OU)")
        for i in range(0, len(groups), 4):
            file, rank, kind = int(groups[i]), int(groups[i + 1]), groups[i + 2:i + 4]
            if file == 0 and rank == 0:
                if kind == "AL":
                    self._all_to_hand(color)
                elif kind in HAND_KINDS:
                    self.hands[color][kind] = self.hands[color].get(kind, 0) + 1
                else:
                    raise ValueError(f"{kind} cannot be in hand")
            elif 1 <= file <= 9 and 1 <= rank <= 9 and kind in KINDS:
                self.squares[(file, rank)] = (color, kind)
            else:
                raise ValueError(f"bad piece {groups[i:i + 4]!r}")

    def _all_to_hand(self, color: str) -> None:
        used = {k: 0 for k in FULL_SET}
        for _, kind in self.squares.values():
            used[_base(kind)] += 1
        for hand in self.hands.values():
            for kind, count in hand.items():
                used[kind] += count
        for kind in HAND_KINDS:
            left = FULL_SET[kind] - used[kind]
            if left > 0:
                self.hands[color][kind] = self.hands[color].get(kind, 0) + left

    # --- writing -----------------------------------------------------------------

    def sfen(self, ply: int = 1) -> str:
        """The position as SFEN (``ply`` is the move number field)."""
        rows = []
        for rank in range(1, 10):
            row, empty = "", 0
            for file in range(9, 0, -1):
                piece = self.squares.get((file, rank))
                if piece is None:
                    empty += 1
                    continue
                if empty:
                    row, empty = row + str(empty), 0
                color, kind = piece
                letter = ("+" if kind in UNPROMOTE else "") + SFEN_LETTER[_base(kind)]
                row += letter if color == "+" else letter.lower()
            rows.append(row + (str(empty) if empty else ""))
        hand = ""
        for color in "+-":
            for kind in HAND_KINDS:
                count = self.hands[color].get(kind, 0)
                if count:
                    letter = SFEN_LETTER[kind] if color == "+" else SFEN_LETTER[kind].lower()
                    hand += (str(count) if count > 1 else "") + letter
        turn = "b" if self.turn == "+" else "w"
        return f"{'/'.join(rows)} {turn} {hand or '-'} {ply}"

    def csa_lines(self) -> list[str]:
        """The position as CSA ``P1``..``P9``, ``P+``/``P-`` and side-to-move lines."""
        lines = []
        for rank in range(1, 10):
            cells = []
            for file in range(9, 0, -1):
                piece = self.squares.get((file, rank))
                cells.append(" * " if piece is None else piece[0] + piece[1])
            lines.append(f"P{rank}" + "".join(cells))
        for color in "+-":
            hand = "".join(f"00{kind}" * self.hands[color].get(kind, 0) for kind in HAND_KINDS)
            if hand:
                lines.append(f"P{color}{hand}")
        lines.append(self.turn)
        return lines

    # --- moves -------------------------------------------------------------------

    def csa_to_usi(self, csa: str) -> str:
        """``+7776FU`` -> ``7g7f`` in this position (not played). ValueError if it
        cannot be a move here (wrong side, no such piece, bad promotion)."""
        m = _CSA_MOVE_RE.match(csa)
        if not m:
            raise ValueError(f"not a CSA move: {csa!r}")
        color, f1, r1, f2, r2, kind = m.groups()
        if color != self.turn:
            raise ValueError(f"{csa}: it is {self.turn}'s turn")
        if kind not in KINDS:
            raise ValueError(f"{csa}: unknown piece {kind}")
        to = f"{f2}{_RANKS[int(r2) - 1]}"
        if f1 == "0" and r1 == "0":
            if kind not in HAND_KINDS or self.hands[color].get(kind, 0) == 0:
                raise ValueError(f"{csa}: no {kind} in hand")
            if (int(f2), int(r2)) in self.squares:
                raise ValueError(f"{csa}: drop on an occupied square")
            return f"{SFEN_LETTER[kind]}*{to}"
        if f1 == "0" or r1 == "0":
            raise ValueError(f"{csa}: bad origin square")
        piece = self.squares.get((int(f1), int(r1)))
        if piece is None or piece[0] != color:
            raise ValueError(f"{csa}: no {color} piece on {f1}{r1}")
        target = self.squares.get((int(f2), int(r2)))
        if target is not None and target[0] == color:
            raise ValueError(f"{csa}: own piece on {f2}{r2}")
        if piece[1] == kind:
            promote = ""
        elif PROMOTE.get(piece[1]) == kind:
            if not _in_zone(color, int(r1)) and not _in_zone(color, int(r2)):
                raise ValueError(f"{csa}: promotion outside the enemy camp")
            promote = "+"
        else:
            raise ValueError(f"{csa}: the piece on {f1}{r1} is {piece[1]}, not {kind}")
        return f"{f1}{_RANKS[int(r1) - 1]}{to}{promote}"

    def usi_to_csa(self, usi: str) -> str:
        """``7g7f`` -> ``+7776FU`` in this position (not played). ValueError if it
        cannot be a move here."""
        color = self.turn
        m = _USI_DROP_RE.match(usi)
        if m:
            kind = FROM_SFEN_LETTER[m.group(1)]
            square = (int(m.group(2)), _RANKS.index(m.group(3)) + 1)
            if self.hands[color].get(kind, 0) == 0:
                raise ValueError(f"{usi}: no {kind} in hand")
            if square in self.squares:
                raise ValueError(f"{usi}: drop on an occupied square")
            return f"{color}00{square[0]}{square[1]}{kind}"
        m = _USI_MOVE_RE.match(usi)
        if not m:
            raise ValueError(f"not a USI move: {usi!r}")
        origin = (int(m.group(1)), _RANKS.index(m.group(2)) + 1)
        square = (int(m.group(3)), _RANKS.index(m.group(4)) + 1)
        piece = self.squares.get(origin)
        if piece is None or piece[0] != color:
            raise ValueError(f"{usi}: no {color} piece on {m.group(1)}{m.group(2)}")
        target = self.squares.get(square)
        if target is not None and target[0] == color:
            raise ValueError(f"{usi}: own piece on {m.group(3)}{m.group(4)}")
        kind = piece[1]
        if m.group(5):
            if kind not in PROMOTE:
                raise ValueError(f"{usi}: {kind} cannot promote")
            if not _in_zone(color, origin[1]) and not _in_zone(color, square[1]):
                raise ValueError(f"{usi}: promotion outside the enemy camp")
            kind = PROMOTE[kind]
        return f"{color}{origin[0]}{origin[1]}{square[0]}{square[1]}{kind}"

    def push_csa(self, csa: str) -> str:
        """Play a CSA move; returns it in USI. ValueError (board unchanged) if it cannot
        be a move here."""
        usi = self.csa_to_usi(csa)
        color, kind = csa[0], csa[5:7]
        to = (int(csa[3]), int(csa[4]))
        if csa[1:3] == "00":
            self.hands[color][kind] -= 1
        else:
            del self.squares[(int(csa[1]), int(csa[2]))]
        captured = self.squares.get(to)
        if captured is not None:
            base = _base(captured[1])
            if base != "OU":
                self.hands[color][base] = self.hands[color].get(base, 0) + 1
        self.squares[to] = (color, kind)
        self.turn = "-" if color == "+" else "+"
        return usi

    def push_usi(self, usi: str) -> str:
        """Play a USI move; returns it in CSA. ValueError (board unchanged) if it cannot
        be a move here."""
        csa = self.usi_to_csa(usi)
        self.push_csa(csa)
        return csa

    def pv_to_csa(self, usi_moves: list[str], limit: int = 32) -> list[str]:
        """A USI line from this position in CSA, up to the first move that cannot be
        played (or ``limit`` moves); the board is left unchanged."""
        board = self.copy()
        out = []
        for usi in usi_moves[:limit]:
            try:
                out.append(board.push_usi(usi))
            except ValueError:
                break
        return out
