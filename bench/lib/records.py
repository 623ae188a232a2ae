"""Game records, one implementation each: shogiarena's game.db (read move by move, and
scored), the match core's JSON lines, and the replay of a mate line with cshogi."""
from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path


def usi_from_move16(m: int) -> str:
    """A move in shogiarena's 16-bit encoding (YaneuraOu's Move16) as USI text.

    >>> usi_from_move16((60 << 7) | 59)    # 7g7f: from square 60 (7g) to 59 (7f)
    '7g7f'
    """
    to, frm = m & 127, (m >> 7) & 127

    def square(s: int) -> str:
        return f"{s // 9 + 1}{chr(97 + s % 9)}"
    if m & (1 << 14):
        return "PLNSBRG"[frm - 1] + "*" + square(to)
    return square(frm) + square(to) + ("+" if m & (1 << 15) else "")


def recorded_moves(db: str | Path):
    """Each game of a shogiarena game.db, move by move up to a resignation or
    declaration: (game id, position before the move, mover's name, USI move, recorded
    score or None).  The position is the caller's to read before the next item; it is
    played on afterwards."""
    from usi_engine.core.position import Position
    con = sqlite3.connect(str(db))
    names = dict(con.execute("select id, player_name from player"))
    games = con.execute("select id, initial_position_sfen, black_player_id, "
                        "white_player_id from game").fetchall()
    for gid, sfen, black, white in games:
        pos = Position(sfen)
        black_first = pos.sfen().split()[1] == "b"
        moves = con.execute("select next_move, eval from game_move where game_id=? "
                            "order by ply", (gid,)).fetchall()
        for i, (m16, score) in enumerate(moves):
            if not m16 & (1 << 14) and (m16 & 127) == ((m16 >> 7) & 127):
                break           # resignation or declaration
            mover = names[black if (i % 2 == 0) == black_first else white]
            move = usi_from_move16(m16)
            yield gid, pos, mover, move, score
            pos.push_usi(move)


def game_db_scores(db: str | Path, player: str = "new") -> list[float]:
    """The per-game scores (1, 0.5, 0) of `player` in a shogiarena game.db."""
    con = sqlite3.connect(str(db))
    names = dict(con.execute("select id, player_name from player"))
    scores = []
    for result, black in con.execute("select game_result, black_player_id from game"):
        is_black = names[black] == player
        if result == "BLACK_WIN":
            scores.append(1.0 if is_black else 0.0)
        elif result == "WHITE_WIN":
            scores.append(0.0 if is_black else 1.0)
        else:
            scores.append(0.5)
    return scores


def start_sfen(record: dict) -> str:
    """The SFEN of the position a match record's moves start from ("startpos" or
    "sfen ..." in its `start`; the start position when there is none)."""
    from usi_engine.notation.sfen import STARTPOS_SFEN
    start = record.get("start") or "startpos"
    return STARTPOS_SFEN if start == "startpos" else start.removeprefix("sfen ").strip()


def _open_text(path: Path, mode: str):
    """A JSON-lines file, gzip-compressed when its name ends in ``.gz`` (the kept match
    records are: an append adds a gzip member, which every reader reads as one file)."""
    if path.suffix == ".gz":
        return gzip.open(path, mode + "t", encoding="utf-8")
    return path.open(mode, encoding="utf-8")


def load_jsonl(path: str | Path) -> list[dict]:
    """The records of a JSON-lines file (``.jsonl`` or ``.jsonl.gz``), in file order
    ([] when there is no file)."""
    path = Path(path)
    if not path.exists():
        return []
    with _open_text(path, "r") as f:
        return [json.loads(line) for line in f if line.strip()]


def append_jsonl(path: str | Path, record: dict) -> None:
    """Add one record at the end (``.gz``: compressed; a match appends a game at a time)."""
    with _open_text(Path(path), "a") as f:
        f.write(json.dumps(record) + "\n")


def replay_mate_with_cshogi(sfen: str, line: list[str]) -> str:
    """'' when the line (USI moves) is a mate by cshogi's rules alone: odd length, legal
    moves, every attacker move gives check, the last position is checkmate; else what
    is wrong.  Independent of usi_engine's move generator.  Needs cshogi."""
    import cshogi
    if len(line) % 2 == 0:
        return f"even length {len(line)}"
    board = cshogi.Board(sfen)
    for i, usi in enumerate(line):
        move = board.move_from_usi(usi)
        if not move or not board.is_legal(move):
            return f"ply {i + 1} {usi} is illegal"
        board.push(move)
        if i % 2 == 0 and not board.is_check():
            return f"ply {i + 1} {usi} does not give check"
    return "" if board.is_game_over() else "the last position is not mate"


def csa_record(start: str, moves: list[str], names: tuple[str, str], result: str,
               reason: str) -> str:
    """A game as CSA text (cshogi's exporter): start ``startpos`` or ``sfen ...``,
    result '1-0', '0-1' or '1/2'."""
    import io

    import cshogi
    from cshogi import CSA
    board = cshogi.Board() if start == "startpos" else cshogi.Board(start[5:])
    buf = io.StringIO()
    exporter = CSA.Exporter()
    exporter.f = buf
    exporter.info(board, names=list(names))
    for m in moves:
        exporter.move(board.move_from_usi(m))
        board.push_usi(m)
    if result == "1/2":
        exporter.endgame("%SENNICHITE" if "repetition" in reason else "%JISHOGI")
    elif "declaration" in reason:
        exporter.endgame("%KACHI")
    elif "illegal" in reason or "perpetual" in reason or "false" in reason:
        exporter.endgame("%ILLEGAL_MOVE")
    elif reason.startswith("time"):
        exporter.endgame("%TIME_UP")
    else:
        exporter.endgame("%TORYO")
    return buf.getvalue()
