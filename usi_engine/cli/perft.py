"""``usi-engine perft``: count the positions DEPTH plies ahead."""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from usi_engine.cli.common import fail, progress_note, nodes_line, int_in


#: The deepest perft the core takes.
MAX_PERFT_DEPTH = 30
#: perft from this depth up shows its progress (one root move at a time) on a terminal.
PERFT_PROGRESS_DEPTH = 7


def cmd_perft(args: argparse.Namespace) -> int:
    from usi_engine.core.position import Position, STARTPOS_SFEN, move_to_usi
    try:
        pos = Position(args.sfen or STARTPOS_SFEN)
    except ValueError as exc:
        return fail(str(exc))
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        total = 0
        for usi, count in sorted(pos.divide(args.depth).items()):
            print(f"{usi}: {count}")
            total += count
    elif args.depth >= PERFT_PROGRESS_DEPTH and sys.stderr.isatty():
        # The same count, a root move at a time, so a long run shows how far it is.
        total = 0
        moves = pos.legal_moves()
        for number, move in enumerate(moves, start=1):
            progress_note(f"perft {args.depth}: move {number}/{len(moves)} "
                      f"({move_to_usi(move)}), {total} nodes so far")
            pos.push(move)
            total += pos.perft(args.depth - 1)
            pos.pop()
        progress_note("")
    else:
        total = pos.perft(args.depth)
    print(nodes_line(total, time.perf_counter() - start))
    return 0


def add_perft_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``perft`` command's arguments."""
    perft = sub.add_parser(
        "perft", help="count leaf positions (legal moves only)",
        description="Count the positions DEPTH plies ahead (legal moves only). Last line: "
                    "nodes N time_ms T nps X. From depth 7 on a terminal, progress is shown "
                    "on stderr.")
    perft.add_argument("depth", type=int_in(0, MAX_PERFT_DEPTH),
                       help=f"plies to look ahead, 0 to {MAX_PERFT_DEPTH} (5 takes about "
                            "0.2 s from the start position, each ply about 25 times more)")
    perft.add_argument("--sfen", help="start from this SFEN (or 'startpos moves ...') "
                                      "instead of the initial position")
    perft.add_argument("--divide", action="store_true", help="print the count below each move")
    perft.set_defaults(func=cmd_perft)

