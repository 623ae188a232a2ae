"""Search speed with each evaluation, side by side: the hand-set evaluation, the shipped
king-piece network (`kpnn.bin`, square head, 32 wide) and the layered NNUE-style head at
several accumulator widths, each with the AVX2 kernels and with the portable C ones.

    python -m bench.speed.eval_speed                  # bench positions to depth 9
    python -m bench.speed.eval_speed --depth 11 --widths 128,256

The layered networks here have random weights (seeded), so they search other trees than
the trained ones would: compare nodes per second, not node counts. Each line is one
configuration over `usi-engine bench`'s 12 positions, one thread, a 16 MB table cleared
before each position; "x kpnn" is its speed against the shipped network's with the same
kernels. Evaluations per second from scratch (`Network.evaluate`, which also parses the
SFEN) show the cost of a refresh.
"""
from __future__ import annotations

import argparse
import time

from usi_engine.cli.bench import BENCH_HASH_MB, BENCH_SFENS
from usi_engine.core.position import Position
from usi_engine.eval import kp
from usi_engine.eval import weights as eval_weights
from usi_engine.eval.loader import shipped_network
from usi_engine.search.searcher import Searcher


def search_speed(network: kp.Network | None, depth: int) -> tuple[int, float]:
    """(nodes, seconds) over the bench positions, as `usi-engine bench` searches them."""
    searcher = Searcher()
    searcher.set_evaluation(network)
    searcher.set_hash(BENCH_HASH_MB)
    nodes, seconds = 0, 0.0
    for sfen in BENCH_SFENS:
        searcher.new_game()
        start = time.perf_counter()
        nodes += searcher.search(Position(sfen), depth=depth).nodes
        seconds += time.perf_counter() - start
    return nodes, seconds


def evaluations_per_second(network: kp.Network, rounds: int = 200) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        for sfen in BENCH_SFENS:
            network.evaluate(sfen)
    return rounds * len(BENCH_SFENS) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=9)
    parser.add_argument("--widths", default="64,128,256",
                        help="accumulator widths of the layered head (multiples of 32)")
    args = parser.parse_args(argv)
    configurations: list[tuple[str, kp.Network | None]] = [("hand-set", None),
                                                           ("kpnn (square, 32)", shipped_network())]
    for width in (int(w) for w in args.widths.split(",")):
        configurations.append((f"layered {width}", eval_weights.random_layered(width).network()))
    kernels = ["avx2", "portable"] if kp.use_avx2(True) == "avx2" else ["portable"]
    print(f"depth {args.depth}, {len(BENCH_SFENS)} positions, one thread")
    print(f"{'evaluation':<20} {'kernels':<9} {'nodes':>10} {'nps':>10} {'x kpnn':>7} {'evals/s':>9}")
    for kernel in kernels:
        kp.use_avx2(kernel == "avx2")
        base = None
        for name, network in configurations:
            nodes, seconds = search_speed(network, args.depth)
            nps = nodes / seconds
            if network is not None and network.head == "square":
                base = nps
            ratio = f"{nps / base:.2f}" if base else ""
            evals = f"{evaluations_per_second(network):,.0f}" if network is not None else ""
            print(f"{name:<20} {kernel:<9} {nodes:>10,} {nps:>10,.0f} {ratio:>7} {evals:>9}",
                  flush=True)
    kp.use_avx2(True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
