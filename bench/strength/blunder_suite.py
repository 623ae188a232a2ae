"""Blunder suite: our move choice against YaneuraOu's on positions where we lost a game.

The positions (bench/blunders/positions.json) come from our games against YaneuraOu's
material edition (shogiarena's game.db of `python -m bench.strength.ab_match` runs): each is the
position before one of our moves after which YaneuraOu's score jumped by 200 or more.
A move is judged by a deep YaneuraOu search of the position after it (the oracle,
3 M nodes, one thread); its *loss* is the oracle's best score less that move's value.
Oracle values are cached in bench/blunders/oracle.json (a move not there yet is
searched and added), so a rerun costs only the searches of the engines compared.

It prints, in one run and side by side: our search at --nodes (with any tuning
options), at 2x and 4x those nodes with --scaling, and YaneuraOu at the same nodes:
mean loss (each clamped to -300..1500) and how many moves lose 150 or more.

    python -m bench.strength.blunder_suite                 # about 3 min
    python -m bench.strength.blunder_suite --option LmrDivisor=160 --scaling
    python -m bench.strength.blunder_suite --extract RUN/game.db ... --out FILE   # new positions

Positions chosen by our blunders favour any change (a variant that plays anything else
there gains).  For a screen without that bias, sample every side's moves of the match
core's records instead, the plies from 20 to 79 after the opening where the mover's
score was within 1000, and compare a variant with the defaults on the same positions
(--paired: the mean of the per-position differences and its 95% interval):

    python -m bench.strength.blunder_suite --sample-records R.jsonl ... --count 600 \
        --out bench/blunders/sampled.json
    python -m bench.strength.blunder_suite --positions bench/blunders/sampled.json \
        --eval material --nodes 320000 --paired --no-reference --option LmrDivisor=160
    # what twice and four times the nodes are worth on the same scale:
    python -m bench.strength.blunder_suite --positions bench/blunders/sampled.json \
        --eval material --nodes 160000 --scaling --paired --no-reference

How much such a screen can see: on the 600 sampled positions (bench/blunders/sampled.json,
oracle values of the defaults' moves at 320,000 nodes cached), our search at 160,000
nodes against 320,000 differed on 166 moves and scored -1.1 [95%: -13.3, +11.1] per
position (2026-11-28): half the nodes, worth much in games, did not show.  The oracle's
own noise (its value of a move is often above its best: 122 of the first 416 losses
were negative) swamps the effect; treat a result of this screen as a hint at best.

Caveat: the oracle shares YaneuraOu's evaluation and search, which favours its own
fast choices; compare our variants with each other first, and with YaneuraOu second.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

from bench.lib.engines import YO_DEFAULT, Yaneuraou, our_searcher
from bench.lib.paths import BLUNDERS as DATA
from bench.lib.records import load_jsonl, recorded_moves

__all__ = ["DATA", "YO_DEFAULT", "Yaneuraou", "recorded_moves", "extract", "sample_records",
           "paired", "Oracle", "our_moves",
           "losses", "main"]
ORACLE_NODES = 3_000_000
BLUNDER = 150


def extract(dbs: list[str], ours: str = "new", theirs: str = "base") -> list[dict]:
    """Positions before each of our moves after which the opponent's score rose by
    200 or more from -200..300 (to below 3000: not yet a mate or a collapse)."""
    out = []
    for db in dbs:
        game, previous, before = None, None, None
        for gid, pos, mover, move, score in recorded_moves(db):
            if gid != game:
                game, previous, before = gid, None, None
            if mover == theirs and score is not None:
                if (previous is not None and -200 < previous < 300
                        and score >= previous + 200 and abs(score) < 3000 and before):
                    out.append({**before, "reply": move, "reply_score": score,
                                "source": f"{Path(db).parent.name}#{gid}"})
                previous = score
            if mover == ours:
                before = {"sfen": pos.sfen(), "played": move}
    return out


def sample_records(paths: list[str], count: int, seed: int = 1, first_ply: int = 20,
                   last_ply: int = 79, max_score: int = 1000) -> list[dict]:
    """Up to `count` positions, drawn at random (seeded) from the match core's JSON-lines
    records: the position before each move of either side at plies first_ply..last_ply
    after the opening whose mover's recorded score was within max_score (the game not
    yet decided), each position once.

    >>> sample_records([], 5)
    []
    """
    import random

    import cshogi
    seen: set[str] = set()
    found = []
    for path in paths:
        for n, record in enumerate(load_jsonl(path)):
            board = cshogi.Board()
            start = record.get("start", "startpos")
            if start != "startpos":
                board.set_sfen(start.removeprefix("sfen ").strip())
            for move in record["opening_moves"]:
                board.push_usi(move)
            for ply, (move, stat) in enumerate(zip(record["moves"], record["stats"])):
                score = stat[4]
                sfen = board.sfen()
                placement = sfen.rsplit(" ", 1)[0]     # the move number aside
                if (first_ply <= ply <= last_ply and score is not None
                        and abs(score) <= max_score and placement not in seen):
                    seen.add(placement)
                    found.append({"sfen": sfen, "played": move, "score": score,
                                  "source": f"{Path(path).name}#{n + 1}:{ply}"})
                board.push_usi(move)
    random.Random(seed).shuffle(found)
    return found[:count]


def paired(base: list[int], other: list[int]) -> str:
    """The mean per-position difference other - base with its 95% interval, and on how
    many positions each side loses less.

    >>> paired([0, 100, 0, 50], [0, 0, 0, 50])
    '-25.0 [-74.0, +24.0] per position; better on 1, worse on 0, equal on 3'
    """
    diffs = [b - a for a, b in zip(base, other)]
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
    better = sum(d < 0 for d in diffs)
    worse = sum(d > 0 for d in diffs)
    return (f"{mean:+.1f} [{mean - half:+.1f}, {mean + half:+.1f}] per position; "
            f"better on {better}, worse on {worse}, equal on {len(diffs) - better - worse}")


class Oracle:
    """Deep YaneuraOu values of moves, from the mover's side, cached on disk."""

    def __init__(self, path: Path, yo_path: str, nodes: int = ORACLE_NODES) -> None:
        self.path, self.yo_path, self.nodes = path, yo_path, nodes
        self.cache = json.loads(path.read_text()) if path.exists() else {}
        self.yo: Yaneuraou | None = None

    def _engine(self) -> Yaneuraou:
        if self.yo is None:
            self.yo = Yaneuraou(self.yo_path)
        return self.yo

    def best(self, sfen: str) -> int:
        key = sfen + "|"
        if key not in self.cache:
            self.cache[key] = self._engine().search(sfen, "", self.nodes)[1]
            self._save()
        return self.cache[key]

    def value(self, sfen: str, move: str) -> int:
        key = sfen + "|" + move
        if key not in self.cache:
            self.cache[key] = -self._engine().search(sfen, move, self.nodes)[1]
            self._save()
        return self.cache[key]

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.cache, indent=0, sort_keys=True))
        os.replace(tmp, self.path)

    def close(self) -> None:
        if self.yo is not None:
            self.yo.close()


