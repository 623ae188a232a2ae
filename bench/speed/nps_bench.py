"""Search speed (nodes per second) of usi_engine on a fixed set of positions, side by
side with Fairy-Stockfish (variant shogi) when it is installed.

    python -m bench.speed.nps_bench                       # 1 s per position and engine, ~25 s
    python -m bench.speed.nps_bench --depth 5             # fixed depth for both engines
    python -m bench.speed.nps_bench --movetime 3000 --csv nps.csv
    python -m bench.speed.nps_bench --ours usi            # measure our engine through USI too

Our engine is searched in-process by default (``Searcher().search(Position(sfen), ...)``,
timed with the wall clock around the call); ``--ours usi`` starts ``python -m
usi_engine`` and reads its final ``info`` line like the peer's. Fairy-Stockfish runs
as a child process speaking USI (it switches to USI when the first command is
``usi``; its default variant is then shogi, which is also set explicitly), with 1
thread and the same hash size as ours. Before each position both engines forget
what they learnt (a fresh Searcher / ``usinewgame`` and ``Clear Hash``).

For the peer, depth, nodes and time come from its last ``info`` line before
``bestmove`` (with ``go movetime`` that line is printed when the search stops, so
its node count is the total); nps = nodes / time.

Node counts are not the same unit in both engines (each counts its own
interior + quiescence nodes), and the depth reached at a given time is not
comparable either: compare nps, and time to depth, with that in mind.
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time

from bench.lib import engines as peers
from bench.lib.suites import read_positions


def _label(number: int, sfen: str) -> str:
    """"bench 4: w, ply 30": the list's number, the side to move and the move number."""
    parts = sfen.split()
    side = parts[1] if len(parts) > 1 else "?"
    ply = parts[3] if len(parts) > 3 else "?"
    return f"bench {number}: {side}, ply {ply}"


def bench_positions() -> tuple[list[tuple[str, str]], str, int | None]:
    """The engine's own bench list (``usi_engine.cli.bench.BENCH_SFENS``), the source's
    name, and its hash size (``BENCH_HASH_MB``) when it defines one."""
    import usi_engine.cli.bench as m
    sfens = getattr(m, "BENCH_SFENS", None)
    if not sfens:
        raise SystemExit("usi_engine.cli.bench defines no BENCH_SFENS; "
                         "give positions with --positions FILE")
    return ([(_label(i, s), s) for i, s in enumerate(sfens, 1)], "usi_engine.cli.bench.BENCH_SFENS",
            getattr(m, "BENCH_HASH_MB", None))


# --- our engine ---------------------------------------------------------------------


def run_ours_inprocess(sfen: str, depth: int | None, movetime: int | None, hash_mb: int,
                       network=None) -> dict:
    """One in-process search; `network`: the evaluation (a kp.Network, None: hand-set)."""
    from usi_engine.core.position import Position
    from usi_engine.search.searcher import Searcher
    s = Searcher()
    s.set_evaluation(network)
    s.set_hash(hash_mb)
    pos = Position(sfen)
    kw = {"depth": depth} if depth else {"soft_ms": movetime, "hard_ms": movetime}
    t0 = time.perf_counter()
    r = s.search(pos, **kw)
    wall_ms = (time.perf_counter() - t0) * 1000
    from usi_engine.core.position import move_to_usi
    return {"depth": r.depth, "nodes": r.nodes, "time_ms": wall_ms,
            "best": move_to_usi(r.best) if r.best else "-"}


class UsiBench:
    """One engine process; ``go`` per position; the last ``info`` before ``bestmove``."""

    def __init__(self, argv: list[str], name: str, options: dict, cwd=None, env=None,
                 stderr_path=None, clear_hash_button: bool = False):
        self.p = peers.UsiClient(argv, cwd=cwd, env=env, name=name, stderr=stderr_path)
        self.p.handshake(options)
        self.clear_hash_button = clear_hash_button

    def run(self, sfen: str, depth: int | None, movetime: int | None, timeout: float) -> dict:
        self.p.send("usinewgame")
        if self.clear_hash_button:
            self.p.send("setoption name Clear Hash")
        self.p.send("isready")
        peers.wait_for(self.p, "readyok", 30)
        self.p.send(f"position sfen {sfen}")
        go = f"go depth {depth}" if depth else f"go movetime {movetime}"
        t_sent = self.p.send(go)
        t_best, lines = peers.wait_for(self.p, "bestmove", timeout)
        last = {}
        for ln in lines:
            if ln.startswith("info ") and " nodes " in ln and " string " not in ln:
                info = peers.parse_info(ln)
                last = {"depth": info.depth, "nodes": info.nodes, "time": info.time_ms,
                        "nps": info.nps}
        best = lines[-1].split()[1] if len(lines[-1].split()) > 1 else "-"
        wall_ms = (t_best - t_sent) * 1000
        nodes = last.get("nodes") or 0
        t_ms = last.get("time") or 0
        return {"depth": last.get("depth") or 0, "nodes": nodes or 0,
                "time_ms": float(t_ms) if t_ms else wall_ms, "wall_ms": wall_ms,
                "reported_nps": last.get("nps"), "best": best}

    def close(self):
        self.p.quit()


