"""CSA server protocol 1.2.1: message parsing, the Game_Summary, positions and moves.

Pure Python, no I/O. The bridge (:mod:`usi_engine.csa.bridge`) uses it to understand the
server; the tests use it to script one.

* :class:`CsaBoard` — a board that knows just enough shogi to convert moves between
  CSA (``+7776FU``) and USI (``7g7f``) notation, read a CSA position (``PI``, ``P1``..
  ``P9``, ``P+``/``P-`` lines, handicaps) and write it as SFEN or CSA. It does not
  check legality: the server does, and the bridge asks the engine's own
  :class:`~usi_engine.core.position.Position` when it wants to.
* :func:`parse_game_summary` — every field of ``BEGIN Game_Summary`` ... ``END
  Game_Summary`` into a :class:`GameSummary`, with the clocks as
  :class:`~usi_engine.csa.clock.TimeControl` per side.
* :func:`parse_move_line` — a move from the server (``-3334FU,T5``).
* :func:`floodgate_comment` — floodgate's ``'* <score> <pv>`` move comment.

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
from dataclasses import dataclass, field

from usi_engine.csa.clock import TimeControl, parse_time_section

__all__ = [
    "CsaBoard",
    "GameSummary",
    "MoveLine",
    "SummaryError",
    "parse_game_summary",
    "parse_move_line",
    "floodgate_comment",
    "mate_score",
    "RESULT_WORDS",
    "REASON_WORDS",
    "RECORD_END_CODES",
    "STARTPOS_SFEN",
    "MATE_SCORE",
]

STARTPOS_SFEN = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

#: Final words of a game (the line that ends it).
RESULT_WORDS = ("WIN", "LOSE", "DRAW", "CENSORED", "CHUDAN")
#: Words that say why it ended (sent just before the result).
REASON_WORDS = ("RESIGN", "TIME_UP", "ILLEGAL_MOVE", "SENNICHITE", "OUTE_SENNICHITE",
                "JISHOGI", "MAX_MOVES", "ILLEGAL_ACTION")
#: How a reason is written at the end of a CSA record.
RECORD_END_CODES = {"RESIGN": "%TORYO", "TIME_UP": "%TIME_UP", "ILLEGAL_MOVE": "%ILLEGAL_MOVE",
                    "SENNICHITE": "%SENNICHITE", "OUTE_SENNICHITE": "%ILLEGAL_MOVE",
                    "JISHOGI": "%KACHI", "MAX_MOVES": "%MAX_MOVES",
                    "ILLEGAL_ACTION": "%ILLEGAL_MOVE"}

#: A mate in n plies is reported to floodgate as +-(MATE_SCORE - n), as the reference
#: bridge of floodgate's own GPS client does.
MATE_SCORE = 30000

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


class SummaryError(ValueError):
    """A Game_Summary (or a position in it) the bridge cannot play from."""


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

        Raises :class:`SummaryError` naming the bad line.
        """
        board = cls()
        for line in lines:
            line = line.rstrip("\r\n")
            if not line or line.startswith("'"):
                continue
            try:
                board._read_line(line)
            except (ValueError, KeyError, IndexError) as exc:
                raise SummaryError(f"bad position line {line!r}: {exc}") from None
        if sum(1 for c, k in board.squares.values() if k == "OU") == 0:
            raise SummaryError("the position has no king")
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


# --- server lines ---------------------------------------------------------------------

@dataclass
class MoveLine:
    """A move as the server sends it: ``-3334FU,T5`` -> color ``-``, move ``-3334FU``,
    time 5 (in Time_Unit; None when the line has no ``,T`` field)."""
    move: str
    time: int | None
    extra: str = ""

    @property
    def color(self) -> str:
        """``'+'`` (black) or ``'-'`` (white)."""
        return self.move[0]


_MOVE_LINE_RE = re.compile(r"^([+-][0-9]{4}[A-Z]{2})(?:,T([0-9]+))?(,[^T].*)?$")


def parse_move_line(line: str) -> MoveLine | None:
    """A server move line, or None when the line is not one."""
    m = _MOVE_LINE_RE.match(line.strip())
    if not m:
        return None
    return MoveLine(m.group(1), int(m.group(2)) if m.group(2) is not None else None,
                    (m.group(3) or "")[1:])


# --- Game_Summary ----------------------------------------------------------------------

@dataclass
class GameSummary:
    """Everything a Game_Summary says. Times are per side (``time['+']``,
    ``time['-']``); ``initial_moves`` are the moves already played (a resumed game or
    a buoy) with their times; ``fields`` keeps every ``key:value`` line as sent."""
    game_id: str
    my_color: str
    to_move: str
    names: dict[str, str]
    time: dict[str, TimeControl]
    board: CsaBoard
    initial_moves: list[MoveLine] = field(default_factory=list)
    max_moves: int = 0
    protocol_version: str = ""
    protocol_mode: str = ""
    format: str = ""
    declaration: str = ""
    rematch_on_draw: bool = False
    fields: dict[str, str] = field(default_factory=dict)
    position_lines: list[str] = field(default_factory=list)

    def start_board(self) -> CsaBoard:
        """The position the initial moves start from (a copy)."""
        return self.board.copy()

    def current_board(self) -> CsaBoard:
        """The position after the initial moves (a copy)."""
        board = self.board.copy()
        for move in self.initial_moves:
            board.push_csa(move.move)
        return board


