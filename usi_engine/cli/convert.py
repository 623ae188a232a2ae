"""``usi-engine convert``: game records from one notation to another."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from usi_engine.cli.common import fail


def cmd_convert(args: argparse.Namespace) -> int:
    """Convert a game record (see :mod:`usi_engine.record`)."""
    from usi_engine.record import RecordError, encode_record, read_record, write_records
    try:
        records = read_record(sys.stdin.read() if args.input == "-" else Path(args.input),
                              format=args.from_format)
        text = write_records(records, args.to)
    except RecordError as exc:
        return fail(str(exc), "convert")
    except OSError as exc:
        return fail(f"cannot read {args.input}: {exc.strerror or exc}", "convert")
    if args.output:
        try:
            Path(args.output).write_bytes(encode_record(text, args.output))
        except OSError as exc:
            return fail(f"cannot write {args.output}: {exc.strerror or exc}", "convert")
    else:
        sys.stdout.write(text)
    return 0


def add_convert_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``convert`` sub-command: game records from one format to another."""
    convert = sub.add_parser(
        "convert", help="convert game records (KIF, KI2, CSA, JKF, USI)",
        description="Read a game record (KIF/KIFU, KI2, CSA, JKF, or USI position lines; "
                    "the format from the extension or the text, CP932 or UTF-8) and write "
                    "it in another format: to standard output, or to OUT (.kif/.ki2/.csa "
                    "in CP932, others in UTF-8). Every move is checked for legality; a bad "
                    "record gives one line naming the file and line, and exit code 2. "
                    "'usi' writes one 'position ...' line per game; a CSA file's games are "
                    "written one after another.")
    convert.add_argument("input", metavar="IN", help="the record file ('-': standard input)")
    convert.add_argument("--to", required=True, choices=("usi", "kif", "ki2", "csa", "jkf"),
                         help="the format to write")
    convert.add_argument("--from", dest="from_format",
                         choices=("usi", "kif", "ki2", "csa", "jkf"),
                         help="the input's format (default: from its extension or text)")
    convert.add_argument("-o", "--output", metavar="OUT", help="write to this file")
    convert.set_defaults(func=cmd_convert)
