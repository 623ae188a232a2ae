"""Refutation suite: how many nodes our search needs to see a refutation YaneuraOu sees.

The positions (bench/blunders/refutations.json) are those just after 43 of our blunders
in bench/blunders/positions.json (a move that the 3 M-node oracle values 150 or more
below its best): the opponent, YaneuraOu in the games, is to move.  Each carries a
threshold: the score (side to move, centipawns) at which a search has seen the
refutation, our root score before the blunder turned around plus half the blunder's
size.  YaneuraOu's material edition reached it within 3 M nodes on all 43.

A search *sees* it at the node count of the first completed iteration from which on
every iteration scores at least the threshold; one that never does within --cap nodes
counts as twice the cap.  Printed side by side, in one run: the geometric mean of those
node counts and how many were missed, for our search (with any tuning options) and
for YaneuraOu.  Node-limited and single-threaded, so every figure is reproducible.

    python -m bench.strength.refutation_suite                  # about 6 min
    python -m bench.strength.refutation_suite --option SingularDepth=6 --no-yaneuraou
    python -m bench.strength.refutation_suite --positions bench/blunders/refutations_yo.json
    python -m bench.strength.refutation_suite --extract RUN/game.db ... --blunderer base --out F

The second set, refutations_yo.json, is the check on the first's bias: the positions
after YaneuraOu's blunders in three matches (moves after which our score rose by 200 or
more), thresholds halfway between the blunderer's score and the finder's reply score
as recorded in the games (--extract builds such a set; --blunderer new: ours).

Unlike bench/strength/blunder_suite.py this needs no oracle: it measures tactical sight (the
pruning's and ordering's cost) apart from which of several near-equal moves is chosen.
"""
from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

from bench.lib.engines import YO_DEFAULT, Yaneuraou
from bench.lib.paths import BLUNDERS as DATA
from bench.lib.records import recorded_moves

CAP = 4_000_000


def seen_at(history: list[tuple[int, int]], threshold: int) -> int | None:
    """The node count from which on every iteration's score is at least threshold.

    >>> seen_at([(10, 50), (20, 300), (30, 100), (40, 300), (50, 320)], 200)
    40
    >>> seen_at([(10, 300), (20, 100)], 200) is None
    True
    """
    found = None
    for nodes, score in history:
        if score >= threshold:
            if found is None:
                found = nodes
        else:
            found = None
    return found


def extract(dbs: list[str], blunderer: str) -> list[dict]:
    """Positions just after each move of `blunderer` ("new": ours, "base": the
    opponent, as bench.strength.ab_match names them) after which the other side's recorded
    score rose by 200 or more from -200..300 (to below 3000); the threshold is halfway
    between the blunderer's score (negated) and the finder's reply score."""
    out = []
    for db in dbs:
        game, finder_before, pending = None, None, None
        for gid, pos, mover, move, score in recorded_moves(db):
            if gid != game:
                game, finder_before, pending = gid, None, None
            if mover != blunderer and score is not None:
                if (pending and finder_before is not None and -200 < finder_before < 300
                        and score >= finder_before + 200 and abs(score) < 3000):
                    out.append({"sfen": pending["sfen"], "threshold": (score - pending["eval"]) // 2,
                                "source": f"{Path(db).parent.name}#{gid}"})
                finder_before, pending = score, None
            if mover == blunderer and score is not None:
                pos.push_usi(move)      # (the position after the blunder) ...
                pending = {"sfen": pos.sfen(), "eval": score}
                pos.pop()               # ... and back: recorded_moves plays it on
    return out


def ours(positions: list[dict], cap: int, options: dict[str, int], evaluation: str) -> list[int]:
    """Our nodes to see each refutation (2 x cap when not seen)."""
    from usi_engine.eval.loader import EvalLoader
    from usi_engine.core.position import Position
    from usi_engine.search.searcher import Searcher
    loader = EvalLoader()
    loader.apply(evaluation, "")
    out = []
    for p in positions:
        history: list[tuple[int, int]] = []

        def on_info(info: dict) -> None:
            if info.get("bound"):
                return
            score = info.get("score_cp")
            if score is None:
                score = 30000 if info.get("score_mate", 0) > 0 else -30000
            history.append((info["nodes"], score))
        searcher = Searcher()
        searcher.set_evaluation(loader.network)
        for name, value in options.items():
            searcher.set_parameter(name, value)
        searcher.set_hash(256)
        searcher.search(Position(p["sfen"]), nodes=cap, on_info=on_info)
        out.append(seen_at(history, p["threshold"]) or 2 * cap)
    return out


def yaneuraou(positions: list[dict], cap: int, path: str) -> list[int]:
    """YaneuraOu's nodes to see each refutation (2 x cap when not seen)."""
    yo = Yaneuraou(path)
    try:
        out = []
        for p in positions:
            history: list[tuple[int, int]] = []

            def on_info(info, score: int) -> None:
                if info.nodes is not None:
                    history.append((info.nodes, score))
            yo.search(p["sfen"], "", cap, on_info=on_info)
            out.append(seen_at(history, p["threshold"]) or 2 * cap)
        return out
    finally:
        yo.close()


def row(label: str, nodes: list[int], cap: int) -> str:
    mean = math.exp(sum(math.log(n) for n in nodes) / len(nodes))
    return f"{label:44s} {mean:>12,.0f} {sum(n > cap for n in nodes):>5d}/{len(nodes)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", default=str(DATA / "refutations.json"))
    ap.add_argument("--cap", type=int, default=CAP, help="nodes per search (default 4 M)")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a tuning parameter for our search (repeatable)")
    ap.add_argument("--eval", default="hand", choices=("hand", "learned"))
    ap.add_argument("--yaneuraou", default=str(YO_DEFAULT))
    ap.add_argument("--no-yaneuraou", action="store_true", help="our search only")
    ap.add_argument("--extract", nargs="+", metavar="GAME_DB", help="build positions instead")
    ap.add_argument("--blunderer", default="base", choices=("new", "base"),
                    help="with --extract: whose blunders (default base: the opponent's)")
    ap.add_argument("--out", help="with --extract: where to write them")
    args = ap.parse_args(argv)

    if args.extract:
        found = extract(args.extract, args.blunderer)
        Path(args.out or args.positions).write_text(json.dumps(found, indent=0))
        print(f"{len(found)} positions")
        return 0

    options = {k: int(v) for k, v in (o.split("=", 1) for o in args.option)}
    positions = json.loads(Path(args.positions).read_text())
    print(f"{len(positions)} positions; a refutation not seen within {args.cap:,} nodes "
          f"counts as {2 * args.cap:,}")
    print(f"{'engine':44s} {'nodes (geo)':>12s} {'missed':>9s}")
    label = "ours " + (" ".join(args.option) or "(defaults)") + f", {args.eval}"
    print(row(label, ours(positions, args.cap, options, args.eval), args.cap), flush=True)
    if not args.no_yaneuraou:
        if not os.access(args.yaneuraou, os.X_OK):
            print(f"YaneuraOu not found at {args.yaneuraou} (bench/README.md says how to build it)")
            return 2
        print(row("YaneuraOu material", yaneuraou(positions, args.cap, args.yaneuraou),
                  args.cap))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
