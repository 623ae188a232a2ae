"""USI ``position`` lines and bare SFENs: one game per line."""
from __future__ import annotations

from usi_engine.record.board import Game, handicap_of
from usi_engine.record.model import STARTPOS_SFEN, Record, RecordError


def split_position_line(line: str) -> tuple[str, list[str]] | None:
    """``(start SFEN, USI moves)`` of ``[position] startpos|sfen <sfen> [moves ...]``
    or a bare SFEN [``moves ...``]; None for a blank line or a comment (``#``, ``//``).
    ValueError saying what is wrong; the moves are not checked here.

    >>> split_position_line("position startpos moves 7g7f 3c3d")[1]
    ['7g7f', '3c3d']
    """
    words = line.split()
    if not words or words[0].startswith(("#", "//")):
        return None
    if words[0] == "position":
        words = words[1:]
    if words and words[0] == "startpos":
        sfen, rest = STARTPOS_SFEN, words[1:]
    else:
        if words and words[0] == "sfen":
            words = words[1:]
        if len(words) < 3:
            raise ValueError(f"not a position: {line.strip()[:80]!r}")
        count = 4 if len(words) > 3 and words[3].isdigit() else 3
        sfen, rest = " ".join(words[:count]) + ("" if count == 4 else " 1"), words[count:]
    if rest and rest[0] != "moves":
        raise ValueError(f"expected 'moves' after the position, not {rest[0]!r}")
    return sfen, rest[1:]


def read_usi(text: str, source: str | None = None) -> list[Record]:
    """A game per non-empty line: ``position startpos moves ...``, ``position sfen S
    moves ...``, the same without ``position``, or a bare SFEN [``moves ...``]."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            parsed = split_position_line(line)
        except ValueError as exc:
            raise RecordError(str(exc), source, number) from None
        if parsed is None:
            continue
        sfen, moves = parsed
        game = Game(sfen, source, number)
        record = Record(start_sfen=game.sfen(), source=source or "")
        record.handicap = handicap_of(record.start_sfen)
        for move in moves:
            game.push(move, source, number)
            record.moves.append(move)
        record.fill()
        records.append(record)
    return records


def write_usi(record: Record) -> str:
    """``position startpos moves ...`` (or ``position sfen ...``) and a newline."""
    return "position " + record.usi() + "\n"
