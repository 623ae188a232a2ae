#!/usr/bin/env python3
"""Tsume-solving benchmark: usi_engine's MateSolver side by side with cshogi's DfPn.

A benchmark, not a test.  For every problem of the chosen suites (default: every
sfen/tsume/*.txt; lines `name | sfen | published length or ?`) it runs

  * ours:   MateSolver (table of --hash MB, cleared before each problem),
            solve(Position(sfen), time_ms=LIMIT): the shortest mate against the
            longest defence, or 'nomate' / 'timeout';
  * cshogi: cshogi.DfPn() (no depth or node limit of its own) in a separate worker
            process that is killed when the same wall-clock LIMIT has passed.  cshogi
            has no time limit and its search cannot be interrupted from Python, so a
            process and a clock are the only way to give it the same limit as ours;
            a node limit derived from a measured speed would not be the same limit on
            problems where its speed differs.  On a time-out its node count is lost
            ('-').  The worker times its own search, so process overhead is not counted.

Both run one after the other, never at the same time.  Every mating line (ours and
cshogi's) is replayed with cshogi, independently of our code: legal moves, every
attacker move gives check, the last position is mate, odd length.

Flags (printed next to the row, repeated at the end, exit status 1):
  FALSE-NOMATE   our solver said 'nomate' on a problem that has a mate (all of them do)
  REPLAY-FAILED  a mating line failed the replay check
Notes (printed, exit status unaffected):
  SHORTER        our line is shorter than the published/expected length
  LONGER         our line is longer than the published/expected length
  CSHOGI-SHORTER cshogi's line is shorter than ours (ours claims to be the shortest)
  GAVE-UP-EARLY  ours answered 'timeout' well before the limit (it stopped searching)
  at-limit       ours returned a mate at the limit: not proved to be the shortest
  cshogi-nomate  cshogi said no mate

    python -m bench.tsume.tsume_bench                       # every suite, default limits
    python -m bench.tsume.tsume_bench --suite generated-mate7 --suite classic
    python -m bench.tsume.tsume_bench --suite classic --time-ms 30000 --csv t.csv --plot t.png
    python -m bench.tsume.tsume_bench --quick               # short limits, a smoke run
    python -m bench.tsume.tsume_bench --first-mate          # ours without the shortest-mate proof

Limits per problem: --time-ms (default 10000) for every suite, except the classic suite
which gets --classic-time-ms (default 30000) unless --time-ms is given explicitly
and --classic-time-ms is not.  --quick: 1000 ms and 3000 ms.
"""
from __future__ import annotations

import argparse
import csv
import importlib.metadata
import math
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.lib.engines import build_info, optional_module
from bench.lib.paths import REPO as ROOT
from bench.lib.paths import TSUME_DIR
from bench.lib.records import replay_mate_with_cshogi
from bench.lib.suites import read_tsume_suite
from usi_engine.core.position import Position, move_to_usi
from usi_engine.mate.solver import MateSolver

cshogi = optional_module("cshogi")

CSHOGI_MAX_DEPTH = 2000          # above Microcosmos' 1525 plies
WARMUP_SFEN = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"


# ---------------------------------------------------------------- suites

@dataclass
class Problem:
    suite: str
    name: str
    sfen: str
    expected: int | None          # published / expected length, None when unknown
    strict: bool = False          # the suite counts every defence (no useless-block rule)


def suite_sort_key(path: Path):
    stem = path.stem
    digits = "".join(ch for ch in stem if ch.isdigit())
    return (stem.startswith("generated"), stem.rstrip("0123456789"), int(digits or 0))


def find_suites(choices: list[str] | None) -> list[Path]:
    if not choices:
        return sorted(TSUME_DIR.glob("*.txt"), key=suite_sort_key)
    out = []
    for c in choices:
        p = Path(c)
        if not p.exists():
            p = TSUME_DIR / (c if c.endswith(".txt") else c + ".txt")
        if not p.exists():
            raise SystemExit(f"no suite {c!r} (looked for {c} and {p})")
        out.append(p)
    return out


def load_suite(path: Path) -> list[Problem]:
    """Problems of a suite file (bench.lib.suites.read_tsume_suite: every line must
    be ``name | sfen | length``; a header holding bench.lib.suites.STRICT_MARK makes its lengths strict)."""
    return [Problem(p.suite, p.name, p.sfen, p.length, p.strict)
            for p in read_tsume_suite(path, exact=True)]


