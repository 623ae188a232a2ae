"""Mate-finding speed: how many nodes each search needs to announce a mate that a game
showed was there.

The positions come from the match core's records (JSON lines): for each side of each
game, the position before the first move with which that side announced a mate (a score
of +(30000 - n)), mates of 1 to 39 plies.  Each search gets doubling node budgets
(25,000 to 1,600,000, a fresh table each time) until it reports a mate for the side to
move; its result for the position is the first budget that did, or none.  Ours runs
in-process through the Searcher (no df-pn probe), YaneuraOu by `go nodes`.

    # positions from the issue-46 runs (120 drawn, seeded), then each search's ladder:
    python -m bench.strength.mate_speed --build bench/results/material-vs-yaneuraou-300ms*.jsonl.gz
    python -m bench.strength.mate_speed --engine yaneuraou --out yo.json         # about 80 s
    python -m bench.strength.mate_speed --engine ours --eval material --out ours.json  # 3 min
    python -m bench.strength.mate_speed --engine ours --option LmrDivisor=160 --out v.json
    python -m bench.strength.mate_speed --compare ours.json yo.json   # paired summary

`--compare A B` prints, per group of positions (those that B's side found in the game,
and all), how many each search solved within the ladder and the mean of
log2(A's nodes / B's nodes), an unsolved position counting as 3,200,000 nodes: +1.0
means A needed twice B's nodes.

What it measured (2026-11-28, the 120 positions of bench/mate_speed/positions.json from
the three 300 ms runs against YaneuraOu's material edition; ladders in
bench/mate_speed/ours.json with `EvalType material`, and yaneuraou.json): YaneuraOu
solved 105, ours 85; mean log2 ratio ours/YaneuraOu +1.63 (ours slower on 81 positions,
faster on 18); +2.18 on the 82 positions where YaneuraOu had found the mate in the game,
+0.45 on the 38 where ours had.  Changes that made ours find mates faster (late-move
reductions at nodes in check too: -0.33 against the defaults on a first draw of 120
positions) did not win games (docs/search.md, eighteenth session), so this is a
diagnostic of where the search is blind, not a screen that picks changes: it sees the
attacker's side of a mating attack, not the false attacks that weaker defence in the
tree invites.
"""
from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

from bench.lib.engines import YO_DEFAULT, Yaneuraou, our_searcher
from bench.lib.match import MATE_SCORE_FLOOR
from bench.lib.paths import BENCH
from bench.lib.records import load_jsonl, start_sfen

__all__ = ["LADDER", "UNSOLVED", "first_mates", "solve_ours", "solve_yaneuraou", "compare",
           "main"]

DATA = BENCH / "mate_speed"
LADDER = (25_000, 50_000, 100_000, 200_000, 400_000, 800_000, 1_600_000)
#: The nodes an unsolved position counts as in the comparison (twice the last rung).
UNSOLVED = 2 * LADDER[-1]
MAX_MATE_PLIES = 39


def first_mates(paths: list[str], count: int = 120, seed: int = 1) -> list[dict]:
    """Up to `count` positions (drawn at random, seeded) from match records: for each side
    of each game, the position before its first move announced as a mate of 1 to
    MAX_MATE_PLIES plies; "finder" is "a" or "b" (the record's engines).

    >>> first_mates([])
    []
    """
    found = []
    for path in paths:
        for record in load_jsonl(path):
            a_side = 0 if record["a_colour"] == "black" else 1
            done = set()
            moves = list(record["opening_moves"])
            for ply, (move, stat) in enumerate(zip(record["moves"], record["stats"])):
                side, score = stat[0], stat[4]
                if (side not in done and score is not None
                        and MATE_SCORE_FLOOR <= score < 30000
                        and 30000 - score <= MAX_MATE_PLIES):
                    done.add(side)
                    found.append({"start": record.get("start", "startpos"),
                                  "moves": list(moves), "mate_plies": 30000 - score,
                                  "finder": "a" if side == a_side else "b",
                                  "source": f"{Path(path).name}#{record.get('game')}:{ply}"})
                moves.append(move)
    random.Random(seed).shuffle(found)
    return found[:count]


