"""Blunder suite: our move choice against YaneuraOu's on positions where we lost a game.

The positions (bench/blunders/positions.json) come from our games against YaneuraOu's
material edition (shogiarena's game.db of `bench/ab_match.py` runs): each is the
position before one of our moves after which YaneuraOu's score jumped by 200 or more.
A move is judged by a deep YaneuraOu search of the position after it (the oracle,
3 M nodes, one thread); its *loss* is the oracle's best score less that move's value.
Oracle values are cached in bench/blunders/oracle.json (a move not there yet is
searched and added), so a rerun costs only the searches of the engines compared.

It prints, in one run and side by side: our search at --nodes (with any tuning
options), at 2x and 4x those nodes with --scaling, and YaneuraOu at the same nodes:
mean loss (each clamped to -300..1500) and how many moves lose 150 or more.

    python bench/blunder_suite.py                          # about 3 min
    python bench/blunder_suite.py --option SingularDepth=6 --scaling
    python bench/blunder_suite.py --extract RUN/game.db ... --out FILE   # new positions

Caveat: the oracle shares YaneuraOu's evaluation and search, which favours its own
fast choices; compare our variants with each other first, and with YaneuraOu second.
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from peers import UsiProcess  # noqa: E402

DATA = REPO / "bench" / "blunders"
YO_DEFAULT = Path.home() / ".cache" / "usi-peers" / "yaneuraou-material"
ORACLE_NODES = 3_000_000
BLUNDER = 150


def usi_from_move16(m: int) -> str:
    """A move in shogiarena's 16-bit encoding (YaneuraOu's Move16) as USI text."""
    to, frm = m & 127, (m >> 7) & 127

    def square(s: int) -> str:
        return f"{s // 9 + 1}{chr(97 + s % 9)}"
    if m & (1 << 14):
        return "PLNSBRG"[frm - 1] + "*" + square(to)
    return square(frm) + square(to) + ("+" if m & (1 << 15) else "")


def recorded_moves(db: str):
    """Each game of a shogiarena game.db, move by move up to a resignation or
    declaration: (game id, position before the move, mover's name, USI move, recorded
    score or None).  The position is the caller's to read before the next item; it is
    played on afterwards."""
    from usi_engine.core.position import Position
    con = sqlite3.connect(db)
    names = dict(con.execute("select id, player_name from player"))
    games = con.execute("select id, initial_position_sfen, black_player_id, "
                        "white_player_id from game").fetchall()
    for gid, sfen, black, white in games:
        pos = Position(sfen)
        black_first = pos.sfen().split()[1] == "b"
        moves = con.execute("select next_move, eval from game_move where game_id=? "
                            "order by ply", (gid,)).fetchall()
        for i, (m16, score) in enumerate(moves):
            if not m16 & (1 << 14) and (m16 & 127) == ((m16 >> 7) & 127):
                break           # resignation or declaration
            mover = names[black if (i % 2 == 0) == black_first else white]
            move = usi_from_move16(m16)
            yield gid, pos, mover, move, score
            pos.push_usi(move)


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


class Yaneuraou:
    """YaneuraOu on one thread, no book, searched by node count."""

    def __init__(self, path: str) -> None:
        self.engine = UsiProcess([path], cwd=str(Path(path).parent), name="YaneuraOu",
                                 options={"BookFile": "no_book", "Threads": "1",
                                          "NetworkDelay": "0", "NetworkDelay2": "0",
                                          "USI_Hash": "256"})
        self.engine.handshake()

    def search(self, sfen: str, moves: str, nodes: int) -> tuple[str, int]:
        """(best move, score in centipawns, mates as +-30000) of `go nodes`."""
        e = self.engine
        e.send("usinewgame")
        e.send(f"position sfen {sfen}" + (f" moves {moves}" if moves else ""))
        e.send(f"go nodes {nodes}")
        score = 0
        while True:
            words = e.readline(600)[1].split()
            if words[:1] == ["bestmove"]:
                return words[1], score
            if "score" in words and "lowerbound" not in words and "upperbound" not in words:
                k = words.index("score")
                if words[k + 1] == "cp":
                    score = int(words[k + 2])
                else:
                    score = -30000 if words[k + 2].startswith("-") else 30000

    def close(self) -> None:
        self.engine.quit()


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
    from usi_engine.search import alphabeta as tree
    from usi_engine.eval.loader import EvalLoader
    from usi_engine.core.position import Position, move_to_usi
    from usi_engine.search.searcher import Searcher
    saved = tree.search_parameters()
    for name, value in options.items():
        tree.set_search_parameter(name, value)
    EvalLoader().apply(evaluation, "")
    searcher = Searcher()
    searcher.set_hash(64)
    try:
        moves = []
        for p in positions:
            searcher.new_game()
            moves.append(move_to_usi(searcher.search(Position(p["sfen"]), nodes=nodes).best))
        return moves
    finally:
        for name, value in saved.items():
            tree.set_search_parameter(name, value)


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
    ap.add_argument("--eval", default="hand", choices=("hand", "learned"))
    ap.add_argument("--scaling", action="store_true", help="ours at 2x and 4x the nodes too")
    ap.add_argument("--yaneuraou", default=str(YO_DEFAULT))
    ap.add_argument("--extract", nargs="+", metavar="GAME_DB", help="build positions instead")
    ap.add_argument("--out", help="with --extract: where to write them")
    args = ap.parse_args(argv)

    if args.extract:
        found = extract(args.extract)
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
        runs = [(label, args.nodes)]
        if args.scaling:
            runs += [(label + " x2", 2 * args.nodes), (label + " x4", 4 * args.nodes)]
        for name, nodes in runs:
            print(row(name, nodes, losses(positions, our_moves(positions, nodes, options,
                                                                args.eval), oracle)), flush=True)
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
