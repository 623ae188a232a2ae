#!/usr/bin/env python3
"""Perft speed of usi_engine side by side with cshogi and python-shogi.

A benchmark, not a test: it prints one table with our figures next to a peer's
for the same position, depth and loop shape, and a ratio column
(peer time / our time, so a ratio above 1 means usi_engine is faster).

Sections (all counts are checked against sfen/perft.txt; a figure whose node
count is wrong is not reported):

  1. native perft on the start position: usi_engine's C perft (bulk counting at
     the last ply) at depth 5 (and 6 with --deep) against cshogi driven from
     Python with bulk counting -- cshogi has no native perft, so that loop is
     the fastest way to count with it.  python-shogi, which is far slower, is
     compared at depth 3 only.
  2. the same perft loop written against each library's Python API
     (push / recurse / pop, and len(legal moves) at depth 1): depth 4 against
     cshogi, depth 3 against python-shogi.
  3. every other position of sfen/perft.txt, at the largest reference depth
     whose count is at most --max-nodes (60M): our native perft against cshogi
     driven from Python.

Each figure is the best of --repeat samples; a sample repeats the call until it
lasts at least --min-time seconds, and the per-call time is reported.  The
garbage collector is disabled while timing (as timeit does).

    python -m bench.speed.perft_bench [--deep] [--repeat N] [--csv PATH] [--plot PATH]
"""
from __future__ import annotations

import argparse
import csv
import gc
import importlib.metadata
import math
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from bench.lib.engines import optional_module
from bench.lib.paths import REPO as ROOT
from bench.lib.suites import PerftReference as RefPosition
from bench.lib.suites import read_perft_file
from usi_engine import Position

cshogi = optional_module("cshogi")
pyshogi = optional_module("shogi")

STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


# --------------------------------------------------------------------------
# reference counts
# --------------------------------------------------------------------------

def load_perft_file(path: Path) -> list[RefPosition]:
    return read_perft_file(path)


# --------------------------------------------------------------------------
# perft drivers: each takes an SFEN and a depth and returns a zero-argument
# callable that counts the leaves (position set up outside the timed call)
# --------------------------------------------------------------------------

def ours_native(sfen: str, depth: int) -> Callable[[], int]:
    pos = Position(sfen)
    return lambda: pos.perft(depth)


def _ours_loop(pos, depth: int) -> int:
    if depth == 1:
        return len(pos.legal_moves())
    nodes = 0
    for m in pos.legal_moves():
        pos.push(m)
        nodes += _ours_loop(pos, depth - 1)
        pos.pop()
    return nodes


def ours_loop(sfen: str, depth: int) -> Callable[[], int]:
    pos = Position(sfen)
    return lambda: _ours_loop(pos, depth)


def _cshogi_loop(board, depth: int) -> int:
    if depth == 1:
        return len(board.legal_moves)
    nodes = 0
    for m in board.legal_moves:
        board.push(m)
        nodes += _cshogi_loop(board, depth - 1)
        board.pop()
    return nodes


def cshogi_loop(sfen: str, depth: int) -> Callable[[], int]:
    board = cshogi.Board(sfen)
    return lambda: _cshogi_loop(board, depth)


def _pyshogi_loop(board, depth: int) -> int:
    if depth == 1:
        return len(board.legal_moves)
    nodes = 0
    # python-shogi generates lazily from the live board: materialise before pushing
    for m in list(board.legal_moves):
        board.push(m)
        nodes += _pyshogi_loop(board, depth - 1)
        board.pop()
    return nodes


def pyshogi_loop(sfen: str, depth: int) -> Callable[[], int]:
    board = pyshogi.Board(sfen)
    return lambda: _pyshogi_loop(board, depth)


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------

@dataclass
class Figure:
    library: str
    method: str
    seconds: float | None = None   # best per-call wall time; None if not reported
    nodes: int | None = None
    error: str | None = None
    calls_per_sample: int = 1

    @property
    def ok(self) -> bool:
        return self.error is None and self.seconds is not None

    @property
    def nps(self) -> float | None:
        return self.nodes / self.seconds if self.ok and self.seconds > 0 else None


_cache: dict[tuple, Figure] = {}