def solve_ours(positions: list[dict], options: dict[str, int], evaluation: str) -> list:
    """The first budget of LADDER at which our search reports a mate for the side to
    move (None: none within it), per position."""
    from usi_engine.core.position import Position
    searcher = our_searcher(evaluation, options)
    solved = []
    for p in positions:
        position = Position(start_sfen(p))
        for move in p["moves"]:
            position.push_usi(move)
        found = None
        for nodes in LADDER:
            searcher.new_game()
            result = searcher.search(position, nodes=nodes)
            if result.score_mate is not None and result.score_mate > 0:
                found = nodes
                break
        solved.append(found)
    return solved


def solve_yaneuraou(positions: list[dict], path: str) -> list:
    """As solve_ours, for YaneuraOu (`go nodes`, a new game each time)."""
    yo = Yaneuraou(path)
    solved = []
    try:
        for p in positions:
            found = None
            for nodes in LADDER:
                _, score = yo.search(start_sfen(p), " ".join(p["moves"]), nodes)
                if score >= MATE_SCORE_FLOOR:
                    found = nodes
                    break
            solved.append(found)
    finally:
        yo.close()
    return solved


def compare(positions: list[dict], a: list, b: list, b_finder: str | None = None) -> list[str]:
    """Lines of the paired summary of two ladders on the same positions: per group, how
    many each solved, the mean log2 of A's nodes over B's, and on how many each was
    faster.  With b_finder, a first group holds the positions B's side found in the game.

    >>> compare([{"finder": "a"}, {"finder": "b"}], [25000, None], [50000, 25000])
    ['all 2: solved A 1, B 2; mean log2(A/B) +3.00; A faster on 1, B on 1']
    """
    def log_nodes(x):
        return math.log2(x if x is not None else UNSOLVED)
    groups = [("all", list(range(len(positions))))]
    if b_finder:
        groups.insert(0, (f"found by {b_finder}",
                          [i for i, p in enumerate(positions) if p["finder"] == b_finder]))
    lines = []
    for name, idx in groups:
        if not idx:
            continue
        diffs = [log_nodes(a[i]) - log_nodes(b[i]) for i in idx]
        lines.append(f"{name} {len(idx)}: solved A {sum(a[i] is not None for i in idx)}, "
                     f"B {sum(b[i] is not None for i in idx)}; mean log2(A/B) "
                     f"{sum(diffs) / len(diffs):+.2f}; A faster on {sum(d < 0 for d in diffs)}, "
                     f"B on {sum(d > 0 for d in diffs)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", default=str(DATA / "positions.json"))
    ap.add_argument("--build", nargs="+", metavar="JSONL", help="build the positions instead")
    ap.add_argument("--count", type=int, default=120, help="with --build (120)")
    ap.add_argument("--seed", type=int, default=1, help="with --build (1)")
    ap.add_argument("--engine", choices=("ours", "yaneuraou"))
    ap.add_argument("--eval", default="material", choices=("hand", "learned", "material"))
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a tuning parameter for our search (repeatable)")
    ap.add_argument("--yaneuraou", default=str(YO_DEFAULT))
    ap.add_argument("--out", help="where to write the ladder (JSON list) or the positions")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two ladders' summary")
    ap.add_argument("--finder", default="b",
                    help="with --compare: also the group of positions this side found (b)")
    args = ap.parse_args(argv)
    if args.build:
        found = first_mates(args.build, args.count, args.seed)
        out = Path(args.out or args.positions)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(found, indent=0))
        print(f"{len(found)} positions -> {out}")
        return 0
    positions = json.loads(Path(args.positions).read_text())
    if args.compare:
        a, b = (json.loads(Path(f).read_text()) for f in args.compare)
        if not len(a) == len(b) == len(positions):
            raise SystemExit("mate_speed: the ladders and the positions differ in length")
        print("\n".join(compare(positions, a, b, args.finder)))
        return 0
    if not args.engine:
        ap.error("one of --build, --engine or --compare")
    if args.engine == "ours":
        options = {k: int(v) for k, v in (o.split("=", 1) for o in args.option)}
        solved = solve_ours(positions, options, args.eval)
    else:
        solved = solve_yaneuraou(positions, args.yaneuraou)
    if args.out:
        Path(args.out).write_text(json.dumps(solved))
    print(f"{args.engine}: solved {sum(x is not None for x in solved)} of {len(solved)} "
          f"within {LADDER[-1]:,} nodes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
