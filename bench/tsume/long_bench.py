#!/usr/bin/env python3
"""The tsume frontier: the verified long compositions (sfen/tsume/long.txt) for us and
for KomoringHeights, in one run on the same machine, through USI as a tsume tool runs
them (`usinewgame`, `position`, `go mate T`).

A benchmark, not a test. Each problem's published length, and for each engine its
answer's length (replayed with cshogi: legal, every attacker move a check, mate at the
end), the time from `go mate` to `checkmate` and the nodes of its last info line; then
the totals over the problems both solved. KomoringHeights is the build of
../shared/tools/setup-peers.sh (~/.cache/usi-peers/komoring-heights), given Threads =
this machine's cores and the same USI_Hash; our solver is single-threaded. The
published times (komorinfo.com, 2022-05-18) were on 4 vCPUs (r5.xlarge) with a 29 GB
table: the header says how this machine differs.

    python -m bench.tsume.long_bench                          # every problem, 600 s each
    python -m bench.tsume.long_bench --time 60 --max-length 200 --hash 2048
    python -m bench.tsume.long_bench --only "Zuko 98" --engines ours
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
from pathlib import Path

from bench.lib.engines import build_info, our_engine, wait_for
from bench.lib.paths import TSUME_DIR
from bench.lib.records import replay_mate_with_cshogi
from bench.lib.suites import read_tsume_suite
from usi_engine.usi.client import UsiClient

KOMORING = Path.home() / ".cache" / "usi-peers" / "komoring-heights"
_NODES = re.compile(r"\bnodes (\d+)")


def engine(name: str, hash_mb: int):
    """A started engine with its options set, or None when it is not built."""
    if name == "ours":
        client = our_engine()
        options = {"USI_Hash": hash_mb, "MateLength": "published"}
    else:
        if not os.access(KOMORING, os.X_OK):
            print(f"# KomoringHeights is not built at {KOMORING} "
                  "(../shared/tools/setup-peers.sh builds it): not run")
            return None
        client = UsiClient([str(KOMORING)], cwd=str(KOMORING.parent), name=name)
        options = {"USI_Hash": hash_mb, "Threads": os.cpu_count() or 1}
    client.send("usi")
    wait_for(client, "usiok", 60)
    for option, value in options.items():
        client.send(f"setoption name {option} value {value}")
    client.send("isready")
    wait_for(client, "readyok", 600)
    return client


def solve(client, sfen: str, seconds: int) -> tuple[float, int, str]:
    """(seconds taken, nodes, the checkmate line) of one problem."""
    client.send("usinewgame")
    client.send("position sfen " + sfen)
    sent = client.send(f"go mate {seconds * 1000}")
    at, lines = wait_for(client, "checkmate", seconds + 60)
    nodes = 0
    for line in lines:
        found = _NODES.search(line)
        if found:
            nodes = int(found.group(1))
    return at - sent, nodes, lines[-1]


def plies(reply: str) -> int:
    words = reply.split()[1:]
    return 0 if words in (["nomate"], ["timeout"], ["notimplemented"]) else len(words)


def machine() -> str:
    memory = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        pass
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs"
            f"{memory} (the published KomoringHeights times: 4 vCPUs, a 29 GB table)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time", type=int, default=600, help="seconds a problem (600)")
    parser.add_argument("--hash", type=int, default=2048, help="USI_Hash in MB (2048)")
    parser.add_argument("--max-length", type=int, default=None,
                        help="only problems of at most this many plies")
    parser.add_argument("--only", action="append", default=[],
                        help="a problem whose name starts with this (repeatable)")
    parser.add_argument("--engines", default="ours,komoring",
                        help="comma-separated: ours, komoring (default both)")
    args = parser.parse_args()
    problems = [p for p in read_tsume_suite(TSUME_DIR / "long.txt")
                if (args.max_length is None or (p.length or 0) <= args.max_length)
                and (not args.only or any(p.name.startswith(o) for o in args.only))]
    print(f"# {datetime.date.today()}  {build_info()}  {machine()}")
    print(f"# go mate {args.time} s a problem, USI_Hash {args.hash} MB, {len(problems)} problems")
    results: dict[str, list[tuple[float, int, str]]] = {}
    for name in args.engines.split(","):
        client = engine(name.strip(), args.hash)
        if client is None:
            continue
        try:
            results[name] = [solve(client, p.sfen, args.time) for p in problems]
        finally:
            client.quit()
    header = f"{'problem':<32} {'published':>9}"
    for name in results:
        header += f"  {name + ' plies':>14} {'s':>8} {'nodes':>12}"
    print(header)
    for i, problem in enumerate(problems):
        row = f"{problem.name[:32]:<32} {problem.length if problem.length else '?':>9}"
        for name, answers in results.items():
            taken, nodes, reply = answers[i]
            count = plies(reply)
            fault = replay_mate_with_cshogi(problem.sfen, reply.split()[1:]) if count else ""
            shown = f"{count}{'!' if fault else ''}" if count else reply.split()[1]
            row += f"  {shown:>14} {taken:>8.1f} {nodes:>12}"
        print(row)
    both = [i for i in range(len(problems))
            if results and all(plies(answers[i][2]) for answers in results.values())]
    for name, answers in results.items():
        solved = sum(1 for answer in answers if plies(answer[2]))
        exact = sum(1 for p, answer in zip(problems, answers) if plies(answer[2]) == p.length)
        seconds = sum(answers[i][0] for i in both)
        print(f"# {name}: solved {solved}/{len(problems)}, at the published length {exact}; "
              f"{seconds:.1f} s over the {len(both)} all solved")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
