"""Write the opening set for matches and gensfen (usi_engine/data/openings.txt, shipped in
the package): balanced positions after a few
plausible plies from the start position, one ``startpos moves ...`` line each.

    python -m bench.tools.make_openings                 # 256 openings, seed 1, about a minute
    python -m bench.tools.make_openings --count 64 --seed 7 --out /tmp/openings.txt

Each opening plays PLIES (8..12, drawn per opening) moves; at every ply a move is drawn
uniformly among those a shallow MultiPV search scores within --window centipawns of the
best, so the lines stay plausible yet differ. A line is kept only when a deeper search of
its final position scores it within --balance centipawns, and each final position once.
The same seed writes the same file.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from bench.lib.paths import OPENINGS
from usi_engine.core.position import Position, move_to_usi
from usi_engine.search.searcher import Searcher


def _candidates(searcher: Searcher, pos: Position, window: int, width: int) -> list[int]:
    """Moves whose depth-3 MultiPV score is within `window` of the best one."""
    lines: dict[int, int] = {}

    def keep(info: dict) -> None:
        if info.get("depth") == 3 and info.get("pv") and "score_cp" in info:
            lines[info["pv"][0]] = info["score_cp"]

    searcher.search(pos, depth=3, multipv=width, on_info=keep)
    if not lines:
        return []
    best = max(lines.values())
    return [m for m, v in lines.items() if v >= best - window]


def make_openings(count: int, seed: int, window: int, balance: int, check_depth: int) -> list[str]:
    rng = random.Random(seed)
    searcher = Searcher()
    searcher.set_hash(16)
    seen: set[int] = set()
    lines: list[str] = []
    while len(lines) < count:
        pos = Position()
        moves: list[str] = []
        for _ in range(rng.randint(8, 12)):
            cands = _candidates(searcher, pos, window, 8)
            if not cands:
                break
            m = rng.choice(sorted(cands))
            moves.append(move_to_usi(m))
            pos.push(m)
        else:
            result = searcher.search(pos, depth=check_depth)
            if result.score_mate is None and abs(result.score_cp) <= balance and pos.key not in seen:
                seen.add(pos.key)
                lines.append("startpos moves " + " ".join(moves))
                print(f"\r{len(lines)}/{count}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=256)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--window", type=int, default=60, help="cp below the best move still drawn (60)")
    ap.add_argument("--balance", type=int, default=150, help="largest |score| of a kept line (150)")
    ap.add_argument("--check-depth", type=int, default=7, help="depth of the balance check (7)")
    ap.add_argument("--out", default=str(OPENINGS))
    args = ap.parse_args(argv)
    lines = make_openings(args.count, args.seed, args.window, args.balance, args.check_depth)
    Path(args.out).write_text("".join(line + "\n" for line in lines))
    print(f"wrote {len(lines)} openings to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
