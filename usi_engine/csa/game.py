"""One game of the CSA bridge: its state (board, clocks, what the engine is doing),
the report it ends with, its CSA record, and the bridge's logs."""

from __future__ import annotations

import itertools
import os
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TextIO

from usi_engine.csa.clock import Clock
from usi_engine.csa.protocol import RECORD_END_CODES, GameSummary
from usi_engine.notation.sfen import STARTPOS_SFEN
from usi_engine.usi.info import Info

__all__ = ["GameReport", "GameState", "BridgeLog", "mask_login", "safe_name", "write_record"]

_SAFE_NAME_RE = re.compile(r"[^A-Za-z0-9_.+@-]")
_LOG_NUMBERS = itertools.count(1)


@dataclass
class GameReport:
    """What one game came to, for the final summary."""
    game_id: str = ""
    my_color: str = ""
    result: str = ""          # WIN / LOSE / DRAW / CENSORED / CHUDAN / "disconnected" ...
    reasons: list[str] = field(default_factory=list)
    plies: int = 0
    our_moves: int = 0
    commented: int = 0
    min_margin_ms: int | None = None
    late_moves: int = 0
    ponders: int = 0
    ponder_hits: int = 0
    notes: list[str] = field(default_factory=list)
    record_path: str = ""

    def line(self) -> str:
        """One line for the console and the session log."""
        margin = "-" if self.min_margin_ms is None else f"{self.min_margin_ms} ms"
        reasons = " ".join("#" + r for r in self.reasons)
        notes = ("; " + "; ".join(self.notes)) if self.notes else ""
        if self.ponders:
            notes = f", ponder hits {self.ponder_hits}/{self.ponders}" + notes
        return (f"game {self.game_id or '?'} as {self.my_color or '?'}: {self.result} "
                f"{reasons} plies {self.plies}, our moves {self.our_moves}, with '* "
                f"comment {self.commented}, smallest margin left {margin}{notes}")


# --- logging ---------------------------------------------------------------------------------

def mask_login(text: str) -> str:
    """``text`` with the password field of a ``LOGIN id [game,]password`` command
    masked as ``*****`` (the game name stays); any other text unchanged.

    Only the LOGIN command carries the password, so only it is masked: replacing the
    password wherever it occurs would garble every other line (a password ``FU`` or
    ``1`` is part of move lines, ``x`` of most words)."""
    if not text.startswith("LOGIN "):
        return text
    fields = text.split(" ")
    words = [i for i, f in enumerate(fields) if f]
    if len(words) < 3:
        return text
    index = words[2]
    game, comma, _ = fields[index].partition(",")
    fields[index] = f"{game},*****" if comma else "*****"
    return " ".join(fields)


class BridgeLog:
    """Timestamped lines to the session log, the current game's log and (when
    ``echo``) stderr. The password field of a ``LOGIN`` command is masked
    (:func:`mask_login`); nothing else is changed."""

    def __init__(self, log_dir: str, secrets: list[str] | None = None, echo: bool = True,
                 stream: TextIO | None = None) -> None:
        self.log_dir = log_dir
        self.echo = echo
        self.stream = stream if stream is not None else sys.stderr
        self.lock = threading.Lock()
        os.makedirs(log_dir, exist_ok=True)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        self.session_path = os.path.join(
            log_dir, f"csa-session-{stamp}-{os.getpid()}-{next(_LOG_NUMBERS)}.log")
        self.session = open(self.session_path, "a", encoding="utf-8")
        self.game: TextIO | None = None
        self.game_path = ""

    def write(self, tag: str, text: str, console: bool = True, files: bool = True) -> None:
        """Log one line (``tag`` says where it came from or went); ``files`` False: on
        the console only (a line the files already hold)."""
        stamp = datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        line = f"{stamp} {tag:<13} {mask_login(text)}"
        with self.lock:
            for handle in (self.session, self.game) if files else ():
                if handle is not None:
                    handle.write(line + "\n")
                    handle.flush()
            if self.echo and console:
                try:
                    print(line, file=self.stream, flush=True)
                except (OSError, ValueError):
                    pass

    def open_game(self, game_id: str) -> str:
        """Start a per-game log; returns the file name stem used for the game."""
        self.close_game()
        stem = safe_name(game_id)
        self.game_path = os.path.join(self.log_dir, stem + ".log")
        self.game = open(self.game_path, "a", encoding="utf-8")
        return stem

    def close_game(self) -> None:
        """End the per-game log."""
        with self.lock:
            if self.game is not None:
                self.game.close()
                self.game = None

    def close(self) -> None:
        """Close every file."""
        self.close_game()
        with self.lock:
            self.session.close()


