"""``usi-engine book``: convert, merge, sort, think and build opening books (the
books themselves: :mod:`usi_engine.book`; what the commands do with them:
:mod:`usi_engine.book.tools`). Each ``cmd_*`` takes the parsed arguments and returns an
exit code; progress goes to stderr on a terminal; the last stdout line sums up what
was written."""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from usi_engine.cli.common import MAX_HASH_MB, fail, CommandParser, int_in, float_in, progress_note

if TYPE_CHECKING:
    from usi_engine.book.model import MemoryBook


def cmd_book(args: argparse.Namespace) -> int:
    """Opening books (see :mod:`usi_engine.book.tools`)."""
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


def cmd_convert(args: argparse.Namespace) -> int:
    """.db <-> .bin (or .db -> .db, sorted)."""
    from usi_engine.book import tools   # lazy: usi is answered first
    start = time.perf_counter()
    book = tools.read_any(args.input, root=args.root)
    progress_note("")
    written = tools.write_any(args.output, book)
    what = "entries" if tools.is_bin(args.output) else "positions"
    print(f"book {args.output}: {written} {what} from {len(book)} positions "
          f"seconds {time.perf_counter() - start:.1f}")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    """Several books into one (counts summed; the deeper entry's value)."""
    from usi_engine.book import tools, model   # lazy: usi is answered first
    merged = model.MemoryBook()
    for path in args.inputs:
        merged.merge(tools.normalised(tools.read_any(path)))
    progress_note("")
    written = tools.write_any(args.output, merged)
    print(f"book {args.output}: {written} {'entries' if tools.is_bin(args.output) else 'positions'} "
          f"from {len(args.inputs)} books")
    return 0


def cmd_sort(args: argparse.Namespace) -> int:
    """A text book sorted for binary search (canonical SFENs, one entry a position)."""
    from usi_engine.book import tools   # lazy: usi is answered first
    from usi_engine.book.textdb import read_db, write_db
    book = tools.normalised(read_db(args.input))
    written = write_db(args.output or args.input, book)
    print(f"book {args.output or args.input}: {written} positions sorted")
    return 0


def _roots(args: argparse.Namespace) -> tuple[MemoryBook, list[str]]:
    """The book to keep counts from (an input book, else empty) and the positions to
    think: a book's, the first --plies plies of an opening file's lines, or the start
    position for the input ``startpos``."""
    from usi_engine.book import tools, model   # lazy: usi is answered first
    from usi_engine.core.position import Position
    if args.input == "startpos":
        return model.MemoryBook(), [Position().sfen()]
    if args.input.lower().endswith((".db", ".bin")):
        source = tools.normalised(tools.read_any(args.input))
        return source, [sfen for sfen, _ in source.items()]
    return model.MemoryBook(), tools.opening_positions(args.input, args.plies)


