"""A/B match between two USI engines with shogiarena (SPRT), from the opening set,
with the score and its 95% interval printed side by side at the end; and the freezing
of a build (this checkout's, a past commit's, or with other weights) to play against.

    # a frozen copy of the build to compare against (any commit):
    python -m bench.strength.ab_match --freeze /tmp/base    # copies usi_engine/ + a launcher
    # or of a past commit, built as a wheel from a scratch git worktree (e.g. before #13):
    python -m bench.strength.ab_match --freeze /tmp/old --commit 4841eb5
    # or of this build with other weights (a KP table or a network) as its shipped ones:
    python -m bench.strength.ab_match --freeze /tmp/net2 --weights kpnn2.bin
    # ... change the code, rebuild, then:
    python -m bench.strength.ab_match --new bench/engine.sh --base /tmp/base/engine.sh \\
        --games 200 --byoyomi 100 --run-dir /tmp/ab1
    # against YaneuraOu's material edition (see ../shared/tools/setup-peers.sh):
    python -m bench.strength.ab_match --base ~/.cache/usi-peers/yaneuraou-material \\
        --base-option BookFile=no_book --games 100 --byoyomi 300

Both engines get NetworkDelay 0, NetworkDelay2 0, USI_Hash 64 and Threads 1 unless
--new-option/--base-option say otherwise; every opening of usi_engine/data/openings.txt that is
drawn is played twice, once with each colour. shogiarena (the `bench` extra, Python
3.11+) runs the games, adjudicates and stops early when the SPRT (elo0 0, elo1 20)
decides; the run directory keeps every game (game.db) and can be resumed by running
the same command again without --no-resume. Nothing is installed by this script.
Without shogiarena, the same match runs on cshogi alone: python -m bench.strength.match.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from bench.lib.engines import freeze, freeze_commit
from bench.lib.paths import ENGINE_SH, OPENINGS, OUT
from bench.lib.records import game_db_scores
from bench.lib.stats import score_summary

__all__ = ["freeze", "freeze_commit", "score_table", "main"]


def score_table(run_dir: Path) -> str:
    """W-L-D of the engine named `new`, score, Elo and the 95% interval."""
    return score_summary(game_db_scores(Path(run_dir) / "game.db", "new"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--freeze", metavar="DIR", help="copy this build to DIR and exit")
    ap.add_argument("--commit", help="with --freeze: build this commit (in a scratch "
                    "worktree) and freeze it instead of this checkout's build")
    ap.add_argument("--weights", metavar="FILE",
                    help="with --freeze: these weights (KP table or network) become the "
                         "frozen build's shipped ones. Compare weight files this way, not "
                         "with an EvalFile option: shogiarena copies a file option into "
                         "its run directory and passes a relative name, which the frozen "
                         "launcher (it changes directory) does not find")
    ap.add_argument("--new", default=str(ENGINE_SH),
                    help="command of the engine under test (bench/engine.sh: this checkout)")
    ap.add_argument("--base", help="command of the reference engine")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--byoyomi", type=int, default=100, help="ms a move (100)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--parallel", type=int, default=1,
                    help="games played at once (each engine then uses one core when it is "
                         "to move: about one game per core)")
    ap.add_argument("--new-option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--base-option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--openings", default=str(OPENINGS))
    ap.add_argument("--run-dir", default=str(OUT / "ab"))
    ap.add_argument("--no-resume", action="store_true")
    ap.add_argument("--no-sprt-stop", action="store_true",
                    help="play all --games even when the SPRT has decided")
    args = ap.parse_args(argv)
    for flag, value in (("--commit", args.commit), ("--weights", args.weights)):
        if value and not args.freeze:
            ap.error(f"{flag} goes with --freeze DIR")
    if args.freeze:
        target = Path(args.freeze)
        weights = Path(args.weights) if args.weights else None
        if weights is not None and not weights.is_file():
            ap.error(f"--weights {weights}: no such file")
        print(freeze_commit(target, args.commit, weights) if args.commit
              else freeze(target, weights=weights))
        return 0
    for option in args.new_option + args.base_option:
        if option.split("=", 1)[0] in ("EvalFile", "EvalDir"):
            ap.error(f"{option}: freeze a build with --weights instead (see --help)")
    if not args.base:
        ap.error("--base is required (or --freeze DIR)")
    # the venv's script too when its python is run without activating the venv
    beside = Path(sys.executable).parent / "shogiarena"
    arena = shutil.which("shogiarena") or (str(beside) if beside.exists() else None)
    if arena is None:
        raise SystemExit("shogiarena is not installed: pip install -e '.[bench]' (Python 3.11+)")
    common = {"NetworkDelay": "0", "NetworkDelay2": "0", "USI_Hash": "64",
              "Threads": str(args.threads)}

    def engine(name: str, path: str, extra: list[str], tested: bool) -> list[str]:
        options = dict(common, **dict(o.split("=", 1) for o in extra))
        return (["--engine", f"name={name}", f"path={path}"] + (["tested=true"] if tested else [])
                + [f"options.{k}={v}" for k, v in options.items()])

    cmd = ([arena, "run", "sprt", "--games", str(args.games)]
           + engine("new", args.new, args.new_option, True)
           + engine("base", args.base, args.base_option, False)
           + ["--rules", "time_control.time_ms=0", f"time_control.byoyomi_ms={args.byoyomi}",
              "initial_positions.type=file", f"initial_positions.source={args.openings}",
              "--tournament", f"num_parallel={args.parallel}",
              "--sprt", "elo0=0", "elo1=20", f"num_parallel={args.parallel}"]
           + ([f"min_games={args.games}"] if args.no_sprt_stop else [])
           + ["--run-dir", args.run_dir]
           + (["--no-resume"] if args.no_resume else []))
    print(" ".join(cmd), flush=True)
    code = subprocess.call(cmd)
    print(score_table(Path(args.run_dir)))
    return code


if __name__ == "__main__":
    sys.exit(main())