def measure(library: str, method: str, make: Callable[[str, int], Callable[[], int]],
            sfen: str, depth: int, expected: int, repeat: int, min_time: float) -> Figure:
    """Best-of-`repeat` per-call time; every call's count is checked."""
    key = (library, method, sfen, depth)
    if key in _cache:
        return _cache[key]
    fig = Figure(library, method)
    fn = make(sfen, depth)
    gc.collect()
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        n = fn()
        first = time.perf_counter() - t0
        if n != expected:
            fig.error = f"COUNT MISMATCH: got {n:,}, expected {expected:,}"
            _cache[key] = fig
            return fig
        calls = 1 if first >= min_time else max(1, math.ceil(min_time / max(first, 1e-9)))
        samples = [first] if calls == 1 else []   # a long first call is a sample already
        while len(samples) < repeat:
            t0 = time.perf_counter()
            for _ in range(calls):
                n = fn()
                if n != expected:
                    break
            elapsed = time.perf_counter() - t0
            if n != expected:
                fig.error = f"COUNT MISMATCH: got {n:,}, expected {expected:,}"
                _cache[key] = fig
                return fig
            samples.append(elapsed / calls)
    finally:
        if gc_was_enabled:
            gc.enable()
    fig.seconds, fig.nodes, fig.calls_per_sample = min(samples), expected, calls
    _cache[key] = fig
    return fig


@dataclass
class Row:
    section: str
    position: str
    depth: int
    expected: int
    ours: Figure
    peer: Figure | None
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        if self.peer is None or not (self.ours.ok and self.peer.ok):
            return None
        return self.peer.seconds / self.ours.seconds


def unavailable(library: str, method: str) -> Figure:
    return Figure(library, method, error=f"{library} not installed")


# --------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------

def fmt_time(s: float) -> str:
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def fmt_nps(v: float) -> str:
    if v >= 1e6:
        return f"{v / 1e6:.2f} M/s"
    return f"{v / 1e3:.1f} k/s"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine_line() -> str:
    import usi_engine
    try:
        import matplotlib
        mpl = matplotlib.__version__
    except ImportError:
        mpl = "not installed"
    return (f"machine: {cpu_model()} ({os.cpu_count()} logical CPUs), "
            f"{platform.system()} {platform.machine()} | "
            f"Python {platform.python_version()} ({platform.python_implementation()}) | "
            f"usi_engine {getattr(usi_engine, '__version__', '?')} | "
            f"cshogi {version('cshogi')} | python-shogi {version('python-shogi')} | "
            f"matplotlib {mpl}")


COLUMNS = ["position", "depth", "nodes", "ours", "ours time", "ours nodes/s",
           "peer", "peer time", "peer nodes/s", "ratio"]


def cells(row: Row) -> list[str]:
    def fig_cells(f: Figure | None) -> list[str]:
        if f is None:
            return ["", "", ""]
        if not f.ok:
            return [f.library + " " + f.method, "-", "-"]
        return [f"{f.library} {f.method}", fmt_time(f.seconds), fmt_nps(f.nps)]
    ours = fig_cells(row.ours)
    peer = fig_cells(row.peer)
    ratio = f"{row.ratio:.2f}x" if row.ratio is not None else "-"
    return [row.position, str(row.depth), f"{row.expected:,}",
            ours[0], ours[1], ours[2], peer[0], peer[1], peer[2], ratio]


def print_table(rows: list[Row], extra: list[list[str]] | None = None) -> None:
    body = [cells(r) for r in rows] + (extra or [])
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(COLUMNS)]
    right = {1, 2, 4, 5, 7, 8, 9}

    def line(vals):
        return "  ".join(v.rjust(w) if i in right else v.ljust(w)
                         for i, (v, w) in enumerate(zip(vals, widths))).rstrip()
    print(line(COLUMNS))
    print(line(["-" * w for w in widths]))
    for i, b in enumerate(body):
        if extra and i == len(rows):
            print(line(["-" * w for w in widths]))
        print(line(b))
    for r in rows:
        for f in (r.ours, r.peer):
            if f is not None and f.error:
                print(f"  !! {r.position} depth {r.depth}, {f.library} {f.method}: "
                      f"{f.error} -- figure not reported")
        for note in r.notes:
            print(f"  note: {note}")