# ---------------------------------------------------------------- checks

def replay_check(sfen: str, line: list[str]) -> str:
    """'' when line is a mate in cshogi (or cshogi is missing), else what is wrong."""
    return "" if cshogi is None else replay_mate_with_cshogi(sfen, line)


# ---------------------------------------------------------------- cshogi worker

def _cshogi_worker(conn) -> None:
    import cshogi as cs
    d = cs.DfPn()                      # warm-up, untimed
    d.search(cs.Board(WARMUP_SFEN))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        b = cs.Board(msg)
        d = cs.DfPn()
        d.set_max_depth(CSHOGI_MAX_DEPTH)
        t = time.perf_counter()
        ok = d.search(b)
        el = time.perf_counter() - t
        line = [cs.move_to_usi(m) for m in d.get_pv(b)] if ok else []
        conn.send((bool(ok), line, d.searched_node, el))


class CshogiRunner:
    """cshogi's DfPn in a child process, killed at the time limit.  The child is
    spawned, not forked: a fork would share our 1 GB table copy-on-write, and our next
    solve would pay the page copies inside its timing."""

    def __init__(self):
        self.ctx = mp.get_context("spawn")
        self.proc = None
        self.conn = None

    def _start(self):
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_cshogi_worker, args=(child,), daemon=True)
        self.proc.start()
        child.close()

    def _kill(self):
        if self.proc is not None:
            self.proc.kill()          # only the worker this runner started
            self.proc.join()
            self.proc = None

    def solve(self, sfen: str, limit_ms: int) -> dict:
        if self.proc is None or not self.proc.is_alive():
            self._start()
        self.conn.send(sfen)
        grace = 0.5 + limit_ms / 1000 * 0.02
        if self.conn.poll(limit_ms / 1000 + grace):
            try:
                ok, line, nodes, el = self.conn.recv()
            except EOFError:
                self._kill()
                return dict(status="error", line=[], nodes=None, ms=None)
            ms = el * 1000
            if ms > limit_ms:
                return dict(status="timeout", line=[], nodes=nodes, ms=float(limit_ms))
            return dict(status="mate" if ok else "nomate", line=line, nodes=nodes, ms=ms)
        if not self.proc.is_alive():
            self._kill()
            return dict(status="error", line=[], nodes=None, ms=None)
        self._kill()
        return dict(status="timeout", line=[], nodes=None, ms=float(limit_ms))

    def close(self):
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(None)
                self.proc.join(2)
            except (BrokenPipeError, OSError):
                pass
        self._kill()


# ---------------------------------------------------------------- running

@dataclass
class Row:
    prob: Problem
    limit_ms: int
    ours: dict = field(default_factory=dict)
    peer: dict = field(default_factory=dict)
    flags: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def run_ours(solver: MateSolver, prob: Problem, limit_ms: int, shortest: bool = True) -> dict:
    solver.clear()
    progress: dict = {}

    def on_info(d):
        progress.update(d)

    pos = Position(prob.sfen)
    t = time.perf_counter()
    r = solver.solve(pos, time_ms=limit_ms, on_info=on_info, shortest=shortest,
                     published=not prob.strict)
    ms = (time.perf_counter() - t) * 1000
    line = [move_to_usi(m) for m in r.pv]
    return dict(status=r.status, line=line, nodes=r.nodes, ms=ms, progress=progress,
                hashfull=solver.hashfull())


def judge(row: Row) -> None:
    p, o, c = row.prob, row.ours, row.peer
    if o["status"] == "nomate":
        row.flags.append("FALSE-NOMATE")
    if o["status"] == "timeout" and o["ms"] < row.limit_ms * 0.9:
        row.notes.append(f"GAVE-UP-EARLY(timeout after {o['ms'] / 1000:.1f} s)")
    if o["status"] == "mate":
        bad = replay_check(p.sfen, o["line"])
        o["replay"] = bad or "ok"
        if bad:
            row.flags.append("REPLAY-FAILED(ours: " + bad + ")")
        if o["ms"] >= row.limit_ms * 0.98:
            row.notes.append("at-limit(shortest not guaranteed)")
        if p.expected is not None and len(o["line"]) < p.expected:
            row.notes.append("SHORTER")
        if p.expected is not None and len(o["line"]) > p.expected:
            row.notes.append("LONGER")
    if c.get("status") == "mate":
        bad = replay_check(p.sfen, c["line"])
        c["replay"] = bad or "ok"
        if bad:
            row.flags.append("REPLAY-FAILED(cshogi: " + bad + ")")
        if o["status"] == "mate" and len(c["line"]) < len(o["line"]):
            row.notes.append("CSHOGI-SHORTER")
    if c.get("status") == "nomate":
        row.notes.append("cshogi-nomate")
    if c.get("status") == "error":
        row.notes.append("cshogi-crashed")


