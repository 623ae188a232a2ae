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


#: The bench positions: opening to endgame, both sides to move, a drop-heavy
#: middle game ("matsuri") and a short tsume. Changing this list changes the
#: bench signature, so only append with care.
BENCH_SFENS: tuple[str, ...] = (
    # the initial position and two openings
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "lnsgkgsnl/1r7/p1ppp1bpp/1p3pp2/7P1/2P6/PP1PPPP1P/1B3S1R1/LNSGKG1NL b - 9",
    "ln2kgsnl/1r1sg2b1/p1pp1p1pp/1p2p1p2/9/2PP3P1/PP2PPP1P/1B1K1S1R1/LNSG1G1NL b - 11",
    # middle games
    "ln2kg1nl/1r1sgs3/p1pp1p3/4p1pRp/4b4/1PPP2P1P/P1B1PPN2/3S1S3/LN1GKG2L w 2Pp 30",
    "ln1gkg3/1r1s1s2+B/ppppp1npp/6p2/5l1P1/2P6/PPNPPPP1P/3S1S1R1/+b2GKG1NL w Lp 30",
    "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1",
    "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    # late middle games and endgames
    "ln2k1s1l/3sg4/p1pp1p3/4p1p1p/9/2P3P1P/P1G1PPN2/5S3/L1rRKG2L w 2BGN3Psn2p 50",
    "ln2kl+R1l/3sg2+P1/p1pp1p3/4p1p1p/9/2P3PgP/P1n1PPN2/2+rPK1G2/4S3L w BG2SNPb2p 70",
    "ln1+B5/1r1s2S2/ppppp3p/6pk1/5Pn2/N8/3PPnP1P/1P1SKS3/2G2G2L w 2G2L2Prb3p 90",
    # a 3-ply tsume
    "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1",
)

#: Default bench depth: a few seconds for the whole list on one core.
BENCH_DEPTH = 5
#: Fixed table size so the node count does not depend on USI_Hash.
BENCH_HASH_MB = 16


def cmd_bench(args: argparse.Namespace) -> int:
    """Search every position of :data:`BENCH_SFENS` to a fixed depth.

    Deterministic: one thread, a fixed-size table cleared (``new_game``) before
    each position, no time limit, so the total node count is a signature of the
    search code. Last line: ``nodes N time_ms T nps X``.
    """
    from usi_engine.position import Position, move_to_usi
    from usi_engine.search import Searcher

    if args.depth < 1:
        print("error: bench depth must be >= 1 (0 would mean unlimited)", file=sys.stderr)
        return 2
    searcher = Searcher()
    searcher.set_hash(BENCH_HASH_MB)
    total_nodes = 0
    total_seconds = 0.0
    for number, sfen in enumerate(BENCH_SFENS, start=1):
        position = Position(sfen)
        searcher.new_game()
        start = time.perf_counter()
        result = searcher.search(position, depth=args.depth)
        seconds = time.perf_counter() - start
        total_nodes += result.nodes
        total_seconds += seconds
        best = move_to_usi(result.best) if result.best else "none"
        score = (f"mate {result.score_mate}" if result.score_mate is not None
                 else f"cp {result.score_cp}")
        print(f"position {number}/{len(BENCH_SFENS)} depth {result.depth} nodes {result.nodes} "
              f"time_ms {int(seconds * 1000)} score {score} bestmove {best}", flush=True)
    # Time only the searches: set-up and printing are not the engine's speed.
    print(_nodes_line(total_nodes, total_seconds))
    return 0


def read_tsume_suite(path: str) -> list[tuple[str, str, int | None]]:
    """[(name, sfen, published length or None)] from `name | sfen | length` lines; a
    line holding only an SFEN is accepted too ('#' starts a comment)."""
    problems = []
    for number, line in enumerate(open(path, encoding="utf-8"), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [part.strip() for part in line.split("|")]
        if len(parts) == 1:
            problems.append((f"line {number}", parts[0], None))
        else:
            length = parts[2] if len(parts) > 2 else "?"
            problems.append((parts[0], parts[1], int(length) if length.isdigit() else None))
    return problems


def cmd_mate(args: argparse.Namespace) -> int:
    """Solve one tsume (prints the USI `checkmate ...` line) or a suite (a progress line
    per problem and a summary)."""
    from usi_engine.mate import MateSolver
    from usi_engine.position import Position

    solver = MateSolver()
    solver.set_hash(args.hash)
    if args.suite is None:
        if not args.sfen:
            print("error: give an SFEN or --suite FILE", file=sys.stderr)
            return 2
        try:
            position = Position(" ".join(args.sfen))
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(solver.solve(position, time_ms=args.time_ms, published=not args.strict).usi())
        return 0
    try:
        problems = read_tsume_suite(args.suite)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    solved = exact = 0
    total_ms = total_nodes = 0
    width = max((len(name) for name, _, _ in problems), default=4)
    print(f"{'problem':<{width}}  result   plies  published  time_ms       nodes")
    for name, sfen, published in problems:
        try:
            position = Position(sfen)
        except ValueError as exc:
            print(f"{name:<{width}}  error: {exc}")
            continue
        solver.clear()
        result = solver.solve(position, time_ms=args.time_ms, published=not args.strict)
        plies = len(result.pv) if result.status == "mate" else 0
        solved += result.status == "mate"
        exact += result.status == "mate" and plies == published
        total_ms += result.time_ms
        total_nodes += result.nodes
        print(f"{name:<{width}}  {result.status:<7}  {plies or '-':>5}  "
              f"{published if published is not None else '?':>9}  {result.time_ms:>7}  "
              f"{result.nodes:>10}", flush=True)
    print(f"solved {solved}/{len(problems)}, published length matched {exact}, "
          f"time_ms {total_ms}, nodes {total_nodes}")
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
    mate = sub.add_parser("mate", help="solve a tsume: prints the USI checkmate line")
    mate.add_argument("sfen", nargs="*", help="the position (attacker to move)")
    mate.add_argument("--time-ms", type=int, default=None, help="time limit per problem")
    mate.add_argument("--suite", help="solve every problem of a file (name | sfen | length)")
    mate.add_argument("--hash", type=int, default=256, help="solver table size in MB")
    mate.add_argument("--strict", action="store_true",
                      help="count every defence, useless interpositions too (default: "
                           "as published tsume lengths, which pass over them)")
    mate.set_defaults(func=cmd_mate)
    bench = sub.add_parser("bench", help="fixed positions to a fixed depth (node count signature)")
    bench.add_argument("--depth", type=int, default=BENCH_DEPTH,
                       help=f"search depth per position (default {BENCH_DEPTH})")
    bench.set_defaults(func=cmd_bench)
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
    try:
        return args.func(args)
    except KeyboardInterrupt:  # Ctrl-C: the long C loops poll for it and stop at once
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