def parse_game_summary(lines: list[str]) -> GameSummary:
    """Read the lines from ``BEGIN Game_Summary`` to ``END Game_Summary`` (inclusive
    or not). Raises :class:`SummaryError` naming what is missing or wrong."""
    top: dict[str, str] = {}
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line in ("BEGIN Game_Summary", "END Game_Summary") or not line.strip():
            continue
        if line.startswith("BEGIN "):
            current = line[6:].strip()
            sections.setdefault(current, [])
            continue
        if line.startswith("END "):
            if line[4:].strip() != current:
                raise SummaryError(f"{line!r} does not close BEGIN {current}")
            current = None
            continue
        if current is not None:
            sections[current].append(line)
        elif ":" in line:
            key, value = line.split(":", 1)
            top[key.strip()] = value.strip()
        else:
            raise SummaryError(f"unexpected summary line {line!r}")
    if current is not None:
        raise SummaryError(f"BEGIN {current} is not closed")
    for key in ("Game_ID", "Your_Turn"):
        if not top.get(key):
            raise SummaryError(f"the summary has no {key}")
    my_color = top["Your_Turn"]
    if my_color not in ("+", "-"):
        raise SummaryError(f"Your_Turn must be + or -, not {my_color!r}")
    time = _summary_times(sections)
    position_lines = sections.get("Position", [])
    if not position_lines:
        raise SummaryError("the summary has no Position section")
    board_lines = [l for l in position_lines if not parse_move_line(l)]
    board = CsaBoard.from_csa_lines(board_lines)
    to_move = top.get("To_Move", board.turn)
    if to_move not in ("+", "-"):
        raise SummaryError(f"To_Move must be + or -, not {to_move!r}")
    moves = [m for m in (parse_move_line(l) for l in position_lines) if m]
    # The Position section's own "+"/"-" line is the side to move before the initial
    # moves; shogi-server's To_Move is the side to move after them. Without the
    # line, To_Move (with no initial moves) is the only source.
    if not any(l.strip() in ("+", "-") for l in board_lines) and not moves:
        board.turn = to_move
    summary = GameSummary(
        game_id=top["Game_ID"], my_color=my_color, to_move=to_move,
        names={"+": top.get("Name+", ""), "-": top.get("Name-", "")},
        time=time, board=board, initial_moves=moves,
        max_moves=_int_field(top, "Max_Moves", 0),
        protocol_version=top.get("Protocol_Version", ""),
        protocol_mode=top.get("Protocol_Mode", ""), format=top.get("Format", ""),
        declaration=top.get("Declaration", ""),
        rematch_on_draw=top.get("Rematch_On_Draw", "NO").upper() == "YES",
        fields=top, position_lines=position_lines)
    try:
        summary.current_board()
    except ValueError as exc:
        raise SummaryError(f"an initial move cannot be played: {exc}") from None
    return summary


def _int_field(fields: dict[str, str], key: str, default: int) -> int:
    value = fields.get(key)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise SummaryError(f"{key} must be an integer, not {value!r}") from None


def _summary_times(sections: dict[str, list[str]]) -> dict[str, TimeControl]:
    try:
        common = parse_time_section(sections.get("Time", []))
        return {color: parse_time_section(sections[f"Time{color}"], common)
                if f"Time{color}" in sections else common for color in "+-"}
    except ValueError as exc:
        raise SummaryError(f"bad Time section: {exc}") from None


# --- floodgate comments -----------------------------------------------------------------

def mate_score(plies: int | None, winning: bool) -> int:
    """Floodgate's value for a mate in ``plies`` (None: length unknown) for the side to
    move, winning or losing: +-(MATE_SCORE - plies)."""
    value = MATE_SCORE - (abs(plies) if plies is not None else 0)
    return value if winning else -value


def floodgate_comment(score_cp: int | None, mate: tuple[int | None, bool] | None,
                      pv_after_move: list[str], we_are_black: bool) -> str | None:
    """The ``'* <score> <pv>`` comment floodgate reads after a move.

    ``score_cp`` or ``mate`` (plies, winning) are from the mover's side, as USI gives
    them; floodgate wants the score from black's (sente's) side, as its reference
    clients send it (GPS's csa2usi, shogi-server's usiToCsa), so white's is negated.
    ``pv_after_move`` is the expected line after our move, already in CSA. None when
    there is no score.
    """
    if mate is not None:
        value = mate_score(mate[0], mate[1])
    elif score_cp is not None:
        value = score_cp
    else:
        return None
    if not we_are_black:
        value = -value
    return " ".join(["'*", str(value)] + pv_after_move)