# ---------------------------------------------------------------- output

def fmt_ms(ms) -> str:
    if ms is None:
        return "-"
    return f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def fmt_nodes(n) -> str:
    return "-" if n is None else f"{n:,}"


def fmt_status(d: dict) -> str:
    if d.get("status") == "mate":
        return f"mate {len(d['line'])}"
    return d.get("status", "-")


TABLE_HEADER = (f"{'problem':<26} {'exp':>5} | {'ours':>10} {'ms':>8} {'nodes':>12} | "
                f"{'cshogi':>10} {'ms':>8} {'nodes':>12} | notes")


def print_header() -> None:
    print(TABLE_HEADER)
    print("-" * len(TABLE_HEADER))


def print_row(r: Row) -> None:
    exp = "?" if r.prob.expected is None else str(r.prob.expected)
    marks = " ".join(["!! " + f for f in r.flags] + r.notes)
    print(f"{r.prob.name[:26]:<26} {exp:>5} | {fmt_status(r.ours):>10} {fmt_ms(r.ours['ms']):>8} "
          f"{fmt_nodes(r.ours['nodes']):>12} | {fmt_status(r.peer):>10} {fmt_ms(r.peer.get('ms')):>8} "
          f"{fmt_nodes(r.peer.get('nodes')):>12} | {marks}", flush=True)


def summarize(suite: str, rows: list[Row], limit_ms: int) -> dict:
    n = len(rows)
    o_solved = [r for r in rows if r.ours["status"] == "mate"]
    c_solved = [r for r in rows if r.peer.get("status") == "mate"]
    known = [r for r in rows if r.prob.expected is not None]
    o_match = sum(1 for r in o_solved if r.prob.expected is not None and len(r.ours["line"]) == r.prob.expected)
    c_match = sum(1 for r in c_solved if r.prob.expected is not None and len(r.peer["line"]) == r.prob.expected)
    both = [r for r in rows if r.ours["status"] == "mate" and r.peer.get("status") == "mate"]
    o_times = [r.ours["ms"] for r in o_solved]
    c_times = [r.peer["ms"] for r in c_solved]

    def med(x):
        return statistics.median(x) if x else None

    def mean(x):
        return statistics.fmean(x) if x else None

    ratio_sum = gmean = None
    if both:
        so = sum(r.ours["ms"] for r in both)
        sc = sum(r.peer["ms"] for r in both)
        ratio_sum = sc / so if so > 0 else None
        logs = [math.log(max(r.peer["ms"], 0.01) / max(r.ours["ms"], 0.01)) for r in both]
        gmean = math.exp(statistics.fmean(logs))
    s = dict(suite=suite, n=n, limit_ms=limit_ms, known=len(known),
             o_solved=len(o_solved), c_solved=len(c_solved), o_match=o_match, c_match=c_match,
             o_med=med(o_times), o_mean=mean(o_times), c_med=med(c_times), c_mean=mean(c_times),
             both=len(both), ratio_sum=ratio_sum, gmean=gmean,
             false_nomate=sum(1 for r in rows if "FALSE-NOMATE" in r.flags),
             replay_failed=sum(1 for r in rows if any(f.startswith("REPLAY") for f in r.flags)))
    print(f"summary {suite}: {n} problems at {limit_ms} ms")
    print(f"  solved:          ours {s['o_solved']}/{n}, cshogi {s['c_solved']}/{n}")
    if known:
        print(f"  length matches:  ours {o_match}/{len(known)}, cshogi {c_match}/{len(known)} "
              f"(problems with a published/expected length)")
    print(f"  time (solved):   ours median {fmt_ms(s['o_med'])} ms, mean {fmt_ms(s['o_mean'])} ms; "
          f"cshogi median {fmt_ms(s['c_med'])} ms, mean {fmt_ms(s['c_mean'])} ms")
    if both:
        print(f"  ratio cshogi/ours on the {len(both)} solved by both: total time "
              f"{s['ratio_sum']:.2f}, geometric mean {s['gmean']:.2f} (above 1: ours faster)")
    print(f"  false nomate: {s['false_nomate']}, failed replays: {s['replay_failed']}")
    return s


