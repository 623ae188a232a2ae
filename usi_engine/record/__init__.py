"""Game records: read and write KIF/KIFU, KI2, CSA, JKF and USI ``position`` lines.

>>> from usi_engine.record import read_record, write_record
>>> [game] = read_record("position startpos moves 7g7f 3c3d", format="usi")
>>> print(write_record(game, "csa").splitlines()[-2:])
['+7776FU', '-3334FU']

`read_record(path_or_text, format=None)` returns a list of `Record` (a CSA file may
hold several games); `write_record(record, format)` returns text.  Every move is
checked for legality with `usi_engine.core.position.Position`; anything that cannot
be read raises `RecordError` naming the file, the line and what was wrong.
"""
from usi_engine.record.io import (EXTENSIONS, FORMATS, decode, encode_record, guess_format,
                                  read_record, write_record, write_records)
from usi_engine.record.model import (RESULTS, TERMINATIONS, Record, RecordError, Variation,
                                     result_of)
from usi_engine.record.board import HANDICAPS, handicap_of

__all__ = ["Record", "Variation", "RecordError", "read_record", "write_record",
           "write_records", "guess_format", "decode", "encode_record", "FORMATS",
           "EXTENSIONS", "TERMINATIONS", "RESULTS", "HANDICAPS", "handicap_of", "result_of"]
