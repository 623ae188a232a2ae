"""CSA server protocol 1.2.1: message parsing, the Game_Summary, positions and moves.

Pure Python, no I/O. The bridge (:mod:`usi_engine.csa.bridge`) uses it to understand the
server; the tests use it to script one.

* :class:`~usi_engine.notation.csa_board.CsaBoard` — the board that
  converts moves between CSA and USI and reads the summary's position; it does not check
  legality: the server does, and the bridge asks the engine's own
  :class:`~usi_engine.core.position.Position` when it wants to.
* :func:`parse_game_summary` — every field of ``BEGIN Game_Summary`` ... ``END
  Game_Summary`` into a :class:`GameSummary`, with the clocks as
  :class:`~usi_engine.csa.clock.TimeControl` per side.
* :func:`parse_move_line` — a move from the server (``-3334FU,T5``).
* :func:`floodgate_comment` — floodgate's ``'* <score> <pv>`` move comment.

Example::

    >>> parse_move_line("-3334FU,T5").move
    '-3334FU'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from usi_engine.csa.clock import TimeControl, parse_time_section
from usi_engine.notation.csa_board import CsaBoard, CsaPositionError
from usi_engine.notation.sfen import STARTPOS_SFEN

__all__ = [
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
    "MATE_SCORE",
]

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

class SummaryError(ValueError):
    """A Game_Summary (or a position in it) the bridge cannot play from."""


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
    try:
        board = CsaBoard.from_csa_lines(board_lines)
    except CsaPositionError as exc:
        raise SummaryError(str(exc)) from None
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