def print_targets(summaries: dict, rows_by_suite: dict) -> None:
    if not any(f"generated-mate{k}" in summaries for k in (3, 5, 7)) and "classic" not in summaries:
        return
    print("\nTargets (all generated mates in 3-7 plies with the shortest line, ~10 ms each):")
    for k in (3, 5, 7):
        name = f"generated-mate{k}"
        s = summaries.get(name)
        if not s:
            continue
        rows = rows_by_suite[name]
        shortest = sum(1 for r in rows if r.ours["status"] == "mate" and len(r.ours["line"]) == k)
        times = sorted(r.ours["ms"] for r in rows if r.ours["status"] == "mate")
        worst = times[-1] if times else None
        within = sum(1 for t in times if t <= 10)
        met = shortest == s["n"] and s["o_med"] is not None and s["o_med"] <= 10
        print(f"  generated mates in {k}: target all solved with the shortest line in ~10 ms each: "
              f"{shortest}/{s['n']} with the shortest line, median {fmt_ms(s['o_med'])} ms, "
              f"{within}/{s['n']} within 10 ms, max {fmt_ms(worst)} ms -> "
              f"{'met (on the median)' if met else 'NOT met'}")
    s = summaries.get("classic")
    if s:
        at30 = s["limit_ms"] >= 30000
        met = s["o_solved"] > 8 and s["false_nomate"] == 0
        print(f"  classic suite at 30 s per problem: target more than 8 of {s['n']} solved, no false "
              f"nomate: ours {s['o_solved']}/{s['n']}, false nomate {s['false_nomate']} -> "
              + (("met" if met else "NOT met") if at30 else
                 f"not judged (this run used {s['limit_ms']} ms per problem)"))
        for r in rows_by_suite["classic"]:
            if r.prob.name.lower().startswith("microcosmos"):
                o, c = r.ours, r.peer
                prog = o.get("progress") or {}
                how = (f"solved, {len(o['line'])} plies" if o["status"] == "mate" else
                       f"{o['status']} after {fmt_nodes(o['nodes'])} nodes in {fmt_ms(o['ms'])} ms"
                       + (f", best mate proved so far {prog.get('mate_length')} plies"
                          if prog.get("mate_length") else ", no mate proved yet")
                       + f", table {o.get('hashfull', 0) / 10:.0f}% full")
                print(f"  Microcosmos (1525 plies): ours {how}; cshogi {fmt_status(c)}"
                      + (f" in {fmt_ms(c.get('ms'))} ms" if c.get("ms") is not None else ""))


def write_csv(path: str, rows: list[Row]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["suite", "name", "sfen", "expected", "limit_ms",
                    "ours_status", "ours_length", "ours_ms", "ours_nodes", "ours_replay", "ours_line",
                    "cshogi_status", "cshogi_length", "cshogi_ms", "cshogi_nodes", "cshogi_replay",
                    "cshogi_line", "flags", "notes"])
        for r in rows:
            o, c = r.ours, r.peer
            w.writerow([r.prob.suite, r.prob.name, r.prob.sfen,
                        "" if r.prob.expected is None else r.prob.expected, r.limit_ms,
                        o["status"], len(o["line"]) if o["status"] == "mate" else "",
                        f"{o['ms']:.3f}", o["nodes"], o.get("replay", ""), " ".join(o["line"]),
                        c.get("status", ""), len(c["line"]) if c.get("status") == "mate" else "",
                        "" if c.get("ms") is None else f"{c['ms']:.3f}",
                        "" if c.get("nodes") is None else c["nodes"], c.get("replay", ""),
                        " ".join(c.get("line", [])), ";".join(r.flags), ";".join(r.notes)])