def safe_name(text: str) -> str:
    """A file name made of ``text`` (other characters become ``_``)."""
    return _SAFE_NAME_RE.sub("_", text)[:200] or "game"


# --- one game ------------------------------------------------------------------------------

class GameState:
    """The state of the game being played on the current connection."""

    def __init__(self, summary: GameSummary, margin_ms: int, inc_as_byoyomi: bool) -> None:
        self.summary = summary
        self.me = summary.my_color
        self.start_board = summary.start_board()
        self.board = summary.start_board()
        self.start_sfen = self.start_board.sfen()
        self.usi_moves: list[str] = []
        self.clock = Clock(summary.time)
        self.margin_ms = margin_ms
        self.inc_as_byoyomi = inc_as_byoyomi
        self.record_moves: list[str] = []
        self.report = GameReport(game_id=summary.game_id, my_color=self.me)
        self.started = False
        self.over = False
        self.start_time = datetime.now()
        self.turn_t0 = time.perf_counter()
        # the engine
        self.search = "idle"          # idle, thinking, pondering, stopping, done_early
        self.ponder_on: str | None = None
        self.ponder_next: str | None = None
        self.early_bestmove: str | None = None
        self.infos: dict[str, Info] = {}      # the last scored info line per first move
        self.last_info: Info | None = None
        self.stop_at: float | None = None
        self.resign_at: float | None = None
        self.stop_sent = False
        # our move on its way to the server
        self.pending: str | None = None
        self.pending_comment: str | None = None
        self.pending_margin: int | None = None
        self.sent_final = False        # %TORYO or %KACHI sent

    def position_command(self, extra: str | None = None) -> str:
        moves = self.usi_moves + ([extra] if extra else [])
        head = ("position startpos" if self.start_sfen == STARTPOS_SFEN
                else f"position sfen {self.start_sfen}")
        return head + (" moves " + " ".join(moves) if moves else "")

    def our_turn(self) -> bool:
        return self.board.turn == self.me

    def apply(self, csa: str, units: int | None, elapsed_ms: float) -> int:
        """Play a move the server confirmed; returns the units charged."""
        color = csa[0]
        usi = self.board.push_csa(csa)
        self.usi_moves.append(usi)
        charged = self.clock.charge(color, units, elapsed_ms)
        self.record_moves += [csa, f"T{charged}"]
        self.report.plies += 1
        return charged

    def legal(self, usi: str) -> str | None:
        """None if ``usi`` is legal here, else why not (engine's Position decides
        when it is available, the board alone otherwise)."""
        try:
            self.board.usi_to_csa(usi)
        except ValueError as exc:
            return str(exc)
        try:
            from usi_engine.core.position import Position
        except ImportError:
            return None
        try:
            position = Position(self.start_sfen)
            for move in self.usi_moves:
                position.push_usi(move)
            if not position.is_legal(position.parse_usi(usi)):
                return f"{usi} is not legal in this position"
        except ValueError as exc:
            return str(exc)
        return None


def write_record(game: GameState) -> None:
    """Write the game's CSA record (V2.2, floodgate's '** comments) to
    ``game.report.record_path``, atomically, exactly as played (it holds no
    password: nothing in it is masked)."""
    summary = game.summary
    lines = ["V2.2", f"N+{summary.names['+']}", f"N-{summary.names['-']}",
             f"$EVENT:{summary.game_id}",
             f"$START_TIME:{game.start_time.strftime('%Y/%m/%d %H:%M:%S')}"]
    for color in "+-":
        lines.append(f"'Time{color}:{summary.time[color].describe()}")
    if summary.max_moves:
        lines.append(f"'Max_Moves:{summary.max_moves}")
    lines += game.start_board.csa_lines()
    lines += game.record_moves
    for reason in game.report.reasons:
        code = RECORD_END_CODES.get(reason)
        if code and code not in lines[-1:]:
            lines.append(code)
    lines.append(f"'$END_TIME:{datetime.now().strftime('%Y/%m/%d %H:%M:%S')}")
    lines.append(f"'result: {' '.join('#' + r for r in game.report.reasons)} "
                 f"{game.report.result} (we were {game.me})".replace("  ", " "))
    text = "\n".join(lines) + "\n"
    path = game.report.record_path
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(path + ".tmp", path)
