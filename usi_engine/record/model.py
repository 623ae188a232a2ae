"""The game record: `Record`, its branches (`Variation`), `RecordError`, and how a
game ended (`TERMINATIONS`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from usi_engine.notation.sfen import STARTPOS_SFEN

#: How a game ended, as `Record.termination` (None: the record just stops), and who
#: wins: "mover" (the side to move after the last move), "other" (the side that made
#: the last move), "draw", or None (no result).
TERMINATIONS = {
    "resign": "other",           # 投了 / %TORYO: the side to move resigned
    "interrupt": None,           # 中断 / %CHUDAN
    "repetition_draw": "draw",   # 千日手 / %SENNICHITE
    "perpetual_check": "mover",  # %OUTE_SENNICHITE: the side that kept checking loses
    "impass": "draw",            # 持将棋 / %JISHOGI
    "draw": "draw",              # 引き分け / %HIKIWAKE
    "max_moves": "draw",         # 最大手数 / %MAX_MOVES
    "mate": "other",             # 詰み / %TSUMI: the side to move is mated
    "no_mate": None,             # 不詰 / %FUZUMI
    "timeout": "other",          # 切れ負け / %TIME_UP: the side to move lost on time
    "foul_win": "mover",         # 反則勝ち: the last move was illegal
    "foul_lose": "other",        # 反則負け / %ILLEGAL_MOVE: the side to move fouled
    "entering_king": "mover",    # 入玉勝ち / %KACHI: the side to move declared
    "try": "mover",              # トライ
    "win_by_default": "mover",   # 不戦勝
    "lose_by_default": "other",  # 不戦敗
    "error": None,               # %ERROR
}
RESULTS = ("black_win", "white_win", "draw")


class RecordError(ValueError):
    """A record that cannot be read or written: says which file, which line, and what
    was wrong (``game.kif, line 12: illegal move ７六歩(77) ...``)."""

    def __init__(self, message: str, source: str | None = None, line: int | None = None):
        self.reason = message
        self.source = source
        self.line = line
        where = ", ".join(part for part in (source or "", f"line {line}" if line else "") if part)
        super().__init__(f"{where}: {message}" if where else message)


@dataclass
class Variation:
    """An alternative line: its first move replaces move number `ply` (1-based, as
    KIF's ``変化：N手``) of the line that holds it.  Its own `variations` branch off
    its moves (their `ply` counts from the game's start too)."""
    ply: int
    moves: list[str] = field(default_factory=list)
    times: list[float | None] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    termination: str | None = None
    variations: list["Variation"] = field(default_factory=list)


@dataclass
class Record:
    """One game.

    `start_sfen` is the position before the first move; `moves` are USI strings, each
    legal in turn; `times[i]` is the time spent on `moves[i]` in seconds (None:
    unknown); `comments[i]` the comment after `moves[i]` ("" none) and `comment` the
    one before the first move.  `termination` is how the game ended (a key of
    `TERMINATIONS`, or None), `result` "black_win", "white_win", "draw" or None.
    `handicap` is the handicap's Japanese name (``香落ち``; ``平手`` for the standard
    start) or None for any other start position.  `headers` keeps every other header
    as written (KIF ``棋戦``, CSA ``$SITE`` ...).  `variations` are the branches (KIF,
    KI2 and JKF read and write them; CSA and USI keep the main line only).
    """
    start_sfen: str = STARTPOS_SFEN
    moves: list[str] = field(default_factory=list)
    times: list[float | None] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    comment: str = ""
    black: str = ""
    white: str = ""
    start_time: str = ""
    end_time: str = ""
    event: str = ""
    termination: str | None = None
    result: str | None = None
    handicap: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    variations: list[Variation] = field(default_factory=list)
    source: str = ""

    def __post_init__(self) -> None:
        self.fill()

    def fill(self) -> None:
        """Pad `times` and `comments` to the length of `moves`."""
        for name, empty in (("times", None), ("comments", "")):
            values = getattr(self, name)
            if len(values) < len(self.moves):
                values.extend([empty] * (len(self.moves) - len(values)))

    def usi(self) -> str:
        """The game as the text after USI's ``position``:
        ``startpos moves ...`` or ``sfen <SFEN> moves ...``."""
        text = ("startpos" if _same_position(self.start_sfen, STARTPOS_SFEN)
                else "sfen " + self.start_sfen)
        return text + (" moves " + " ".join(self.moves) if self.moves else "")

    @property
    def mover_at_end(self) -> int:
        """0 (black) or 1 (white): the side to move after the last move."""
        return (start_turn(self.start_sfen) + len(self.moves)) % 2


def start_turn(sfen: str) -> int:
    """0 when black moves first in this SFEN, 1 for white."""
    parts = sfen.split()
    return 1 if len(parts) > 1 and parts[1] == "w" else 0


def _same_position(a: str, b: str) -> bool:
    return a.split()[:3] == b.split()[:3]


def result_of(termination: str | None, mover: int) -> str | None:
    """The result a termination gives, `mover` being the side to move at the end."""
    who = TERMINATIONS.get(termination) if termination else None
    if who == "draw":
        return "draw"
    if who is None:
        return None
    winner = mover if who == "mover" else 1 - mover
    return "black_win" if winner == 0 else "white_win"