def write_plot(path: str, rows: list[Row]) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot written")
        return
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(16, 6), gridspec_kw={"width_ratios": [3, 1]})
    xs = list(range(len(rows)))

    def series(key):
        solved, failed = ([], []), ([], [])
        for x, r in zip(xs, rows):
            d = r.ours if key == "ours" else r.peer
            ms = d.get("ms")
            if d.get("status") == "mate":
                solved[0].append(x)
                solved[1].append(max(ms, 0.01))
            else:
                failed[0].append(x)
                failed[1].append(max(ms if ms is not None else r.limit_ms, 0.01))
        return solved, failed

    for key, color, mk in (("ours", "tab:blue", "o"), ("cshogi", "tab:orange", "s")):
        (sx, sy), (fx, fy) = series(key)
        ax.scatter(sx, sy, c=color, marker=mk, s=18, label=f"{key} solved", alpha=0.8)
        ax.scatter(fx, fy, c=color, marker="x", s=30, label=f"{key} not solved (time-out/nomate)")
    bounds, last = [], None
    for x, r in zip(xs, rows):
        if r.prob.suite != last:
            bounds.append((x, r.prob.suite))
            last = r.prob.suite
    for x, name in bounds:
        ax.axvline(x - 0.5, color="grey", lw=0.5)
        ax.text(x, 1.02, name.replace("generated-", ""), transform=ax.get_xaxis_transform(),
                fontsize=7, rotation=30, ha="left", va="bottom")
    ax.set_yscale("log")
    if len(rows) <= 40:
        ax.set_xticks(xs)
        ax.set_xticklabels([r.prob.name for r in rows], rotation=60, ha="right", fontsize=7)
    ax.set_xlabel("problem (grouped by suite)")
    ax.set_ylabel("solve time (ms, log scale)")
    ax.legend(fontsize=8, loc="best", framealpha=0.6)
    ax.grid(True, which="both", axis="y", alpha=0.3)
    # ours vs cshogi on the problems both solved
    both = [r for r in rows if r.ours["status"] == "mate" and r.peer.get("status") == "mate"]
    if both:
        ox = [max(r.ours["ms"], 0.01) for r in both]
        cy = [max(r.peer["ms"], 0.01) for r in both]
        ax2.scatter(ox, cy, s=14, alpha=0.7)
        lo, hi = min(ox + cy) / 2, max(ox + cy) * 2
        ax2.plot([lo, hi], [lo, hi], color="grey", lw=0.8)
        ax2.set_xscale("log")
        ax2.set_yscale("log")
        ax2.set_xlabel("ours (ms)")
        ax2.set_ylabel("cshogi (ms)")
        ax2.set_title("solved by both (above the line: ours faster)", fontsize=9)
    fig.suptitle("tsume solve time per problem: usi_engine MateSolver vs cshogi DfPn")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot written to {path}")


def machine_line() -> str:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    def ver(pkg):
        try:
            return importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            return "absent"
    import usi_engine
    return (f"machine: {cpu}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}, "
            f"usi_engine {getattr(usi_engine, '__version__', '?')}, cshogi {ver('cshogi')}, "
            f"matplotlib {ver('matplotlib')}")


