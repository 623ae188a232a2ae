#!/usr/bin/env python3
"""The tsume benchmark as a tsume tool runs it: through the USI executable, with
`usinewgame` before every problem, side by side with cshogi's solver.

A benchmark, not a test.  Problems: the first --per-suite (default 10) of each of
sfen/tsume/generated-mate3.txt, -mate5 and -mate7 (30 real-game mates in 3 to 7
plies).  For each problem our engine (`python -m usi_engine`, USI_Hash --hash MB,
allocated once at `isready`) gets

    usinewgame / position sfen ... / go mate 10000

and the time is from `go mate` to the `checkmate` line.  The same 30 are then run
again without `usinewgame`.  cshogi's DfPn (a fresh solver per problem, as a new
game; in-process, so it pays no pipe) is timed on the same positions.  Every line is
replayed with cshogi.  KomoringHeights is not run: building it costs more CPU than
this shared machine can spare.

    python -m bench.tsume.usi_tsume_bench
    python -m bench.tsume.usi_tsume_bench --hash 1024 --strict
"""
from __future__ import annotations

import argparse
import datetime
import time

from bench.lib.engines import build_info, optional_module, our_engine, wait_for
from bench.lib.paths import TSUME_DIR
from bench.lib.records import replay_mate_with_cshogi
from bench.lib.suites import read_tsume_suite

SUITES = ("generated-mate3", "generated-mate5", "generated-mate7")


def problems(per_suite: int) -> list[tuple[str, str, int | None]]:
    chosen = []
    for suite in SUITES:
        chosen += [(p.name, p.sfen, p.length)
                   for p in read_tsume_suite(TSUME_DIR / f"{suite}.txt")[:per_suite]]
    return chosen


def run_ours(chosen, hash_mb: int, newgame: bool, strict: bool) -> list[tuple[float, str]]:
    engine = our_engine()
    try:
        engine.send("usi")
        wait_for(engine, "usiok", 30)
        engine.send(f"setoption name USI_Hash value {hash_mb}")
        engine.send(f"setoption name MateLength value {'strict' if strict else 'published'}")
        engine.send("isready")
        wait_for(engine, "readyok", 120)
        results = []
        for _, sfen, _ in chosen:
            if newgame:
                engine.send("usinewgame")
            engine.send("position sfen " + sfen)
            sent = time.monotonic()      # before the write: the reply may come first
            engine.send("go mate 10000")
            t, lines = wait_for(engine, "checkmate", 30)
            results.append((t - sent, lines[-1]))
        return results
    finally:
        engine.quit()


def run_cshogi(chosen) -> list[tuple[float, str]]:
    cshogi = optional_module("cshogi")
    if cshogi is None:
        return []
    results = []
    for _, sfen, _ in chosen:
        board = cshogi.Board(sfen)
        solver = cshogi.DfPn()
        start = time.perf_counter()
        found = solver.search(board)
        took = time.perf_counter() - start
        line = [cshogi.move_to_usi(m) for m in solver.get_pv(board)] if found else []
        results.append((took, "checkmate " + " ".join(line) if found else "checkmate nomate"))
    return results


def plies(reply: str) -> int:
    words = reply.split()[1:]
    return 0 if words in (["nomate"], ["timeout"], ["notimplemented"]) else len(words)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-suite", type=int, default=10)
    parser.add_argument("--hash", type=int, default=256)
    parser.add_argument("--strict", action="store_true", help="MateLength strict")
    args = parser.parse_args()
    chosen = problems(args.per_suite)
    print(f"# {datetime.date.today()}  {build_info()}  USI_Hash {args.hash}  "
          f"MateLength {'strict' if args.strict else 'published'}")
    with_newgame = run_ours(chosen, args.hash, True, args.strict)
    without = run_ours(chosen, args.hash, False, args.strict)
    theirs = run_cshogi(chosen)
    print(f"{'problem':<12} {'len':>3}  {'ours ms':>8} {'plies':>5}  {'no-newgame ms':>13}  "
          f"{'cshogi ms':>9} {'plies':>5}  check")
    bad = 0
    for i, (name, sfen, length) in enumerate(chosen):
        ours_s, ours = with_newgame[i]
        line = ours.split()[1:]
        problem = replay_mate_with_cshogi(sfen, line) if plies(ours) else "no mate"
        bad += bool(problem)
        their_s, their = theirs[i] if theirs else (float("nan"), "-")
        print(f"{name:<12} {length or '?':>3}  {ours_s * 1000:>8.1f} {plies(ours):>5}  "
              f"{without[i][0] * 1000:>13.1f}  {their_s * 1000:>9.1f} "
              f"{plies(their) if theirs else '-':>5}  {problem or 'ok'}")
    exact = sum(plies(r) == length for (_, _, length), (_, r) in zip(chosen, with_newgame))
    print(f"\ntotal, {len(chosen)} problems: ours with usinewgame {sum(t for t, _ in with_newgame):.3f} s, "
          f"without {sum(t for t, _ in without):.3f} s; cshogi DfPn "
          + (f"{sum(t for t, _ in theirs):.3f} s" if theirs else "not installed"))
    print(f"ours: {len(chosen) - bad}/{len(chosen)} mates replayed by cshogi, {exact} at the "
          f"suite's length")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
