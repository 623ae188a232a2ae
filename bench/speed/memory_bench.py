#!/usr/bin/env python3
"""Memory and latency of the USI engine under real use, at several USI_Hash sizes.

A benchmark, not a test (tests/usi/test_usi_memory.py checks the same behaviours with
generous margins).  For each size it starts the engine (`python -m usi_engine` from
this checkout) and prints:

  * isready_ms       `setoption name USI_Hash value N` + `isready` -> `readyok`
                     (the table memory is allocated and touched here, in a thread)
  * rss_isready      the process's resident memory (VmRSS, MB) after `readyok`
  * first_mate_ms    `go mate 10000` on a 3-ply mate, the first `go mate` of the
                     process, after `usinewgame`: time from the command to `checkmate`
  * rss_mate         VmRSS after that `go mate` and one more of 2 s on a hard problem
  * rss_go           VmRSS after a `go byoyomi 2000` on a middle-game position
  * newgame_ms       `usinewgame` + `isready` -> `readyok` after those searches
  * budget           whether every RSS figure is within USI_Hash + 80 MB

Then, at --long-hash MB (default 1024), during a long `go mate infinite` (the
1525-ply Microcosmos): how long `isready` waits for `readyok`, and how long `quit`
takes to print the owed `checkmate` line and to end the process.

    python -m bench.speed.memory_bench                # 16, 256, 1024, 4096 MB
    python -m bench.speed.memory_bench --sizes 16 256       # smaller machines

Linux only (VmRSS from /proc).  Needs free memory for the largest size.
"""
from __future__ import annotations

import argparse
import datetime
import platform
import time

from bench.lib.engines import UsiClient, build_info, our_engine, wait_for

MATE_IN_3 = "sfen 3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"
HARD_NO_MATE = "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
MICROCOSMOS = ("sfen g1+P1k1+P+P+L/1p3P3/+R+p2pp1pl/1NNsg+p2+R/+b+nL+P1+p3/1P3ssP1/2P1+Ps2N/"
               "4+P1P1L/+B5G1g b - 1")
MIDDLE_GAME = "sfen ln1gkg3/1r1s1s2+B/ppppp1npp/6p2/5l1P1/2P6/PPNPPPP1P/3S1S1R1/+b2GKG1NL w Lp 30"
SLACK_MB = 80


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def start() -> UsiClient:
    engine = our_engine()
    engine.usi(30)
    return engine


def measure_size(hash_mb: int) -> dict:
    engine = start()
    try:
        sent = engine.send(f"setoption name USI_Hash value {hash_mb}")
        engine.send("isready")
        t, lines = wait_for(engine, "readyok", 120)
        row = {"hash": hash_mb, "isready_ms": (t - sent) * 1000,
               "notes": [ln for ln in lines if ln.startswith("info string")]}
        row["rss_isready"] = rss_mb(engine.proc.pid)
        engine.send("usinewgame")
        engine.send("position " + MATE_IN_3)
        sent = time.monotonic()          # before the write: the reply may come first
        engine.send("go mate 10000")
        t, lines = wait_for(engine, "checkmate", 30)
        row["first_mate_ms"] = (t - sent) * 1000
        row["first_mate"] = lines[-1]
        engine.send("position " + HARD_NO_MATE)
        engine.send("go mate 2000")
        wait_for(engine, "checkmate", 30)
        row["rss_mate"] = rss_mb(engine.proc.pid)
        engine.send("position " + MIDDLE_GAME)
        engine.send("go byoyomi 2000")
        wait_for(engine, "bestmove", 30)
        row["rss_go"] = rss_mb(engine.proc.pid)
        sent = engine.send("usinewgame")
        engine.send("isready")
        t, _ = wait_for(engine, "readyok", 30)
        row["newgame_ms"] = (t - sent) * 1000
        row["budget"] = max(row["rss_isready"], row["rss_mate"], row["rss_go"]) <= hash_mb + SLACK_MB
        return row
    finally:
        engine.quit()


def measure_long_mate(hash_mb: int) -> dict:
    engine = start()
    try:
        engine.send(f"setoption name USI_Hash value {hash_mb}")
        engine.send("isready")
        wait_for(engine, "readyok", 120)
        engine.send("position " + MICROCOSMOS)
        engine.send("go mate infinite")
        time.sleep(2.0)
        sent = engine.send("isready")
        t, _ = wait_for(engine, "readyok", 30)
        isready_ms = (t - sent) * 1000
        sent = engine.send("quit")
        t, lines = wait_for(engine, "checkmate", 30)
        owed_ms = (t - sent) * 1000
        engine.proc.wait(timeout=10)
        exit_ms = (time.monotonic() - sent) * 1000
        return {"isready_ms": isready_ms, "checkmate_ms": owed_ms, "exit_ms": exit_ms,
                "owed": lines[-1], "code": engine.proc.returncode}
    finally:
        if engine.proc.poll() is None:
            engine.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 256, 1024, 4096])
    parser.add_argument("--long-hash", type=int, default=1024)
    args = parser.parse_args()
    print(f"# {datetime.date.today()}  {platform.machine()} {platform.system()}  {build_info()}")
    print(f"# budget: RSS within USI_Hash + {SLACK_MB} MB")
    print(f"{'USI_Hash':>8} {'isready_ms':>10} {'rss_isready':>11} {'first_mate_ms':>13} "
          f"{'rss_mate':>8} {'rss_go':>7} {'newgame_ms':>10}  budget")
    for size in args.sizes:
        r = measure_size(size)
        print(f"{r['hash']:>8} {r['isready_ms']:>10.0f} {r['rss_isready']:>11.0f} "
              f"{r['first_mate_ms']:>13.1f} {r['rss_mate']:>8.0f} {r['rss_go']:>7.0f} "
              f"{r['newgame_ms']:>10.1f}  {'ok' if r['budget'] else 'OVER'}", flush=True)
        for note in r["notes"]:
            print(f"{'':>8} {note}")
    r = measure_long_mate(args.long_hash)
    print(f"\nduring a long go mate at {args.long_hash} MB: isready -> readyok "
          f"{r['isready_ms']:.1f} ms; quit -> owed '{r['owed']}' {r['checkmate_ms']:.1f} ms, "
          f"exit {r['exit_ms']:.0f} ms (code {r['code']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