# ---------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", action="append", help="suite name (file stem under sfen/tsume) or "
                    "path; repeatable; default: every sfen/tsume/*.txt")
    ap.add_argument("--time-ms", type=int, default=None, help="limit per problem (default 10000)")
    ap.add_argument("--classic-time-ms", type=int, default=None,
                    help="limit per problem for the classic suite (default 30000, or --time-ms "
                         "when that is given)")
    ap.add_argument("--hash", type=int, default=1024, help="our mate table in MB (default 1024)")
    ap.add_argument("--csv", help="write one row per problem")
    ap.add_argument("--plot", help="write a PNG of the solve times")
    ap.add_argument("--quick", action="store_true", help="short limits: 1000 ms, classic 3000 ms")
    ap.add_argument("--no-cshogi", action="store_true", help="run our solver only")
    ap.add_argument("--first-mate", action="store_true",
                    help="ours stops at its first proved mate (solve(shortest=False)), like "
                         "cshogi's DfPn: a like-for-like speed comparison; lengths may be longer")
    a = ap.parse_args(argv)

    base = a.time_ms if a.time_ms is not None else (1000 if a.quick else 10000)
    classic = (a.classic_time_ms if a.classic_time_ms is not None else
               a.time_ms if a.time_ms is not None else (3000 if a.quick else 30000))

    print(machine_line())
    print(build_info())
    if cshogi is None:
        print("cshogi is not installed (pip install -e '.[bench]'): ours only, no replay check")
        a.no_cshogi = True
    print("ours: MateSolver, %d MB table cleared before each problem, solve(time_ms=LIMIT), wall "
          "clock around the call" % a.hash)
    if not a.no_cshogi:
        print("cshogi: DfPn() with no node limit and max depth %d, in a worker process killed at "
              "the same LIMIT (cshogi has no time limit and cannot be stopped from Python; a node "
              "limit from a measured speed would not be the same limit where its speed differs); "
              "nodes are unknown ('-') when it is killed; its own clock around search()"
              % CSHOGI_MAX_DEPTH)
    if a.first_mate:
        print("--first-mate: ours stops at its first proved mate, as cshogi's DfPn does; "
              "neither line need be the shortest")
    else:
        print("cshogi's DfPn stops at the first mate it proves (not necessarily the shortest); "
              "ours then goes on to prove there is none shorter, which is part of its time "
              "(--first-mate compares like for like)")
    print("both get one untimed warm-up solve first; ratio = cshogi time / our time on problems "
          "both solved (above 1: ours faster)\n")

    solver = MateSolver()
    solver.set_hash(a.hash)
    runner = None if a.no_cshogi else CshogiRunner()
    # warm-up, untimed: the first solve after allocating a table pays one-off costs
    # (tens of ms), and the cshogi worker process has to start
    run_ours(solver, Problem("warm-up", "warm-up", WARMUP_SFEN, 1), 1000)
    if runner:
        runner.solve(WARMUP_SFEN, 5000)
    all_rows: list[Row] = []
    rows_by_suite: dict = {}
    summaries: dict = {}
    t0 = time.perf_counter()
    try:
        for path in find_suites(a.suite):
            probs = load_suite(path)
            limit = classic if path.stem == "classic" else base
            print(f"== {path.stem} ({path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}): "
                  f"{len(probs)} problems, limit {limit} ms each")
            rows = []
            print_header()
            for p in probs:
                row = Row(p, limit)
                row.ours = run_ours(solver, p, limit, shortest=not a.first_mate)
                row.peer = runner.solve(p.sfen, limit) if runner else {}
                judge(row)
                rows.append(row)
                print_row(row)
            summaries[path.stem] = summarize(path.stem, rows, limit)
            rows_by_suite[path.stem] = rows
            all_rows.extend(rows)
            print(flush=True)
    finally:
        if runner:
            runner.close()

    if len(summaries) > 1:
        print("Overview")
        print(f"{'suite':<18} {'limit':>7} {'n':>4} {'ours':>5} {'cshogi':>6} {'len ok':>7} "
              f"{'cs len ok':>9} {'ours med ms':>12} {'cshogi med ms':>14} {'ratio':>6}")
        for s in summaries.values():
            print(f"{s['suite']:<18} {s['limit_ms']:>7} {s['n']:>4} {s['o_solved']:>5} {s['c_solved']:>6} "
                  f"{(str(s['o_match']) + '/' + str(s['known'])):>7} "
                  f"{(str(s['c_match']) + '/' + str(s['known'])):>9} {fmt_ms(s['o_med']):>12} "
                  f"{fmt_ms(s['c_med']):>14} "
                  f"{('%.2f' % s['gmean']) if s['gmean'] else '-':>6}")
        print("(len ok / cs len ok: our / cshogi's length equals the published/expected one; ratio: "
              "geometric mean of cshogi/ours times on problems both solved)")
    print_targets(summaries, rows_by_suite)

    flagged = [r for r in all_rows if r.flags]
    noted = [r for r in all_rows if r.notes]
    print()
    if flagged:
        print(f"!! {len(flagged)} problem(s) flagged:")
        for r in flagged:
            print(f"!!   {r.prob.suite} {r.prob.name}: {', '.join(r.flags)}\n!!     {r.prob.sfen}"
                  f"\n!!     ours: {' '.join(r.ours['line']) or r.ours['status']}")
    else:
        print("no false nomate and no failed replay")
    for r in noted:
        print(f"note: {r.prob.suite} {r.prob.name}: {', '.join(r.notes)} (expected "
              f"{r.prob.expected}, ours {fmt_status(r.ours)}, cshogi {fmt_status(r.peer)})")
    print(f"total time {time.perf_counter() - t0:.0f} s")

    if a.csv:
        write_csv(a.csv, all_rows)
        print(f"csv written to {a.csv}")
    if a.plot:
        write_plot(a.plot, all_rows)
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