def cmd_think(args: argparse.Namespace) -> int:
    """Search each position of a book (or of an opening file's first N plies) and
    write the lines with their values and depths; with --expand-plies, follow the moves
    the book would play, breadth first, to that ply; resumable."""
    from usi_engine.book import tools, model   # lazy: usi is answered first
    from usi_engine.notation.sfen import split_ply
    from usi_engine.book.textdb import read_db
    from usi_engine.cluster.arguments import check_ray
    problem = check_ray(getattr(args, "ray", None))
    if problem:
        raise ValueError(problem)
    start = time.perf_counter()
    source, positions = _roots(args)
    out = read_db(args.output) if os.path.exists(args.output) and not tools.is_bin(args.output) \
        else model.MemoryBook()
    stats = {"thought": 0, "skipped": 0}
    last_save = [time.perf_counter()]

    def store(sfen: str, moves: list[model.BookMove]) -> None:
        merged = {m.move: m for m in (source.find(sfen, ignore_ply=True) or [])}
        for old in out.find(sfen, ignore_ply=True) or []:
            merged.setdefault(old.move, old)
        for move in moves:
            known = merged.get(move.move)
            merged[move.move] = model.BookMove(move.move, move.ponder, move.value, move.depth,
                                         known.count if known is not None else 1)
        out.set_moves(sfen, model.sort_moves(merged.values()))

    def think_level(level: list[str], runner: Any) -> None:
        todo = []
        for sfen in level:
            done = out.find(sfen, ignore_ply=True)
            if done and all(m.depth >= args.depth for m in done):
                stats["skipped"] += 1
            else:
                todo.append(sfen)
        tasks = [(sfen, args.depth, args.multipv) for sfen in todo]
        answers = runner.map(tools.think_task, tasks)
        for finished, (sfen, moves) in enumerate(answers, start=1):
            store(sfen, moves)
            stats["thought"] += 1
            progress_note(f"book think: {finished}/{len(tasks)} positions of this level, "
                          f"{len(out)} in the book, {time.perf_counter() - start:.0f} s")
            if time.perf_counter() - last_save[0] > args.save_every:
                tools.write_any(args.output, out)
                last_save[0] = time.perf_counter()

    def run(runner: Any) -> None:
        seen = {split_ply(sfen)[0] for sfen in positions}
        level = sorted(positions)
        while level:
            think_level(level, runner)
            if not args.expand_plies:
                return
            following = []
            for sfen in level:
                for child in tools.children(sfen, out.find(sfen, ignore_ply=True) or [],
                                             args.expand_plies):
                    key = split_ply(child)[0]
                    if key not in seen and len(seen) < args.max_positions:
                        seen.add(key)
                        following.append(child)
            level = sorted(following)

    from usi_engine.cluster.runner import TaskRunner
    try:
        with TaskRunner(tools.think_worker_init, (args.hash, args.eval_file),
                        processes=args.workers if args.workers > 1 else 0,
                        ray_address=getattr(args, "ray", None)) as runner:
            run(runner)
    finally:
        progress_note("")
        tools.write_any(args.output, out)
    print(f"book {args.output}: thought {stats['thought']} positions, skipped "
          f"{stats['skipped']} already at depth {args.depth}, {len(out)} positions "
          f"seconds {time.perf_counter() - start:.1f}")
    return 0


def cmd_from_records(args: argparse.Namespace) -> int:
    """A book of the moves played in games: each (position, move) counted."""
    from usi_engine.book import tools, model   # lazy: usi is answered first
    from usi_engine.core.position import Position
    book = model.MemoryBook()
    games = used = 0
    for path in args.inputs:
        for sfen, moves, winner in tools.games_of_file(path):
            games += 1
            if args.winner_only and winner is None:
                continue
            try:
                position = Position(sfen)
            except ValueError as exc:
                print(f"usi-engine book: {path}: {exc}; game skipped", file=sys.stderr)
                continue
            used += 1
            for text in moves:
                if position.ply > args.max_ply:
                    break
                try:
                    move = position.parse_usi(text)
                except ValueError:
                    print(f"usi-engine book: {path}: illegal move {text} in "
                          f"sfen {position.sfen()}; rest of the game skipped", file=sys.stderr)
                    break
                if not args.winner_only or position.turn == winner:
                    book.add(position.sfen(), model.BookMove(text, model.NO_MOVE, 0, 0, 1), add_counts=True)
                position.push(move)
            progress_note(f"book from-records: {games} games")
    progress_note("")
    tools.fill_ponders(book)                 # ponder: the next position's most played move
    written = tools.write_any(args.output, book)
    print(f"book {args.output}: {written} {'entries' if tools.is_bin(args.output) else 'positions'} "
          f"from {used} of {games} games")
    return 0


def main_book(args: argparse.Namespace) -> int:
    """Dispatch ``usi-engine book <action>``."""
    return {"convert": cmd_convert, "merge": cmd_merge, "sort": cmd_sort,
            "think": cmd_think, "from-records": cmd_from_records}[args.action](args)
