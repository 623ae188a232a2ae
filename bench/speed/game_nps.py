"""Our search's speed on positions from real games: nodes per second, and the total node
count, which is the same for the same search code (a signature, like `usi-engine bench`,
but on the middle-game and endgame positions where the games are decided: full hands,
checks, mates in sight).

The positions are those before every 12th ply (from the 8th) of the first 24 games of a
match record, 258 of them with the default record, each searched from a fresh table to
a fixed node budget, in-process, one thread, no df-pn probe (as in games under byoyomi).

    python -m bench game-nps                              # EvalType material, 100 k nodes each, ~20 s
    python -m bench game-nps --eval learned --nodes 50000
    python -m bench game-nps --record RUN.jsonl --games 50

What it measured (2026-11-28, AMD EPYC, default arguments): 23,993,762 nodes; 1.21 M
nodes/s before and 1.28 M after the speed changes of that day (docs/search.md,
nineteenth session).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench.lib.engines import our_searcher
from bench.lib.paths import BENCH
from bench.lib.records import load_jsonl, start_sfen
from usi_engine.core.position import Position

__all__ = ["DEFAULT_RECORD", "game_positions", "measure", "main"]

DEFAULT_RECORD = BENCH / "results" / "material-vs-yaneuraou-300ms-corrhist-amd-epyc.jsonl.gz"
FIRST_PLY = 8
PLY_STEP = 12


def game_positions(record: Path, games: int) -> list[Position]:
    """The positions before plies 8, 20, 32, ... of the record's first `games` games."""
    positions = []
    for game in load_jsonl(record)[:games]:
        sfen = start_sfen(game)
        moves = list(game.get("opening_moves") or []) + list(game["moves"])
        for ply in range(FIRST_PLY, len(moves), PLY_STEP):
            position = Position(sfen)
            for move in moves[:ply]:
                position.push_usi(move)
            positions.append(position)
    return positions


def measure(positions: list[Position], evaluation: str, nodes: int) -> tuple[int, float]:
    """(total nodes, seconds in the searches) over the positions, each from a new game."""
    searcher = our_searcher(evaluation, {})
    total_nodes, seconds = 0, 0.0
    for position in positions:
        searcher.new_game()
        start = time.perf_counter()
        result = searcher.search(position, nodes=nodes)
        seconds += time.perf_counter() - start
        total_nodes += result.nodes
    return total_nodes, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", type=Path, default=DEFAULT_RECORD,
                        help="match record (JSON lines) to take the positions from")
    parser.add_argument("--games", type=int, default=24, help="games of the record to use")
    parser.add_argument("--nodes", type=int, default=100_000, help="node budget a position")
    parser.add_argument("--eval", default="material", choices=("material", "hand", "learned"),
                        help="evaluation (default: material, issue 46's third target)")
    args = parser.parse_args(argv)
    positions = game_positions(args.record, args.games)
    nodes, seconds = measure(positions, args.eval, args.nodes)
    print(f"positions {len(positions)} nodes {nodes} time_ms {seconds * 1000:.0f} "
          f"nps {nodes / seconds:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
