"""The two searches side by side at the same evaluation: ours with ``EvalType material``
against YaneuraOu's material edition (piece values only on both sides), each position
searched to a depth by both, one thread, no book: nodes and time at the end of each
iteration, the effective branching factor (nodes at depth d over nodes at d-1, geometric
mean over the positions), and, with --movetime, the depth each reaches in that time.

    python -m bench.strength.search_profile --depth 14            # the bench positions
    python -m bench.strength.search_profile --movetime 300        # depth reached in 300 ms
    python -m bench.strength.search_profile --positions FILE      # `name | sfen` lines

Where YaneuraOu needs fewer nodes for a depth, its pruning and reductions cut more of
the tree; where it reaches deeper in the same time, that and its speed together. The
depths are each engine's own count (both Stockfish-style iterative deepening, so close,
not equal). YaneuraOu is looked for at ~/.cache/usi-peers/yaneuraou-material
(../shared/tools/setup-peers.sh builds it).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from bench.lib.engines import YO_DEFAULT
from bench.lib.suites import read_positions
from usi_engine.usi.client import UsiClient
from usi_engine.usi.info import parse_info

REPO = Path(__file__).resolve().parents[2]


def engines() -> dict[str, tuple[list[str], dict[str, object], str | None]]:
    """name: (command, options, working folder)."""
    common = {"Threads": 1, "USI_Hash": 64, "BookFile": "no_book", "NetworkDelay": 0,
              "NetworkDelay2": 0, "MultiPV": 1, "PvInterval": 0}
    return {
        "ours (material)": ([sys.executable, "-m", "usi_engine"],
                            {**common, "EvalType": "material"}, str(REPO)),
        "YaneuraOu (material)": ([str(YO_DEFAULT)], dict(common), str(YO_DEFAULT.parent)),
    }


def iterations(engine: UsiClient, sfen: str, go: str) -> dict[int, tuple[int, int]]:
    """{depth: (nodes, ms)} at the last exact report of each depth of one search."""
    engine.usinewgame()
    engine.position(f"sfen {sfen}")
    result = engine.go(go, timeout=600)
    found: dict[int, tuple[int, int]] = {}
    for line in result.lines:
        if not line.text.startswith("info") or " depth " not in line.text:
            continue
        info = parse_info(line.text)
        if info.is_bound or info.depth is None or info.nodes is None:
            continue
        found[info.depth] = (info.nodes, info.time_ms or 0)
    return found


def geomean(values: list[float]) -> float:
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else 0.0


def bench_positions() -> list[tuple[str, str]]:
    from usi_engine.cli.bench import BENCH_SFENS
    return [(f"bench {i}", sfen) for i, sfen in enumerate(BENCH_SFENS, 1)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    limit = ap.add_mutually_exclusive_group()
    limit.add_argument("--depth", type=int, default=None, help="search to this depth (12)")
    limit.add_argument("--movetime", type=int, default=None, metavar="MS",
                       help="instead, search this long and report the depth reached")
    ap.add_argument("--positions", help="file of `name | sfen` lines (default: the bench's)")
    args = ap.parse_args(argv)
    if not os.access(YO_DEFAULT, os.X_OK):
        print(f"YaneuraOu is not built at {YO_DEFAULT} (../shared/tools/setup-peers.sh)")
        return 2
    positions = ([(n, s.removeprefix("sfen ").strip()) for n, s in read_positions(args.positions)]
                 if args.positions else bench_positions())
    go = f"movetime {args.movetime}" if args.movetime else f"depth {args.depth or 12}"
    table: dict[str, list[dict[int, tuple[int, int]]]] = {}
    for name, (command, options, cwd) in engines().items():
        with UsiClient(command, cwd=cwd, name=name) as engine:
            engine.handshake(options)
            table[name] = [iterations(engine, sfen, go) for _, sfen in positions]
    names = list(table)
    print(f"{len(positions)} positions, go {go}, one thread, 64 MB, no book")
    if args.movetime:
        for name in names:
            reached = [max(run) for run in table[name] if run]
            nodes = [run[max(run)][0] for run in table[name] if run]
            print(f"  {name:<22} depth {sum(reached) / len(reached):.1f} on average "
                  f"(min {min(reached)}, max {max(reached)}), nodes {geomean(nodes):,.0f} "
                  f"(geometric mean)")
        return 0
    # the positions every engine searched through every depth (a mate found early ends
    # a search before the depth asked for)
    full = [i for i in range(len(positions))
            if all(len(table[n][i]) and set(range(3, max(table[n][i]) + 1)) <= set(table[n][i])
                   and max(table[n][i]) >= (args.depth or 12) for n in names)]
    print(f"{len(full)} of them searched through every depth by both")
    for name in names:
        table[name] = [table[name][i] for i in full]
    if not full:
        return 1
    depths = sorted(set.intersection(*(set(run) for runs in table.values() for run in runs)))
    header = f"{'depth':>5}" + "".join(f" | {n + ' nodes':>28} {'EBF':>5} {'ms':>7}" for n in names)
    print(header)
    for d in depths:
        row = f"{d:>5}"
        for name in names:
            nodes = geomean([run[d][0] for run in table[name]])
            ms = geomean([max(run[d][1], 1) for run in table[name]])
            before = geomean([run[d - 1][0] for run in table[name]]) if d - 1 in depths else 0
            ebf = f"{nodes / before:5.2f}" if before else "    -"
            row += f" | {nodes:>28,.0f} {ebf} {ms:>7,.0f}"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
