"""``usi-engine book``: convert, merge, sort, think and build opening books."""
from __future__ import annotations

import argparse
from typing import Any

from usi_engine.cli.common import MAX_HASH_MB, fail, CommandParser, int_in, float_in


def cmd_book(args: argparse.Namespace) -> int:
    """Opening books (see :mod:`usi_engine.book.tools`)."""
    from usi_engine.book.tools import main_book
    if args.action is None:
        return fail("book needs an action: convert, merge, sort, think or from-records", "book")
    try:
        return main_book(args)
    except OSError as exc:
        if exc.filename is None:
            return fail(str(exc), "book")
        inputs = [str(path) for path in
                  [getattr(args, "input", None), *(getattr(args, "inputs", None) or [])]
                  if path is not None]
        verb = "cannot read" if str(exc.filename) in inputs else "cannot write"
        return fail(f"{verb} {exc.filename}: {exc.strerror or exc}", "book")
    except ValueError as exc:
        return fail(str(exc), "book")


def add_book_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``book`` sub-command's arguments."""
    p = sub.add_parser(
        "book", help="opening books: convert, merge, sort, think, from-records",
        description="Make and change opening books: YaneuraOu's text books (.db; any "
                    "name not ending in .bin) and Apery's binary books (.bin), chosen by "
                    "the file name. Progress on stderr when it is a terminal.")
    actions = p.add_subparsers(dest="action", title="actions", parser_class=CommandParser)
    convert = actions.add_parser(
        "convert", help=".db to .bin or .bin to .db",
        description="Convert a book. A .bin holds keys, not positions: reading one walks "
                    "the tree from the start position (or --root) through every legal "
                    "move, one ply past the book's positions.")
    convert.add_argument("input")
    convert.add_argument("output")
    convert.add_argument("--root", metavar="SFEN", help="where a .bin's tree starts")
    merge = actions.add_parser(
        "merge", help="merge books (counts summed, the deeper value kept)")
    merge.add_argument("inputs", nargs="+")
    merge.add_argument("--out", dest="output", required=True, metavar="FILE")
    sort = actions.add_parser(
        "sort", help="sort a text book for BookOnTheFly (in place unless --out)",
        description="Rewrite a text book sorted by SFEN (byte order), each position once "
                    "at its smallest ply, canonical hands, moves by count then value.")
    sort.add_argument("input")
    sort.add_argument("--out", dest="output", metavar="FILE")
    think = actions.add_parser(
        "think", help="search each position and write values and depths",
        description="Search each position of a book (.db/.bin), each position of the "
                    "first --plies plies of an opening file (lines 'startpos moves ...' or "
                    "'sfen ... moves ...'), or the start position (input 'startpos'), to "
                    "--depth with MultiPV --multipv, and write each line's move, reply, "
                    "value and depth to --out. With --expand-plies N, then search the "
                    "positions after every move the book would play (within BookEvalDiff "
                    "30 of the best, BookEvalBlackLimit 0, BookEvalWhiteLimit -140), "
                    "breadth first, up to ply N and --max-positions positions. Resumable: "
                    "positions already in --out at that depth are skipped; --out is saved "
                    "every --save-every seconds.")
    think.add_argument("input")
    think.add_argument("--out", dest="output", required=True, metavar="FILE")
    think.add_argument("--depth", type=int_in(1, 64), default=12,
                       help="search depth of each position (default 12)")
    think.add_argument("--multipv", type=int_in(1, 64), default=4,
                       help="lines searched and written for each position (default 4)")
    think.add_argument("--plies", type=int_in(0, 1000), default=16,
                       help="of an opening file: plies from each line's start (default 16)")
    think.add_argument("--expand-plies", type=int_in(0, 1000), default=0, metavar="N",
                       help="follow the book's playable moves up to ply N (default 0: no)")
    think.add_argument("--max-positions", type=int_in(1, 10**8), default=100000,
                       metavar="N", help="with --expand-plies: at most N positions "
                                         "(default 100000)")
    think.add_argument("--workers", type=int_in(1, 1024), default=1,
                       help="worker processes, one single-threaded search each (default 1)")
    think.add_argument("--hash", type=int_in(1, MAX_HASH_MB), default=64, metavar="MB",
                       help="table size per worker in MB (default 64)")
    think.add_argument("--eval-file", metavar="PATH", help="weights (default: those shipped)")
    think.add_argument("--save-every", type=float_in(1.0, 1e6), default=60.0, metavar="S",
                       help="seconds between saves of --out (default 60)")
    from usi_engine.cluster.arguments import add_ray_argument
    add_ray_argument(think, "a position")
    records = actions.add_parser(
        "from-records", help="a book of the moves played in games",
        description="Count each (position, move) of the games: USI 'position' lines "
                    "('[position] startpos|sfen ... moves ...', one game a line), or game "
                    "records (.kif/.kifu/.ki2/.csa/.jkf, main lines). Values and depths are "
                    "0 (set BookDepthLimit 0 to play such a book, or run book think on it).")
    records.add_argument("inputs", nargs="+")
    records.add_argument("--out", dest="output", required=True, metavar="FILE")
    records.add_argument("--winner-only", action="store_true",
                         help="only the winner's moves (games without a known winner "
                              "are skipped: a record's result, or a position line ending "
                              "in mate)")
    records.add_argument("--max-ply", type=int_in(1, 100000), default=40, metavar="N",
                         help="only moves played from positions of ply <= N (default 40)")
    p.set_defaults(func=cmd_book)