def write_csv(path: Path, rows: list[Row]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["section", "position", "depth", "nodes",
                    "ours_library", "ours_method", "ours_seconds", "ours_nodes_per_s", "ours_error",
                    "peer_library", "peer_method", "peer_seconds", "peer_nodes_per_s", "peer_error",
                    "ratio_peer_over_ours"])
        for r in rows:
            def f_cols(f: Figure | None):
                if f is None:
                    return ["", "", "", "", ""]
                return [f.library, f.method,
                        f"{f.seconds:.9f}" if f.ok else "",
                        f"{f.nps:.0f}" if f.ok else "", f.error or ""]
            w.writerow([r.section, r.position, r.depth, r.expected, *f_cols(r.ours),
                        *f_cols(r.peer), f"{r.ratio:.4f}" if r.ratio is not None else ""])


def write_plot(path: Path, rows: list[Row], machine: str) -> str:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return (f"--plot: matplotlib is not installed, no chart written to {path} "
                "(pip install matplotlib, or the project's `bench` extra)")
    labels, ours, peers, peer_names = [], [], [], []
    for r in rows:
        name = r.position if len(r.position) <= 28 else r.position[:27] + "…"
        labels.append(f"{r.section}: {name} d{r.depth}")
        ours.append(r.ours.nps or 0.0)
        peers.append((r.peer.nps if r.peer else None) or 0.0)
        peer_names.append(r.peer.library if r.peer else "")
    colours = {"cshogi": "tab:orange", "python-shogi": "tab:green"}
    y = range(len(rows))
    h = 0.4
    fig, ax = plt.subplots(figsize=(11, 0.32 * len(rows) + 1.8))
    ax.barh([i - h / 2 for i in y], ours, h, color="tab:blue", label="usi_engine")
    for lib, colour in colours.items():
        idx = [i for i in y if peer_names[i] == lib]
        if idx:
            ax.barh([i + h / 2 for i in idx], [peers[i] for i in idx], h, color=colour, label=lib)
    for i, r in enumerate(rows):
        if r.ratio is not None:
            ax.text(max(ours[i], peers[i]) * 1.1, i, f"{r.ratio:.2f}x", va="center", fontsize=7)
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    positive = [v for v in ours + peers if v > 0]
    if positive:
        ax.set_xlim(10 ** math.floor(math.log10(min(positive))) / 3,
                    10 ** math.ceil(math.log10(max(positive))))
    ax.set_xlabel("nodes per second (log scale; label = peer time / our time)")
    ax.set_title("perft speed: usi_engine vs peers\n" + machine, fontsize=8, pad=22)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"bar chart written to {path}"


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deep", action="store_true",
                    help="also run native perft 6 on the start position (547,581,517 nodes; "
                         "several seconds per call, cshogi from Python takes longer)")
    ap.add_argument("--repeat", type=int, default=3, metavar="N",
                    help="samples per figure, best one kept (default 3)")
    ap.add_argument("--min-time", type=float, default=0.1, metavar="S",
                    help="a sample repeats a fast call until it lasts S seconds (default 0.1)")
    ap.add_argument("--max-nodes", type=int, default=60_000_000, metavar="N",
                    help="special positions: largest depth whose count is <= N (default 60M)")
    ap.add_argument("--perft-file", type=Path, default=ROOT / "sfen" / "perft.txt")
    ap.add_argument("--csv", type=Path, metavar="PATH", help="write the table as CSV")
    ap.add_argument("--plot", type=Path, metavar="PATH",
                    help="write a bar chart PNG (needs matplotlib)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")

    refs = load_perft_file(args.perft_file)
    start = next((r for r in refs if r.sfen.split()[:3] == STARTPOS.split()[:3]), None)
    if start is None:
        ap.error(f"no start position line in {args.perft_file}")
    specials = [r for r in refs if r is not start]

    def m(lib, method, make, sfen, depth, expected):
        if lib == "cshogi" and cshogi is None or lib == "python-shogi" and pyshogi is None:
            return unavailable(lib, method)
        return measure(lib, method, make, sfen, depth, expected, args.repeat, args.min_time)

    machine = machine_line()
    print(machine)
    print(f"best of {args.repeat} samples per figure (a sample lasts >= {args.min_time} s; "
          "per-call wall time shown); gc disabled while timing")
    print("ratio = peer time / our time for the same position, depth and loop shape "
          "(> 1: usi_engine is faster)")
    print("nodes = perft leaf count; nodes/s = leaves / time (bulk counting at the last ply "
          "counts leaves without visiting them, so these exceed move-making speed)")
    print("cshogi has no native perft: its figures are always a Python loop over its API "
          "with bulk counting (len(board.legal_moves) at depth 1, push/pop above)")
    t_run = time.perf_counter()
    all_rows: list[Row] = []

    # 1. native perft, start position
    print("\n[1] native perft, start position -- usi_engine Position.perft (C, bulk count at "
          "the last ply) vs peers driven from Python with bulk counting")
    rows = []
    depths = [5] + ([6] if args.deep else [])
    for d in depths:
        exp = start.counts[d]
        rows.append(Row("native", "startpos", d, exp,
                        m("usi_engine", "native perft", ours_native, start.sfen, d, exp),
                        m("cshogi", "py loop (no native perft)", cshogi_loop, start.sfen, d, exp)))
    exp3 = start.counts[3]
    rows.append(Row("native", "startpos", 3, exp3,
                    m("usi_engine", "native perft", ours_native, start.sfen, 3, exp3),
                    m("python-shogi", "py loop", pyshogi_loop, start.sfen, 3, exp3),
                    ["python-shogi is measured at depth 3 only (it is pure Python, about "
                     "three orders of magnitude slower); it has no native perft either"]))
    if not args.deep:
        rows[0].notes.append("perft 6 (547,581,517 nodes) is skipped; run with --deep")
    print_table(rows)
    all_rows += rows

    # 2. the same Python-level perft loop against each library's API
    print("\n[2] perft loop in Python, same shape for every library "
          "(for m in legal moves: push, recurse, pop; depth 1 = len(legal moves))")
    rows = []
    exp4 = start.counts[4]
    rows.append(Row("py loop", "startpos", 4, exp4,
                    m("usi_engine", "py loop", ours_loop, start.sfen, 4, exp4),
                    m("cshogi", "py loop", cshogi_loop, start.sfen, 4, exp4)))
    rows.append(Row("py loop", "startpos", 3, exp3,
                    m("usi_engine", "py loop", ours_loop, start.sfen, 3, exp3),
                    m("python-shogi", "py loop", pyshogi_loop, start.sfen, 3, exp3),
                    ["python-shogi at depth 3 (too slow for depth 4); the python-shogi "
                     "figure is the same measurement as in [1]"]))
    print_table(rows)
    all_rows += rows

    # 3. special positions
    print(f"\n[3] special positions of {args.perft_file.relative_to(ROOT) if args.perft_file.is_relative_to(ROOT) else args.perft_file}"
          f" at the largest depth with count <= {args.max_nodes:,}: "
          "usi_engine native perft vs cshogi py loop (bulk counting)")
    rows = []
    for ref in specials:
        ok_depths = [d for d, n in ref.counts.items() if n <= args.max_nodes]
        if not ok_depths:
            print(f"  (skipped {ref.name}: no reference count <= {args.max_nodes:,})")
            continue
        d = max(ok_depths)
        exp = ref.counts[d]
        rows.append(Row("special", ref.name, d, exp,
                        m("usi_engine", "native perft", ours_native, ref.sfen, d, exp),
                        m("cshogi", "py loop", cshogi_loop, ref.sfen, d, exp)))
    extra = []
    good = [r for r in rows if r.ratio is not None]
    if good:
        nodes = sum(r.expected for r in good)
        t_ours = sum(r.ours.seconds for r in good)
        t_peer = sum(r.peer.seconds for r in good)
        geo = math.exp(sum(math.log(r.ratio) for r in good) / len(good))
        extra.append([f"total of {len(good)} positions", "", f"{nodes:,}",
                      "usi_engine native perft", fmt_time(t_ours), fmt_nps(nodes / t_ours),
                      "cshogi py loop", fmt_time(t_peer), fmt_nps(nodes / t_peer),
                      f"{t_peer / t_ours:.2f}x"])
        extra.append(["geometric mean of the ratios", "", "", "", "", "", "", "", "",
                      f"{geo:.2f}x"])
    print_table(rows, extra)
    all_rows += rows

    failed = any(f is not None and f.error and "not installed" not in f.error
                 for r in all_rows for f in (r.ours, r.peer))
    print(f"\nbenchmark wall time {time.perf_counter() - t_run:.1f} s")
    if args.csv:
        write_csv(args.csv, all_rows)
        print(f"table written to {args.csv}")
    if args.plot:
        print(write_plot(args.plot, all_rows, machine))
    if failed:
        print("SOME COUNTS WERE WRONG: those figures are not reported (see '!!' lines)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
