"""``usi-engine bench``: the fixed positions to a fixed depth; its node count is the
search's signature (tests/cli/test_bench_signature.py)."""
from __future__ import annotations

import argparse
import time
from typing import Any

from usi_engine.cli.common import fail, nodes_line, int_in


MAX_BENCH_DEPTH = 100


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
    from usi_engine.eval.loader import EvalLoader, load_network
    from usi_engine.eval.weights import WeightFileError
    from usi_engine.core.position import Position, move_to_usi
    from usi_engine.search.searcher import Searcher

    if args.eval_file is not None and args.eval != "learned":
        return fail(f"--eval-file goes with --eval learned, not with --eval {args.eval}")
    loader = EvalLoader()
    loader.apply(args.eval, "", "")       # the hand-written weights, or the shipped ones
    network = loader.network
    if args.eval_file is not None:
        try:
            network = load_network(args.eval_file)
        except WeightFileError as exc:    # the weights asked for, or an error: no fallback
            return fail(f"--eval-file {args.eval_file}: {exc}")
    searcher = Searcher()
    searcher.set_evaluation(network)
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
    print(nodes_line(total_nodes, total_seconds))
    return 0


def add_bench_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``bench`` command's arguments."""
    bench = sub.add_parser(
        "bench", help="fixed positions to a fixed depth (node count signature)",
        description="Search the fixed bench positions to a fixed depth with a 16 MB table. "
                    "Last line: nodes N time_ms T nps X; N is the same for the same code.")
    bench.add_argument("--depth", type=int_in(1, MAX_BENCH_DEPTH), default=BENCH_DEPTH,
                       help=f"search depth per position, 1 to {MAX_BENCH_DEPTH} "
                            f"(default {BENCH_DEPTH})")
    bench.add_argument("--eval", choices=("learned", "hand"), default="learned",
                       help="evaluation: learned (the EvalFile weights, default) or hand")
    bench.add_argument("--eval-file", metavar="PATH",
                       help="weights for --eval learned (default: those shipped)")
    bench.set_defaults(func=cmd_bench)

