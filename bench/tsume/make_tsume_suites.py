#!/usr/bin/env python3
"""Generate tsume suites of real mates from game-like positions.

Plays seeded, random-but-sensible games (usi_engine's own Searcher at depth 1-3 with a
node cap, mixed with random moves biased to captures and checks), and at every
position where the side to move is not in check asks usi_engine's MateSolver for a
mate (a node limit, not a time limit, so that a run is reproducible).  A position is a
candidate for the suite of length N (N odd, 1..15) when our solver proves a mate and
reports N plies as the shortest.  Every candidate is then checked with cshogi before it
is kept:

  * our line replays in cshogi: legal moves, every attacker move gives check, the last
    position is mate, the length is odd;
  * cshogi's DfPn (no depth limit) also finds a mate, and its line is not shorter than N;
  * no shorter mate: a full-width search written here on cshogi's move generators
    (every check, every reply) finds no mate within N-2 plies (exact; up to N = 15).
    (cshogi's Board.mate_move(k) is not used: its 1-ply mate detector at the leaves
    misses some mates);
  * a mate within N exists: an explicit proof tree of at most N plies, checked with
    cshogi alone (every defence enumerated, every attacker move a check, every leaf a
    position with no legal move), is built; the attacker's moves in it are suggested
    by cshogi (every check at the last two attacker plies, DfPn's move above) and, as
    hints, by our solver, but the checking is all cshogi's.
    (cshogi's DfPn with set_max_depth is no use as a bound: it sometimes returns lines
    2 plies longer than the depth it was given.)

A candidate failing any of these is not kept; it is reported as an anomaly (printed,
and written to --anomalies) with its SFEN and a diagnosis:

  * cshogi_shorter: cshogi has a mate shorter than ours.  The shorter mate is checked
    by a proof tree as above; a confirmed one means our solver's "shortest" is wrong.
  * not_within_N: no proof tree of a mate within N plies.  Our line is then walked:
    for each defence not taken, our solver is asked again; a defence that holds out
    longer than our line claims shows that our length is too short.
  * replay_failed / cshogi_no_mate: as said.

Positions are de-duplicated by SFEN (board, side, hands), at most one position per
length (two for the rare 13 and 15) is taken from any one game (consecutive positions
of one attack are alike), positions before ply 16 are not probed, and the games are
processed in order, so the output depends only on --seed, the limits and the engine
build (the suite headers record the commit).

    python -m bench.tsume.make_tsume_suites                 # about 15 min on 2 cores
    python -m bench.tsume.make_tsume_suites --target 30 --jobs 2 --seed 1
    python -m bench.tsume.make_tsume_suites --dry-run       # report, write nothing
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import datetime
import importlib.metadata
import os
import random
import sys
import time
from pathlib import Path

import cshogi

from bench.lib.engines import build_info
from bench.lib.paths import OUT, TSUME_DIR
from bench.lib.records import replay_mate_with_cshogi
from bench.lib.suites import STRICT_MARK
from usi_engine.core.position import Position, move_to_usi
from usi_engine.mate.solver import MateSolver
from usi_engine.search.searcher import Searcher

LENGTHS = (1, 3, 5, 7, 9, 11, 13, 15)
MAX_GAME_PLIES = 300
MIN_PROBE_PLY = 16          # no mates to find in the openings of these games
PER_GAME = {13: 2, 15: 2}   # positions taken per length from one game (default 1)

# Per-worker state (made once per process by _init_worker).
_W: dict = {}


def _init_worker(solver_hash_mb: int, search_hash_mb: int) -> None:
    solver = MateSolver()
    solver.set_hash(solver_hash_mb)
    searcher = Searcher()
    searcher.set_hash(search_hash_mb)
    _W.update(solver=solver, searcher=searcher)


def sfen_key(sfen: str) -> str:
    """The SFEN without its move number: board, side to move, hands."""
    return " ".join(sfen.split()[:3])


# ---------------------------------------------------------------- game play

def choose_move(pos: Position, rng: random.Random, searcher: Searcher, search_nodes: int) -> int:
    moves = pos.legal_moves()
    x = rng.random()
    if x < 0.15:
        return rng.choice(moves)
    if x < 0.30:
        sharp = pos.captures() + pos.checks()
        sharp = [m for m in sharp if m in set(moves)]
        return rng.choice(sharp or moves)
    res = searcher.search(pos, depth=rng.choice((1, 2, 3)), nodes=search_nodes)
    return res.best if res.best in set(moves) else rng.choice(moves)


def play_game(args: tuple) -> dict:
    """Play game number `game` and probe its positions; returns the candidates found
    (already checked with cshogi) and statistics."""
    game, seed, probe_nodes, search_nodes, cshogi_nodes = args
    solver: MateSolver = _W["solver"]
    searcher: Searcher = _W["searcher"]
    searcher.new_game()
    rng = random.Random(f"tsume-suites/{seed}/{game}")
    pos = Position()
    stats = collections.Counter()
    taken: dict[int, list] = collections.defaultdict(list)
    t0 = time.perf_counter()
    for ply in range(MAX_GAME_PLIES):
        moves = pos.legal_moves()
        if not moves:
            break
        if ply >= MIN_PROBE_PLY and not pos.is_check():
            solver.clear()
            r = solver.solve(pos, nodes=probe_nodes, published=False)
            stats["probes"] += 1
            if r.status != "mate":
                stats[r.status] += 1
            elif r.nodes >= probe_nodes:
                stats["mate_incomplete"] += 1       # shortening cut by the node limit
            else:
                n = len(r.pv)
                stats[f"mate{n}" if n <= 15 else "mate>15"] += 1
                if n in LENGTHS and len(taken[n]) < PER_GAME.get(n, 1):
                    taken[n].append(dict(game=game, ply=ply, sfen=pos.sfen(), length=n,
                                         pv=[move_to_usi(m) for m in r.pv], nodes=r.nodes,
                                         time_ms=r.time_ms))
        pos.push(choose_move(pos, rng, searcher, search_nodes))
    stats["plies"] += ply + 1
    found = []
    for n in sorted(taken):
        for cand in taken[n]:
            cand.update(check_candidate(cand["sfen"], n, cand["pv"], cshogi_nodes))
            found.append(cand)
    return dict(game=game, stats=stats, found=found, seconds=time.perf_counter() - t0)


# ---------------------------------------------------------------- checks with cshogi

replay_check = replay_mate_with_cshogi


def cshogi_dfpn(sfen: str, depth: int | None, nodes: int) -> tuple[bool | None, list[str], int]:
    """(mate?, line, nodes); mate? is None when the node limit was reached."""
    b = cshogi.Board(sfen)
    d = cshogi.DfPn()
    d.set_max_search_node(nodes)
    if depth is not None:
        d.set_max_depth(depth)
    ok = d.search(b)
    line = [cshogi.move_to_usi(m) for m in d.get_pv(b)] if ok else []
    if not ok and d.searched_node >= nodes:
        return None, [], d.searched_node
    return ok, line, d.searched_node


class TreeProver:
    """An explicit proof that the side to move mates within n plies, checked with cshogi
    only: at attacker nodes a few candidate checks are tried (cshogi's 1-ply mate, the
    move of cshogi's DfPn, and as a hint the first move of our solver's line), at
    defender nodes every legal move is tried, and a leaf is a position where cshogi
    finds no legal move after a check.  Whoever suggests the attacker's moves, True is
    a proof that does not rely on our solver; False only means "not shown" (a budget of
    attacker nodes bounds the work)."""

    def __init__(self, budget: int = 20000, hints: bool = True):
        self.memo: dict = {}
        self.budget = budget
        self.hints = hints

    def _candidates(self, b: cshogi.Board, n: int) -> list[int]:
        if n == 1:
            return list(b.check_moves)          # every check (cshogi's 1-ply mate misses some)
        m1 = b.mate_move_in_1ply()
        if m1:
            return [m1]
        cands = list(b.check_moves) if n == 3 and self.hints else []
        d = cshogi.DfPn()
        d.set_max_depth(n)
        d.set_max_search_node(200000)
        if d.search(b):
            m = d.get_move(b)
            cands = [m] + [c for c in cands if c != m]
        if n > 3 and self.hints and "solver" in _W:
            solver: MateSolver = _W["solver"]
            solver.clear()
            r = solver.solve(Position(b.sfen()), nodes=200000, published=False)
            if r.status == "mate":
                m = b.move_from_usi(move_to_usi(r.pv[0]))
                if m and m not in cands:
                    cands.append(m)
        return cands

    def attacker(self, b: cshogi.Board, n: int) -> bool:
        key = (b.zobrist_hash(), n)
        if key in self.memo:
            return self.memo[key]
        self.budget -= 1
        ok = False
        if n >= 1 and self.budget > 0:
            for m in self._candidates(b, n):
                if not b.is_legal(m):
                    continue
                b.push(m)
                ok = b.is_check() and self.defender(b, n - 1)
                b.pop()
                if ok:
                    break
        self.memo[key] = ok
        return ok

    def defender(self, b: cshogi.Board, n: int) -> bool:
        moves = list(b.legal_moves)
        if not moves:
            return True
        if n < 2:
            return False
        for m in moves:
            b.push(m)
            ok = self.attacker(b, n - 1)
            b.pop()
            if not ok:
                return False
        return True


def proves(sfen: str, n: int) -> bool:
    return TreeProver().attacker(cshogi.Board(sfen), n)


def full_width_mate(b: cshogi.Board, k: int, memo: dict) -> int:
    """A check that mates within k plies (k odd) against every defence, or 0: a
    full-width search with cshogi alone (every check, every legal reply; a check after
    which the defender has no legal move is mate).  Exact, and fast enough up to k = 13
    (a few seconds) because game positions have few checks and few evasions.  (cshogi's
    own Board.mate_move(k) is not used: its leaves use a 1-ply mate detector that misses
    some mates, e.g. a promoting rook move.)"""
    key = (b.zobrist_hash(), k)
    hit = memo.get(key)
    if hit is not None:
        return hit
    found = 0
    for m in list(b.check_moves):
        b.push(m)
        if k == 1:
            ok = b.is_game_over()
        else:
            ok = True
            for e in list(b.legal_moves):
                b.push(e)
                ok = bool(full_width_mate(b, k - 2, memo))
                b.pop()
                if not ok:
                    break
        b.pop()
        if ok:
            found = m
            break
    memo[key] = found
    return found


FULL_WIDTH_MAX = 13     # the largest k searched full width (k = 13 takes a few seconds)


def check_candidate(sfen: str, n: int, line: list[str], cshogi_nodes: int) -> dict:
    """Cross-check our mate of n plies with cshogi; returns {'ok': bool, ...}."""
    out: dict = {"ok": False, "anomaly": "", "detail": ""}
    bad = replay_check(sfen, line)
    if bad:
        out.update(anomaly="replay_failed", detail=bad)
        return out
    ok, cline, cnodes = cshogi_dfpn(sfen, None, cshogi_nodes)
    out.update(cshogi_length=len(cline) if ok else None, cshogi_nodes=cnodes)
    if ok is None:
        out.update(anomaly="inconclusive", detail=f"cshogi DfPn hit its node limit ({cnodes})")
        return out
    if not ok:
        out.update(anomaly="cshogi_no_mate", detail="cshogi DfPn finds no mate")
        return out
    # (1) no shorter mate: cshogi's line, and cshogi's full-width search to n - 2 plies
    b = cshogi.Board(sfen)
    shorter = None
    if len(cline) < n:
        shorter = (len(cline), f"cshogi DfPn line of {len(cline)} plies: {' '.join(cline)}")
    elif n >= 3 and n - 2 <= FULL_WIDTH_MAX:
        m = full_width_mate(b, n - 2, {})
        if m:
            k = next(k for k in range(1, n - 1, 2) if full_width_mate(b, k, {}))
            shorter = (k, f"a full-width search with cshogi finds a mate in {k} "
                          f"starting {cshogi.move_to_usi(full_width_mate(b, k, {}))}")
    if shorter is not None:
        k, what = shorter
        confirmed = proves(sfen, k)
        best = k
        while confirmed and best >= 3 and proves(sfen, best - 2):
            best -= 2
        out.update(anomaly="cshogi_shorter",
                   detail=what + ("; an explicit proof tree (all defences, checked with cshogi) "
                                  f"confirms a mate in {best}" if confirmed else
                                  f"; no proof tree of a mate in {k} found"))
        return out
    # (2) a mate within n exists: an explicit proof tree checked with cshogi
    if not proves(sfen, n):
        exact = ""
        if n <= FULL_WIDTH_MAX:
            exact = ("; a full-width search finds one, so the proof tree missed it"
                     if full_width_mate(cshogi.Board(sfen), n, {}) else
                     f"; a full-width search confirms there is no mate within {n}")
        out.update(anomaly="not_within_N",
                   detail=f"no proof tree of a mate within {n} plies (cshogi's DfPn line has "
                          f"{len(cline)}){exact}; " + explain_length(sfen, line))
        return out
    out["ok"] = True
    return out


def explain_length(sfen: str, line: list[str]) -> str:
    """Walk our line; at each defender move try the other defences with our solver and
    say which one holds out longer than the line claims."""
    solver: MateSolver = _W["solver"]
    pos = Position(sfen)
    for i, u in enumerate(line):
        remaining = len(line) - i          # plies from here to mate along our line
        if i % 2 == 1:
            for ev in pos.legal_moves():
                if move_to_usi(ev) == u:
                    continue
                pos.push(ev)
                solver.clear()
                r = solver.solve(pos, nodes=2_000_000, published=False)
                child_sfen = pos.sfen()
                pos.pop()
                if r.status != "mate" or len(r.pv) > remaining - 1:
                    what = (f"mate in {len(r.pv)} (ours, fresh solve)" if r.status == "mate"
                            else f"our solver: {r.status}")
                    return (f"after {' '.join(line[:i])} the defence {move_to_usi(ev)} instead "
                            f"of {u} leaves {what}, more than the {remaining - 1} our line "
                            f"implies: position {child_sfen}")
        pos.push_usi(u)
    return "no defence found that holds out longer"


# ---------------------------------------------------------------- main

def write_suite(path: Path, n: int, probs: list[dict], header: list[str]) -> None:
    lines = [f"# Generated mates in {n} pl{'ies' if n > 1 else 'y'}: game positions, not compositions.",
             *header,
             f"# {len(probs)} problems. Format: name | sfen | shortest mate length in plies.",
             "# name = g<game>p<ply>: the game number and the ply at which the position arose."]
    for p in probs:
        lines.append(f"g{p['game']:04d}p{p['ply']:03d} | {p['sfen']} | {n}")
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--target", type=int, default=30, help="problems per length (default 30)")
    ap.add_argument("--max-games", type=int, default=4000)
    ap.add_argument("--max-minutes", type=float, default=16.0,
                    help="stop starting games after this long (a safety net; the run is "
                         "reproducible only when the targets are reached before it)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--probe-nodes", type=int, default=60000,
                    help="node limit of each mate probe (default 60000, ~0.3 s)")
    ap.add_argument("--search-nodes", type=int, default=20000,
                    help="node cap of each move search in the games")
    ap.add_argument("--cshogi-nodes", type=int, default=3_000_000)
    ap.add_argument("--hash", type=int, default=16, help="mate table MB per worker")
    ap.add_argument("--out-dir", default=str(TSUME_DIR))
    ap.add_argument("--anomalies", default=str(OUT / "tsume-gen-anomalies.txt"))
    ap.add_argument("--dry-run", action="store_true", help="write no suite file")
    a = ap.parse_args(argv)

    t0 = time.perf_counter()
    kept: dict[int, list[dict]] = {n: [] for n in LENGTHS}
    seen: set[str] = set()
    anomalies: list[dict] = []
    stats = collections.Counter()
    rejected = collections.Counter()
    games_done = 0
    print(f"seed {a.seed}, target {a.target} per length, {a.jobs} workers, probe limit "
          f"{a.probe_nodes} nodes, cshogi {importlib.metadata.version('cshogi')}; {build_info()}",
          flush=True)

    def done() -> bool:
        return all(len(kept[n]) >= a.target for n in LENGTHS)

    with cf.ProcessPoolExecutor(a.jobs, initializer=_init_worker,
                                initargs=(a.hash, 16)) as ex:
        pending: collections.deque = collections.deque()
        next_game = 0
        stopped_by_time = False
        while True:
            while (len(pending) < 2 * a.jobs and next_game < a.max_games and not done()
                   and not stopped_by_time):
                if time.perf_counter() - t0 > a.max_minutes * 60:
                    stopped_by_time = True
                    break
                pending.append(ex.submit(play_game, (next_game, a.seed, a.probe_nodes,
                                                     a.search_nodes, a.cshogi_nodes)))
                next_game += 1
            if not pending:
                break
            res = pending.popleft().result()
            if done():                       # in flight when the targets were reached
                continue
            games_done += 1
            stats.update(res["stats"])
            for c in res["found"]:
                n = c["length"]
                key = sfen_key(c["sfen"])
                if not c["ok"]:
                    rejected[c["anomaly"]] += 1
                    if c["anomaly"] != "inconclusive":
                        anomalies.append(c)
                        print(f"!! {c['anomaly']}: ours {n} plies, {c['sfen']}\n   {c['detail']}",
                              flush=True)
                    continue
                if key in seen or len(kept[n]) >= a.target:
                    continue
                seen.add(key)
                kept[n].append(c)
            if games_done % 20 == 0:
                print(f"  {games_done} games, {time.perf_counter() - t0:.0f} s: "
                      + " ".join(f"{n}:{len(kept[n])}" for n in LENGTHS), flush=True)
        for f in pending:
            f.cancel()
    elapsed = time.perf_counter() - t0

    print(f"\n{games_done} games ({stats['plies']} plies, {stats['probes']} probes) in "
          f"{elapsed / 60:.1f} min" + ("; stopped by --max-minutes" if stopped_by_time else ""))
    print("probe outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())
                                         if k not in ("plies", "probes")))
    print("kept per length: " + ", ".join(f"{n}: {len(kept[n])}" for n in LENGTHS))
    print("rejected candidates: " + (", ".join(f"{k} {v}" for k, v in rejected.items()) or "none"))

    header = [f"# Made by python -m bench.tsume.make_tsume_suites --seed {a.seed} --probe-nodes {a.probe_nodes} "
              f"--search-nodes {a.search_nodes} --target {a.target} on {datetime.date.today()},",
              f"# {build_info()}.",
              "# Length = usi_engine's shortest mate, cross-checked with cshogi: DfPn finds a mate too,",
              "# a full-width search finds none 2 plies shorter, a proof tree shows one within it.",
              f"# The {STRICT_MARK} (every defence counts, useless interpositions included)."]
    if not a.dry_run:
        out_dir = Path(a.out_dir)
        for n in LENGTHS:
            write_suite(out_dir / f"generated-mate{n}.txt", n, kept[n], header)
        print(f"wrote {out_dir}/generated-mate{{{','.join(map(str, LENGTHS))}}}.txt")
    if anomalies:
        path = Path(a.anomalies)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w") as f:
            for c in anomalies:
                f.write(f"{c['anomaly']} | {c['sfen']} | ours {c['length']} | "
                        f"cshogi {c.get('cshogi_length')} | our line {' '.join(c['pv'])} | {c['detail']}\n")
        print(f"{len(anomalies)} anomalies written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
