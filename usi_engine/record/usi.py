"""USI ``position`` lines and bare SFENs: one game per line."""
from __future__ import annotations

from usi_engine.record.board import Game, handicap_of
from usi_engine.record.model import STARTPOS_SFEN, Record, RecordError


def read_usi(text: str, source: str | None = None) -> list[Record]:
    """A game per non-empty line: ``position startpos moves ...``, ``position sfen S
    moves ...``, the same without ``position``, or a bare SFEN [``moves ...``]."""
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "position":
            words = words[1:]
        if words and words[0] == "startpos":
            sfen, rest = STARTPOS_SFEN, words[1:]
        else:
            if words and words[0] == "sfen":
                words = words[1:]
            if len(words) < 3:
                raise RecordError(f"not a position: {line.strip()!r}", source, number)
            count = 4 if len(words) > 3 and words[3].isdigit() else 3
            sfen, rest = " ".join(words[:count]) + ("" if count == 4 else " 1"), words[count:]
        if rest and rest[0] != "moves":
            raise RecordError(f"expected 'moves' after the position, not {rest[0]!r}",
                              source, number)
        game = Game(sfen, source, number)
        record = Record(start_sfen=game.sfen(), source=source or "")
        record.handicap = handicap_of(record.start_sfen)
        for move in rest[1:]:
            game.push(move, source, number)
            record.moves.append(move)
        record.fill()
        records.append(record)
    return records


def write_usi(record: Record) -> str:
    """``position startpos moves ...`` (or ``position sfen ...``) and a newline."""
    return "position " + record.usi() + "\n"
