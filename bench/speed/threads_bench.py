"""Lazy SMP scaling: nodes per second and time to a fixed depth with 1 and N threads
on the engine's bench positions, side by side, in one run.

    python -m bench.speed.threads_bench                    # 1 and 2 threads, 1 s a position
    python -m bench.speed.threads_bench --threads 1,2,4 --movetime 2000 --depth 12

Each position is searched from a fresh table (`new_game`) once per thread count:
first for --movetime ms (nodes per second, summed over the threads), then to
--depth (wall time to that depth; helper threads skip some depths, so they help the
main thread through the shared table). Figures are wall-clock: run it on an idle
machine, and compare the ratio column (N threads / 1 thread), not the raw rates.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from usi_engine.cli.bench import BENCH_SFENS
from usi_engine.core.position import Position
from usi_engine.search.searcher import Searcher


def measure(threads: int, movetime_ms: int, depth: int, hash_mb: int) -> tuple[float, float]:
    """(nodes per second over the positions, total seconds to `depth`)."""
    searcher = Searcher()
    searcher.set_hash(hash_mb)
    searcher.set_threads(threads)
    nodes = 0
    spent = 0.0
    to_depth = 0.0
    for sfen in BENCH_SFENS:
        searcher.new_game()
        start = time.perf_counter()
        result = searcher.search(Position(sfen), soft_ms=movetime_ms, hard_ms=movetime_ms)
        spent += time.perf_counter() - start
        nodes += result.nodes
        searcher.new_game()
        start = time.perf_counter()
        searcher.search(Position(sfen), depth=depth)
        to_depth += time.perf_counter() - start
    return nodes / spent, to_depth


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,2", help="thread counts, the first is the reference (1,2)")
    ap.add_argument("--movetime", type=int, default=1000, help="ms a position for nodes/s (1000)")
    ap.add_argument("--depth", type=int, default=11, help="depth for time-to-depth (11)")
    ap.add_argument("--hash", type=int, default=64, help="hash MB (64)")
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.threads.split(",")]
    print(f"# {len(BENCH_SFENS)} bench positions, {os.cpu_count()} logical CPUs, "
          f"load average {os.getloadavg()[0]:.2f}; movetime {args.movetime} ms, depth {args.depth}")
    print(f"{'threads':>7} {'nodes/s':>12} {'ratio':>6} {'s to depth':>11} {'speed-up':>9}")
    reference = None
    for n in counts:
        nps, seconds = measure(n, args.movetime, args.depth, args.hash)
        if reference is None:
            reference = (nps, seconds)
        print(f"{n:>7} {nps:>12,.0f} {nps / reference[0]:>6.2f} {seconds:>11.2f} "
              f"{reference[1] / seconds:>9.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