def our_moves(positions: list[dict], nodes: int, options: dict[str, int], evaluation: str) -> list[str]:
    from usi_engine.core.position import Position, move_to_usi
    searcher = our_searcher(evaluation, options)
    moves = []
    for p in positions:
        searcher.new_game()
        moves.append(move_to_usi(searcher.search(Position(p["sfen"]), nodes=nodes).best))
    return moves


def losses(positions: list[dict], moves: list[str], oracle: Oracle) -> list[int]:
    return [max(-300, min(1500, oracle.best(p["sfen"]) - oracle.value(p["sfen"], m)))
            for p, m in zip(positions, moves)]


def row(label: str, nodes: int, loss: list[int]) -> str:
    return (f"{label:34s} {nodes:>10,} {statistics.mean(loss):>9.0f} "
            f"{sum(x >= BLUNDER for x in loss):>5d}/{len(loss)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", default=str(DATA / "positions.json"))
    ap.add_argument("--oracle", default=str(DATA / "oracle.json"))
    ap.add_argument("--nodes", type=int, default=467_000,
                    help="nodes per move (default: ours per move at 300 ms in the games)")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a tuning parameter for our search (repeatable)")
    ap.add_argument("--eval", default="hand", choices=("hand", "learned", "material"))
    ap.add_argument("--scaling", action="store_true", help="ours at 2x and 4x the nodes too")
    ap.add_argument("--yaneuraou", default=str(YO_DEFAULT))
    ap.add_argument("--no-reference", action="store_true",
                    help="leave out YaneuraOu's row and the games' moves (fewer oracle searches)")
    ap.add_argument("--paired", action="store_true",
                    help="also the defaults (with --option), and each row's per-position "
                         "difference from the first")
    ap.add_argument("--extract", nargs="+", metavar="GAME_DB", help="build positions instead")
    ap.add_argument("--sample-records", nargs="+", metavar="JSONL",
                    help="build positions instead: every side's moves of match records")
    ap.add_argument("--count", type=int, default=600, help="with --sample-records (600)")
    ap.add_argument("--seed", type=int, default=1, help="with --sample-records (1)")
    ap.add_argument("--out", help="with --extract or --sample-records: where to write them")
    args = ap.parse_args(argv)

    if args.extract or args.sample_records:
        found = (extract(args.extract) if args.extract
                 else sample_records(args.sample_records, args.count, args.seed))
        Path(args.out or args.positions).write_text(json.dumps(found, indent=0))
        print(f"{len(found)} positions")
        return 0
    if not os.access(args.yaneuraou, os.X_OK):
        print(f"YaneuraOu not found at {args.yaneuraou} (bench/README.md says how to build it)")
        return 2
    options = {k: int(v) for k, v in (o.split("=", 1) for o in args.option)}
    positions = json.loads(Path(args.positions).read_text())
    oracle = Oracle(Path(args.oracle), args.yaneuraou)
    label = "ours " + (" ".join(args.option) or "(defaults)") + f", {args.eval}"
    print(f"{len(positions)} positions; oracle: YaneuraOu at {ORACLE_NODES:,} nodes")
    print(f"{'engine':34s} {'nodes':>10s} {'mean loss':>9s} {'>=' + str(BLUNDER):>9s}")
    try:
        runs = [(label, args.nodes, options)]
        if args.scaling:
            runs += [(label + " x2", 2 * args.nodes, options),
                     (label + " x4", 4 * args.nodes, options)]
        if args.paired and options:
            runs.insert(0, (f"ours (defaults), {args.eval}", args.nodes, {}))
        found = []
        for name, nodes, chosen in runs:
            found.append(losses(positions, our_moves(positions, nodes, chosen, args.eval),
                                oracle))
            print(row(name, nodes, found[-1]), flush=True)
        if args.paired:
            for (name, _, _), loss in zip(runs[1:], found[1:]):
                print(f"{name} against {runs[0][0]}: {paired(found[0], loss)}")
        if args.no_reference:
            return 0
        yo = Yaneuraou(args.yaneuraou)
        try:
            theirs = [yo.search(p["sfen"], "", args.nodes)[0] for p in positions]
        finally:
            yo.close()
        print(row("YaneuraOu material", args.nodes, losses(positions, theirs, oracle)))
        print(row("the moves played in the games", 0,
                  losses(positions, [p["played"] for p in positions], oracle)))
    finally:
        oracle.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
