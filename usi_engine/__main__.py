"""Command line: `usi-engine` speaks USI on stdin/stdout; sub-commands for perft,
bench and tsume solving.

    usi-engine                                   # the USI loop
    usi-engine perft 5 [--sfen SFEN] [--divide]  # last line: nodes N time_ms T nps X
    usi-engine bench [--depth D]                 # last line: nodes N time_ms T nps X
    usi-engine mate SFEN [--time-ms T]           # one line, as USI `checkmate ...`
"""
from __future__ import annotations

import argparse
import sys
import time


def _nodes_line(nodes: int, seconds: float) -> str:
    ms = int(seconds * 1000)
    return f"nodes {nodes} time_ms {ms} nps {int(nodes / seconds) if seconds > 0 else 0}"


def cmd_perft(args: argparse.Namespace) -> int:
    from usi_engine.position import Position, STARTPOS_SFEN
    try:
        pos = Position(args.sfen or STARTPOS_SFEN)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        total = 0
        for move, count in sorted(pos.divide(args.depth).items()):
            print(f"{move}: {count}")
            total += count
    else:
        total = pos.perft(args.depth)
    print(_nodes_line(total, time.perf_counter() - start))
    return 0


def cmd_usi(_args: argparse.Namespace) -> int:
    from usi_engine.usi import main as usi_main
    return usi_main()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="usi-engine", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")
    perft = sub.add_parser("perft", help="count leaf positions (legal moves only)")
    perft.add_argument("depth", type=int)
    perft.add_argument("--sfen", help="start from this SFEN instead of the initial position")
    perft.add_argument("--divide", action="store_true", help="print the count below each move")
    perft.set_defaults(func=cmd_perft)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        return cmd_usi(argparse.Namespace())
    args = build_parser().parse_args(argv)
    if args.command is None:
        return cmd_usi(args)
    if getattr(args, "depth", 0) < 0:
        print("error: depth must be >= 0", file=sys.stderr)
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
