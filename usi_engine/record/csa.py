"""CSA standard record format V2.2 (and the V2/V3 lines met in practice): several
games per file separated by ``/``, ``N+``/``N-`` names, ``$`` headers, ``PI``/``P1``..
``P9``/``P+``/``P-`` start positions, ``T`` times, ``'*`` comments (floodgate's
``'**`` evaluations among them), ``%`` terminations, and shogi-server's ``'summary``
and ``'$END_TIME`` comment lines."""
from __future__ import annotations

import re

from usi_engine.notation.csa_board import CsaBoard, CsaPositionError
from usi_engine.record.board import Game, board_from_sfen, handicap_of
from usi_engine.notation.sfen import STARTPOS_SFEN
from usi_engine.record.model import Record, RecordError, result_of

CSA_TERMINATIONS = {
    "TORYO": "resign", "CHUDAN": "interrupt", "SENNICHITE": "repetition_draw",
    "OUTE_SENNICHITE": "perpetual_check", "JISHOGI": "impass", "HIKIWAKE": "draw",
    "MAX_MOVES": "max_moves", "TSUMI": "mate", "FUZUMI": "no_mate", "TIME_UP": "timeout",
    "ILLEGAL_MOVE": "foul_lose", "KACHI": "entering_king", "ERROR": "error", "MATTA": None,
}
TERMINATION_CSA = {
    "resign": "TORYO", "interrupt": "CHUDAN", "repetition_draw": "SENNICHITE",
    "perpetual_check": "OUTE_SENNICHITE", "impass": "JISHOGI", "draw": "HIKIWAKE",
    "max_moves": "MAX_MOVES", "mate": "TSUMI", "no_mate": "FUZUMI", "timeout": "TIME_UP",
    "foul_lose": "ILLEGAL_MOVE", "entering_king": "KACHI", "error": "ERROR",
    "try": "KACHI", "win_by_default": "CHUDAN", "lose_by_default": "CHUDAN",
}
#: shogi-server's ``'summary:<type>:...`` types that say how a game ended.
SUMMARY_TYPES = {"toryo": "resign", "time up": "timeout", "kachi": "entering_king",
                 "illegal kachi": "foul_lose", "illegal move": "foul_lose",
                 "uchifuzume": "foul_lose", "oute_kaihimore": "foul_lose",
                 "oute_sennichite": "perpetual_check", "sennichite": "repetition_draw",
                 "max_moves": "max_moves", "abnormal": "interrupt"}
#: KIF header names of the CSA headers they match.
CSA_TO_KIF = {"SITE": "場所", "TIME_LIMIT": "持ち時間", "OPENING": "戦型", "NOTE": "備考",
              "TIME": "持ち時間"}
KIF_TO_CSA = {v: k for k, v in CSA_TO_KIF.items() if k != "TIME"}
_MOVE_RE = re.compile(r"^[+-][0-9]{4}[A-Z]{2}$")
_TIME_RE = re.compile(r"^T(-?[0-9]+(?:\.[0-9]+)?)$")


def split_games(text: str) -> list[tuple[int, list[str]]]:
    """The games of a CSA text: (first line number, lines) each."""
    games: list[tuple[int, list[str]]] = []
    current: list[str] = []
    first = 1
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() == "/":
            games.append((first, current))
            current, first = [], number + 1
        else:
            current.append(line)
    if any(line.strip() for line in current) or not games:
        games.append((first, current))
    return [(f, lines) for f, lines in games if any(line.strip() for line in lines)]


def read_csa(text: str, source: str | None = None) -> list[Record]:
    """Every game of a CSA text."""
    return [_read_game(lines, first, source) for first, lines in split_games(text)]


def _statements(lines: list[str], first: int):
    for offset, line in enumerate(lines):
        number = first + offset
        line = line.rstrip("\r\n")
        if line.startswith("'"):
            yield number, line
        else:
            for part in line.split(","):
                if part.strip():
                    yield number, part.strip()


