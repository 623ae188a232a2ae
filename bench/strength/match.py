"""Matches on the bench's match core (cshogi's rules; cshogi is the only dependency):
one engine against another, a gauntlet against the peers, or a self-play screen of a
tuning option, many games at once, resumable, with Elo, its 95% interval and an SPRT.

    # ours (hand-set evaluation) against YaneuraOu's material edition, 300 ms byoyomi,
    # 200 games, 15 at a time, records appended to ymat.jsonl (a rerun resumes):
    python -m bench.strength.match --a bench/engine.sh --a-option EvalType=hand \\
        --b ~/.cache/usi-peers/yaneuraou-material --b-option BookFile=no_book \\
        --games 200 --tc 300 --parallel 15 --stop-after 450 --out ymat.jsonl
    # the shipped book against no book, every game from the start position, and how
    # many different openings the games went through over their first 16 moves:
    python -m bench.strength.match --b bench/engine.sh --b-option USI_OwnBook=false \\
        --openings startpos --games 200 --tc 1000 --parallel 2 --distinct 16 --out book.jsonl
    python -m bench.strength.match --out ymat.jsonl --summary --phases   # the tables again
    python -m bench.strength.match --out ymat.jsonl --summary --conversion  # who kept a lead
    # a gauntlet: this checkout against the peers (default: Fairy-Stockfish at skill 5
    # and at full strength, gpsshogi at 50,000 nodes), 10 games each:
    python -m bench.strength.match --opponent default --games 10 --tc 200 --plot elo.png
    python -m bench.strength.match --opponent gpsshogi --tc 2000 --b-time-margin 1500
    # both searches at the same nodes a move (`go nodes`), whatever the machine's load:
    python -m bench.strength.match --a-option EvalType=material --opponent yaneuraou \\
        --tc nodes=50000 --games 400 --parallel 2 --out nodes.jsonl
    # a self-play screen of a tuning option (the same build on both sides):
    USI_ENGINE_TUNE=1 python -m bench.strength.match --a bench/engine.sh \\
        --a-option NodeShape=1 --b bench/engine.sh --tc 200 --sprt 0,10 --out screen.jsonl

Engine A is this checkout (bench/engine.sh) unless --a says otherwise.  An option given
with --a-option/--b-option that the engine does not offer stops the run before the
first game (a tuning option without USI_ENGINE_TUNE=1 would otherwise be ignored).
See bench/lib/match.py for the rules and the record format.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

from bench.lib import engines
from bench.lib.match import (DEFAULT_OPTIONS, MATE_SCORE_FLOOR, Match, Player, a_score,
                             conversion_table, distinct_openings, load_records,
                             phase_table, read_openings_or_exit, summary)
from bench.lib.timecontrol import parse_tc
from bench.lib.paths import ENGINE_SH, OPENINGS, OUT
from bench.lib.stats import elo_stats, fmt_elo, score_summary


def parse_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"option {pair!r}: expected NAME=VALUE")
        options[key] = value
    return options


def opponents(args) -> list[engines.EngineSpec]:
    """B's specs: --b's command, or the named peers (missing ones are noted)."""
    if args.b:
        return [engines.command_spec("B", args.b, parse_options(args.b_option))]
    names = (engines.DEFAULT_GAUNTLET if args.opponent in (None, "default")
             else [n.strip() for n in args.opponent.split(",") if n.strip()])
    specs = []
    for key in names:
        spec = engines.peer_spec(key, args.hash)
        if spec is None:
            raise SystemExit(f"unknown opponent {key!r}: use {engines.PEER_NAMES}")
        if isinstance(spec, str):
            print("note: " + spec)
            continue
        spec.options.update(parse_options(args.b_option))
        specs.append(spec)
    return specs


def check_resignations(records: list[dict], movetime_ms: int) -> None:
    """Second opinion on every game A lost by resigning: Fairy-Stockfish (full strength)
    searches the position in which A resigned for ``movetime_ms``; a resignation on a
    mate score that it does not confirm is flagged.  A lead, not a verdict."""
    todo = [r for r in records if r["reason"] == "resign" and a_score(r) == 0.0]
    if not todo:
        return
    path = engines.find_peer("fairy-stockfish")
    if not path:
        print("note: resignations not checked: " + engines.missing_message("fairy-stockfish"))
        return
    print(f"checking A's {len(todo)} resignation(s) with Fairy-Stockfish, {movetime_ms} ms each:")
    fsf = engines.UsiClient([path], name="check")
    try:
        fsf.handshake({"Threads": 1, "Hash": 64, "UCI_Variant": "shogi"})
        for r in todo:
            a_side = 0 if r["a_colour"] == "black" else 1
            ours = [s[4] for s in r["stats"] if s[0] == a_side and s[4] is not None]
            fsf.usinewgame()
            fsf.position(r["start"], [*r["opening_moves"], *r["moves"]])
            found = fsf.go(f"movetime {movetime_ms}", timeout=movetime_ms / 1000 + 30).score
            score = ("" if found is None else f"cp {found.score_cp}" if found.score_cp is not None
                     else f"mate {'-' if found.mate_sign < 0 else '+'}{abs(found.score_mate or 0)}")
            last = ours[-1] if ours else None
            flag = ""
            if last is not None and abs(last) >= MATE_SCORE_FLOOR and not score.startswith("mate -"):
                flag = "  <-- not confirmed (a long mate is possible: re-check longer)"
            print(f"  {r.get('pairing') or ''} game {r['game']}, after {len(r['moves'])} plies: "
                  f"A's last score {last}, Fairy-Stockfish {score or '?'}{flag}")
    except engines.UsiError as exc:
        print(f"  !! resign check stopped: {exc}")
    finally:
        fsf.quit()


def plot(by_pairing: dict[str, list[dict]], path: Path) -> str | None:
    """Per pairing, A's Elo with its 95% interval, and the running score."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib); no plot written"
    names = list(by_pairing)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, max(3.2, 1.1 * len(names) + 1.8)),
                                   gridspec_kw={"width_ratios": [1.2, 1]})
    clip = 800.0
    for i, name in enumerate(names):
        s = elo_stats([a_score(r) for r in by_pairing[name]])
        y = len(names) - 1 - i
        e, lo, hi = (max(-clip, min(clip, v)) for v in (s["elo"], s["elo_lo"], s["elo_hi"]))
        marker = "o" if not math.isinf(s["elo"]) else ("<" if s["elo"] < 0 else ">")
        ax1.errorbar([e], [y], xerr=[[e - lo], [hi - e]], fmt=marker, ms=8, capsize=6,
                     color="C0" if marker == "o" else "C3")
        ax1.text(0.99, y + 0.18, f"{fmt_elo(s['elo'])}  [{fmt_elo(s['elo_lo'])}, "
                 f"{fmt_elo(s['elo_hi'])}]\nscore {s['score']:.3f} ({s['wins']}W {s['losses']}L "
                 f"{s['draws']}D)", transform=ax1.get_yaxis_transform(), ha="right",
                 va="bottom", fontsize=8)
        xs = [a_score(r) for r in by_pairing[name]]
        ax2.plot(range(1, len(xs) + 1), [sum(xs[:j + 1]) / (j + 1) for j in range(len(xs))],
                 marker="o", ms=3, label=name or "B", color=f"C{i}")
    ax1.axvline(0, color="grey", lw=0.8)
    ax1.set_yticks(range(len(names)))
    ax1.set_yticklabels([n or "B" for n in reversed(names)])
    ax1.set_xlim(-clip - 50, clip + 50)
    ax1.set_xlabel("Elo difference of engine A (95% interval; clipped at ±800)")
    ax2.axhline(0.5, color="grey", lw=0.8)
    ax2.set_ylim(-0.05, 1.05)
    ax2.set_xlabel("games played")
    ax2.set_ylabel("running score of engine A")
    ax2.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def report(records: list[dict], phases: bool, distinct: int = 0,
           conversion: bool = False) -> None:
    by_pairing: dict[str, list[dict]] = {}
    for r in records:
        by_pairing.setdefault(r.get("pairing", ""), []).append(r)
    for name, rs in by_pairing.items():
        if name:
            print(f"== A vs {name}")
        print(summary(rs))
        if phases:
            print(phase_table(rs))
        if conversion:
            print(conversion_table(rs))
        if distinct:
            print(f"distinct openings (first {distinct} plies): "
                  f"{distinct_openings(rs, distinct)} in {len(rs)} games")
    if len(by_pairing) > 1:
        print("gauntlet:")
        for name, rs in by_pairing.items():
            print(f"  {name:<28} {score_summary([a_score(r) for r in rs])}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", default=str(ENGINE_SH),
                    help="engine A's command (default bench/engine.sh: this checkout)")
    ap.add_argument("--b", help="engine B's command")
    ap.add_argument("--opponent", metavar="NAMES",
                    help=f"instead of --b, peers one after another (comma separated): "
                         f"{engines.PEER_NAMES}; 'default': {','.join(engines.DEFAULT_GAUNTLET)}")
    ap.add_argument("--a-option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--b-option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--games", type=int, default=100, help="games per pairing (100)")
    ap.add_argument("--tc", type=parse_tc, default=None,
                    help="time control in ms: N (byoyomi, default 300), MAIN+INC, MAIN/BYOYOMI; "
                         "or nodes=N (`go nodes N`, no clock)")
    ap.add_argument("--byoyomi", type=int, default=None, metavar="MS", help="the same as --tc MS")
    ap.add_argument("--a-tc", type=parse_tc, default=None,
                    help="engine A's own time control, for time odds (default: --tc)")
    ap.add_argument("--a-byoyomi", type=int, default=0, metavar="MS", help="the same as --a-tc MS")
    ap.add_argument("--parallel", type=int, default=max(1, (os.cpu_count() or 2) - 1),
                    help="games at a time (cores less one)")
    ap.add_argument("--hash", type=int, default=64, help="hash MB for the peers (64)")
    ap.add_argument("--openings", default=str(OPENINGS),
                    help="opening file (default: the package's set); 'startpos': every "
                         "game from the start position (e.g. to try a book)")
    ap.add_argument("--offset", type=int, default=0, help="first opening's index (0)")
    ap.add_argument("--time-margin", type=int, default=300,
                    help="ms a move may take beyond the time available before it loses (300)")
    ap.add_argument("--b-time-margin", type=int, default=None, metavar="MS",
                    help="B's margin (default --time-margin); e.g. 1500 for full gpsshogi")
    ap.add_argument("--max-plies", type=int, default=320, help="a draw after this many plies")
    ap.add_argument("--stop-after", type=float, default=0, metavar="SECONDS",
                    help="start no game after this many seconds (games under way finish)")
    ap.add_argument("--sprt", metavar="ELO0,ELO1",
                    help="stop starting games when the SPRT (alpha = beta = 0.05) decides")
    ap.add_argument("--out", default=str(OUT / "match.jsonl"),
                    help="JSON lines, one a game (appended; a rerun resumes)")
    ap.add_argument("--kifu", metavar="DIR", help="also write each game as a CSA file here")
    ap.add_argument("--logs", metavar="DIR", help="write each game's USI traffic here")
    ap.add_argument("--plot", metavar="PNG", help="A's Elo per pairing and its running score")
    ap.add_argument("--check-resigns", type=int, default=0, metavar="MS",
                    help="let Fairy-Stockfish check each position where A resigned (0: off)")
    ap.add_argument("--summary", action="store_true", help="print the summary of --out and exit")
    ap.add_argument("--phases", action="store_true",
                    help="also each engine's depth and nodes by game phase")
    ap.add_argument("--conversion", action="store_true",
                    help="also who first stood +300/+600/+1000 and who won those games")
    ap.add_argument("--distinct", type=int, default=0, metavar="PLIES",
                    help="also count the games' different openings over their first PLIES moves")
    args = ap.parse_args(argv)
    if args.b and args.opponent:
        ap.error("--b and --opponent exclude each other")
    sprt = None
    if args.sprt:
        try:
            sprt = tuple(float(x) for x in args.sprt.split(","))
            assert len(sprt) == 2
        except (ValueError, AssertionError):
            ap.error("--sprt wants ELO0,ELO1, e.g. 0,10")
    out = Path(args.out)
    if not args.summary:
        if args.games < 1:
            ap.error("--games must be at least 1")
        try:
            import cshogi  # noqa: F401
        except ImportError:
            raise SystemExit("cshogi is not installed: pip install cshogi") from None
        tc = args.tc or parse_tc(str(args.byoyomi or 300))
        a_tc = args.a_tc or (parse_tc(str(args.a_byoyomi)) if args.a_byoyomi else tc)
        openings = read_openings_or_exit(args.openings)
        specs = opponents(args)
        if not specs:
            print("no opponent available; nothing to play")
            return 2
        out.parent.mkdir(parents=True, exist_ok=True)
        a_options = parse_options(args.a_option)
        a_spec = engines.command_spec("A", args.a, a_options)
        print(engines.machine_line())
        t_start = time.monotonic()
        for spec in specs:
            pairing = "" if args.b else spec.key
            b_tc = spec.tc or tc
            print(f"A: {' '.join(a_spec.argv)} {a_options or ''} ({a_tc}); "
                  f"B: {' '.join(spec.argv)} {spec.options or ''} ({b_tc})"
                  + (f"; {spec.note}" if spec.note else ""), flush=True)
            Match(Player(a_spec, a_tc, args.time_margin),
                  Player(spec, b_tc, args.time_margin if args.b_time_margin is None
                         else args.b_time_margin),
                  openings, args.games, out, pairing=pairing, parallel=args.parallel,
                  offset=args.offset, max_plies=args.max_plies, stop_after=args.stop_after,
                  sprt=sprt, check_a=set(a_options),
                  check_b=set(parse_options(args.b_option)) if args.b else set(),
                  defaults=dict(DEFAULT_OPTIONS),
                  kifu_dir=Path(args.kifu) if args.kifu else None,
                  log_dir=Path(args.logs) if args.logs else None,
                  report=lambda line: print(line, flush=True)).run()
        print(f"total time {time.monotonic() - t_start:.0f} s")
    records = load_records(out)
    if not records:
        print("no game recorded")
        return 0
    report(records, args.phases, args.distinct, args.conversion)
    if args.check_resigns > 0:
        check_resignations(records, args.check_resigns)
    if args.plot:
        by_pairing: dict[str, list[dict]] = {}
        for r in records:
            by_pairing.setdefault(r.get("pairing", ""), []).append(r)
        print(plot(by_pairing, Path(args.plot)) or f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
