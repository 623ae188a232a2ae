"""USI ``position`` lines and bare SFENs: one game per line."""
from __future__ import annotations

from usi_engine.notation.position_line import read_position_text
from usi_engine.notation.sfen import STARTPOS_SFEN
from usi_engine.record.board import Game, handicap_of
from usi_engine.record.model import Record, RecordError


def split_position_line(line: str) -> tuple[str, list[str]] | None:
    """``(start SFEN, USI moves)`` of ``[position] startpos|sfen <sfen> [moves ...]``
    or a bare SFEN [``moves ...``]; None for a blank line or a comment (``#``, ``//``).
    ValueError saying what is wrong; the moves are not checked here.

    >>> split_position_line("position startpos moves 7g7f 3c3d")[1]
    ['7g7f', '3c3d']
    """
    parsed = read_position_text(line)
    if parsed is None:
        return None
    if parsed.sfen is None:
        return STARTPOS_SFEN, parsed.moves
    fields = parsed.sfen.split()
    return " ".join(fields + ["1"] if len(fields) == 3 else fields), parsed.moves


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