def _read_game(lines: list[str], first: int, source: str | None) -> Record:
    record = Record(source=source or "")
    position_lines: list[str] = []
    position_line = None
    game: Game | None = None
    summary: str | None = None
    last_time_target = None          # "move" or "special"
    for number, statement in _statements(lines, first):
        head = statement[0]
        if head == "'":
            body = statement[1:]
            if body.startswith("*"):
                if record.moves:
                    previous = record.comments[-1]
                    record.comments[-1] = previous + "\n" + body[1:] if previous else body[1:]
                else:
                    record.comment = record.comment + "\n" + body[1:] if record.comment else body[1:]
            elif body.startswith("$END_TIME:"):
                record.end_time = body.split(":", 1)[1]
            elif body.startswith("summary:"):
                summary = body
                record.headers["summary"] = body[len("summary:"):]
            continue
        if game is None and (head == "P" or statement in ("+", "-")):
            position_lines.append(statement)
            position_line = position_line or number
            if statement in ("+", "-"):
                game = _start(record, position_lines, source, position_line)
            continue
        if head == "V":
            pass                                  # the format's version
        elif head == "N" and len(statement) >= 2 and statement[1] in "+-":
            if statement[1] == "+":
                record.black = statement[2:]
            else:
                record.white = statement[2:]
        elif head == "$":
            key, _, value = statement[1:].partition(":")
            if key == "EVENT":
                record.event = value
            elif key == "START_TIME":
                record.start_time = value
            elif key == "END_TIME":
                record.end_time = value
            else:
                record.headers[key] = value
        elif head in "+-" and _MOVE_RE.match(statement):
            if game is None:
                position_lines.append(statement[0])
                game = _start(record, position_lines or ["PI"], source, number)
            try:
                usi = game.board.csa_to_usi(statement)
            except ValueError as exc:
                raise RecordError(f"bad move {statement}: {exc}", source, number) from None
            game.push(usi, source, number, statement)
            record.moves.append(usi)
            record.times.append(None)
            record.comments.append("")
            last_time_target = "move"
        elif head == "T":
            match = _TIME_RE.match(statement)
            if not match:
                raise RecordError(f"bad time {statement!r}", source, number)
            if last_time_target == "move":
                value = float(match.group(1))
                record.times[-1] = int(value) if value.is_integer() else value
            last_time_target = None
        elif head == "%":
            word = statement[1:]
            if word in ("+ILLEGAL_ACTION", "-ILLEGAL_ACTION"):
                mover_color = game.turn if game else "+"
                record.termination = "foul_lose" if word[0] == mover_color else "foul_win"
            elif word in CSA_TERMINATIONS:
                record.termination = CSA_TERMINATIONS[word]
            else:
                raise RecordError(f"unknown termination {statement!r}", source, number)
            last_time_target = "special"
        else:
            raise RecordError(f"unknown line {statement!r}", source, number)
    if game is None:
        game = _start(record, position_lines + ["+"] if position_lines else ["PI", "+"],
                      source, position_line or first)
    mover = 0 if game.turn == "+" else 1
    if summary:
        _read_summary(record, summary)
    if record.result is None:
        record.result = result_of(record.termination, mover)
    return record


def _start(record: Record, lines: list[str], source, number) -> Game:
    try:
        board = CsaBoard.from_csa_lines(lines)
    except CsaPositionError as exc:
        raise RecordError(str(exc), source, number) from None
    record.start_sfen = board.sfen()
    record.handicap = handicap_of(record.start_sfen)
    return Game(record.start_sfen, source, number)


def _read_summary(record: Record, summary: str) -> None:
    """shogi-server's ``'summary:toryo:alice win:bob lose``."""
    parts = summary.split(":")
    if len(parts) < 4:
        return
    kind = parts[1]
    if record.termination is None and kind in SUMMARY_TYPES:
        record.termination = SUMMARY_TYPES[kind]
    black_result = parts[2].rsplit(" ", 1)[-1]
    if black_result == "win":
        record.result = "black_win"
    elif black_result == "lose":
        record.result = "white_win"
    elif black_result == "draw":
        record.result = "draw"


def write_csa(record: Record) -> str:
    """One game as CSA V2.2 (join several with a ``/`` line)."""
    record.fill()
    lines = ["V2.2"]
    if record.black:
        lines.append("N+" + record.black)
    if record.white:
        lines.append("N-" + record.white)
    if record.event:
        lines.append("$EVENT:" + record.event)
    for key, value in record.headers.items():
        key = KIF_TO_CSA.get(key, key)
        if re.fullmatch(r"[A-Z_]+", key) and key not in ("EVENT", "START_TIME", "END_TIME"):
            lines.append(f"${key}:{value}")
    if record.start_time:
        lines.append("$START_TIME:" + record.start_time)
    if record.end_time:
        lines.append("$END_TIME:" + record.end_time)
    for comment in record.comment.splitlines() if record.comment else []:
        lines.append("'*" + comment)
    lines += _position_lines(record.start_sfen)
    game = Game(record.start_sfen)
    for usi, seconds, comment in zip(record.moves, record.times, record.comments):
        csa = game.board.usi_to_csa(usi)
        game.push(usi)
        lines.append(csa)
        if seconds is not None:
            lines.append(f"T{int(seconds) if float(seconds).is_integer() else seconds}")
        for c in comment.splitlines() if comment else []:
            lines.append("'*" + c)
    t = record.termination
    if t == "foul_win":
        lines.append("%" + ("-" if game.turn == "+" else "+") + "ILLEGAL_ACTION")
    elif t:
        lines.append("%" + TERMINATION_CSA[t])
    return "\n".join(lines) + "\n"


def _position_lines(sfen: str) -> list[str]:
    board = board_from_sfen(sfen)
    start = board_from_sfen(STARTPOS_SFEN)
    if not board.hands["+"] and not board.hands["-"]:
        removed = [sq for sq in start.squares if sq not in board.squares]
        if all(board.squares.get(sq) == start.squares.get(sq) for sq in board.squares) and \
                len(board.squares) + len(removed) == len(start.squares):
            return ["PI" + "".join(f"{f}{r}{start.squares[(f, r)][1]}"
                                   for f, r in sorted(removed, key=lambda s: (s[1], -s[0])))
                    , board.turn]
    return board.csa_lines()