# --- table -----------------------------------------------------------------------------


def nps(nodes: float, ms: float) -> float:
    return nodes * 1000.0 / ms if ms > 0 else float("nan")


def fmt_int(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{int(round(x)):,}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--depth", type=int, help="search every position to this depth (both engines)")
    g.add_argument("--movetime", type=int, help="ms per position and engine (default 1000)")
    ap.add_argument("--csv", help="write the table (one row per position) to this CSV file")
    ap.add_argument("--hash", type=int, default=None,
                    help="hash size in MB for both engines (default: usi_engine's BENCH_HASH_MB, "
                         "else 16)")
    ap.add_argument("--ours", choices=("inprocess", "usi"), default="inprocess",
                    help="search our engine in-process (default) or through `python -m usi_engine`")
    ap.add_argument("--peer", default=None,
                    help="path of the Fairy-Stockfish binary (default: found on PATH or /usr/games)")
    ap.add_argument("--no-peer", action="store_true", help="measure our engine only")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="seconds to wait for one peer/USI search before giving up (600)")
    ap.add_argument("--positions", help="file of `name | sfen` lines instead of the engine's bench list")
    ap.add_argument("--eval", choices=("learned", "hand"), default="learned",
                    help="our evaluation (in-process): learned (the engine's default) or hand")
    ap.add_argument("--eval-file", default="",
                    help="with --eval learned: this weight file instead of the shipped network "
                         "(a bare name is also looked up among the shipped files: kp.bin is the "
                         "king-piece table alone)")
    args = ap.parse_args(argv)
    eval_note = ""
    network = None
    if args.ours == "inprocess":
        from usi_engine.eval.loader import EvalLoader
        loader = EvalLoader()
        for message in loader.apply(args.eval, args.eval_file):
            if not message.startswith("EvalFile: loaded"):
                ap.error(message)               # a missing or damaged file: measure nothing
        eval_note = "hand-set evaluation" if args.eval == "hand" else f"weights {loader.loaded_path}"
        network = loader.network
    elif args.eval != "learned" or args.eval_file:
        ap.error("--eval and --eval-file apply to the in-process search only")
    if not args.depth and not args.movetime:
        args.movetime = 1000
    if (args.depth is not None and args.depth < 1) or (args.movetime is not None and args.movetime < 1):
        ap.error("--depth and --movetime must be positive")

    if args.positions:
        positions = [(name, sfen.removeprefix("sfen ").strip())
                     for name, sfen in read_positions(args.positions)]
        source = args.positions
        bench_hash = None
    else:
        positions, source, bench_hash = bench_positions()
    if args.hash is None:
        args.hash = bench_hash or 16

    print(peers.machine_line())
    limit = f"depth {args.depth}" if args.depth else f"movetime {args.movetime} ms"
    print(f"limit: {limit} per position and engine; hash {args.hash} MB; 1 thread; "
          f"{len(positions)} positions from {source}")

    # our engine
    ours_usi = None
    if args.ours == "usi":
        ours_usi = UsiBench(peers.our_engine_command(), "usi_engine",
                            {"USI_Hash": args.hash, "Threads": 1}, cwd=str(peers.REPO),
                            env=peers.our_engine_env())
        print(f"ours: {getattr(ours_usi.p, 'id_name', 'usi_engine')} via USI "
              f"({' '.join(peers.our_engine_command())})")
    else:
        import usi_engine
        print(f"ours: usi_engine {getattr(usi_engine, '__version__', '?')} in-process "
              f"(usi_engine.search.searcher.Searcher), {eval_note}")

    # the peer
    peer = None
    if not args.no_peer:
        path = args.peer or peers.find_peer("fairy-stockfish")
        if not path:
            print("note: " + peers.missing_message("fairy-stockfish"))
        else:
            try:
                peer = UsiBench([path], "fairy-stockfish",
                                {"UCI_Variant": "shogi", "Threads": 1, "Hash": args.hash},
                                clear_hash_button=True)
                print(f"peer: {getattr(peer.p, 'id_name', path)} via USI ({path})")
            except (peers.UsiError, OSError) as exc:
                print(f"note: could not start Fairy-Stockfish at {path}: {exc}; skipping it")
                peer = None
    print()

    rows = []
    peer_label = "fairy-stockfish" if peer else "(no peer)"
    hdr = (f"{'#':>2} {'position':<31}| {'depth':>5} {'nodes':>12} {'ms':>7} {'nps':>11} "
           f"| {'depth':>5} {'nodes':>12} {'ms':>7} {'nps':>11} | {'ratio':>6}")
    print(f"{'':35}| {'usi_engine':^39}| {peer_label:^39}|")
    print(hdr)
    print("-" * len(hdr))
    failures = 0
    for i, (name, sfen) in enumerate(positions, 1):
        row = {"index": i, "position": name, "sfen": sfen}
        try:
            if ours_usi:
                o = ours_usi.run(sfen, args.depth, args.movetime, args.timeout)
            else:
                o = run_ours_inprocess(sfen, args.depth, args.movetime, args.hash, network)
            row.update({"our_depth": o["depth"], "our_nodes": o["nodes"],
                        "our_time_ms": round(o["time_ms"], 1),
                        "our_nps": round(nps(o["nodes"], o["time_ms"])), "our_best": o["best"]})
        except Exception as exc:  # noqa: BLE001 - report and carry on
            failures += 1
            print(f"!! our engine failed on {name}: {type(exc).__name__}: {exc}")
        if peer:
            try:
                p = peer.run(sfen, args.depth, args.movetime, args.timeout)
                row.update({"peer_depth": p["depth"], "peer_nodes": p["nodes"],
                            "peer_time_ms": round(p["time_ms"], 1),
                            "peer_nps": round(nps(p["nodes"], p["time_ms"])),
                            "peer_best": p["best"]})
            except peers.UsiError as exc:
                failures += 1
                print(f"!! Fairy-Stockfish failed on {name}: {exc}; dropping the peer")
                peer = None
        if row.get("our_nps") and row.get("peer_nps"):
            row["ratio"] = round(row["our_nps"] / row["peer_nps"], 3)
        rows.append(row)
        print(f"{i:>2} {name[:31]:<31}| {row.get('our_depth', '-'):>5} {fmt_int(row.get('our_nodes')):>12} "
              f"{fmt_int(row.get('our_time_ms')):>7} {fmt_int(row.get('our_nps')):>11} "
              f"| {row.get('peer_depth', '-'):>5} {fmt_int(row.get('peer_nodes')):>12} "
              f"{fmt_int(row.get('peer_time_ms')):>7} {fmt_int(row.get('peer_nps')):>11} "
              f"| {row['ratio'] if 'ratio' in row else '-':>6}", flush=True)

    print("-" * len(hdr))
    on = sum(r.get("our_nodes", 0) for r in rows)
    ot = sum(r.get("our_time_ms", 0) for r in rows)
    pn = sum(r.get("peer_nodes", 0) for r in rows)
    pt = sum(r.get("peer_time_ms", 0) for r in rows)
    tot_ratio = nps(on, ot) / nps(pn, pt) if on and ot and pn and pt else None
    print(f"{'':>2} {'total':<31}| {'':>5} {fmt_int(on):>12} {fmt_int(ot):>7} {fmt_int(nps(on, ot)):>11} "
          f"| {'':>5} {fmt_int(pn) if pn else '-':>12} {fmt_int(pt) if pt else '-':>7} "
          f"{fmt_int(nps(pn, pt)) if pn else '-':>11} | {f'{tot_ratio:.3f}' if tot_ratio else '-':>6}")
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    if ratios:
        gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"\nratio = our nps / peer nps (above 1: usi_engine searches more nodes per second). "
              f"Geometric mean over {len(ratios)} positions: {gm:.3f}")
    print("Nodes are each engine's own count (not the same unit); the total row is "
          "summed nodes / summed time.")

    if args.csv:
        cols = ["index", "position", "sfen", "our_depth", "our_nodes", "our_time_ms", "our_nps",
                "our_best", "peer_depth", "peer_nodes", "peer_time_ms", "peer_nps", "peer_best",
                "ratio"]
        os.makedirs(os.path.dirname(os.path.abspath(args.csv)), exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            for r in rows:
                w.writerow({c: r.get(c, "") for c in cols})
            w.writerow({"position": "total", "our_nodes": on, "our_time_ms": round(ot, 1),
                        "our_nps": round(nps(on, ot)) if ot else "", "peer_nodes": pn or "",
                        "peer_time_ms": round(pt, 1) if pt else "",
                        "peer_nps": round(nps(pn, pt)) if pt else "",
                        "ratio": round(tot_ratio, 3) if tot_ratio else ""})
        print(f"wrote {args.csv}")

    if ours_usi:
        ours_usi.close()
    if peer:
        peer.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
