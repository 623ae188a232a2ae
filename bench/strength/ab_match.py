"""A/B match between two USI engines with shogiarena (SPRT), from the opening set,
with the score and its 95% interval printed side by side at the end.

    # a frozen copy of the build to compare against (any commit):
    python bench/ab_match.py --freeze /tmp/base          # copies usi_engine/ + a launcher
    # or of a past commit, built as a wheel from a scratch git worktree (e.g. before #13):
    python bench/ab_match.py --freeze /tmp/old --commit 4841eb5
    # or of this build with other weights (a KP table or a network) as its shipped ones:
    python bench/ab_match.py --freeze /tmp/net2 --weights kpnn2.bin
    # ... change the code, rebuild, then:
    python bench/ab_match.py --new ./bench/engine.sh --base /tmp/base/engine.sh \\
        --games 200 --byoyomi 100 --run-dir /tmp/ab1
    # against YaneuraOu's material edition (see ../shared/tools/setup-peers.sh):
    python bench/ab_match.py --base ~/.cache/usi-peers/yaneuraou-material \\
        --base-option BookFile=no_book --games 100 --byoyomi 300

Both engines get NetworkDelay 0, NetworkDelay2 0, USI_Hash 64 and Threads 1 unless
--new-option/--base-option say otherwise; every opening of sfen/openings.txt that is
drawn is played twice, once with each colour. shogiarena (the `bench` extra, Python
3.11+) runs the games, adjudicates and stops early when the SPRT (elo0 0, elo1 20)
decides; the run directory keeps every game (game.db) and can be resumed by running
the same command again without --no-resume. Nothing is installed by this script.
"""
from __future__ import annotations

import argparse
import math
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPENINGS = ROOT / "sfen" / "openings.txt"
LAUNCHER = """#!/bin/sh
# a frozen usi_engine build (bench/ab_match.py --freeze)
cd "{dir}" && PYTHONPATH="{dir}" exec "{python}" -m usi_engine "$@"
"""


def freeze(target: Path, root: Path = ROOT, weights: Path | None = None) -> Path:
    """Copy the built package of the checkout `root` (with its compiled modules) and a
    launcher to target; `weights` (a KP or network file) replaces its shipped weights."""
    package = root / "usi_engine"
    if not list(package.rglob("*.so")) and not list(package.rglob("*.pyd")):
        raise SystemExit("usi_engine/ holds no compiled module: build in place first "
                         "(pip install -e . or python setup.py build_ext --inplace)")
    target.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(target / "usi_engine", ignore_errors=True)
    shutil.copytree(root / "usi_engine", target / "usi_engine")
    if weights is not None:
        shutil.copyfile(weights, target / "usi_engine" / "eval" / "data" / "kpnn.bin")
    launcher = target / "engine.sh"
    launcher.write_text(LAUNCHER.format(dir=target.resolve(), python=sys.executable))
    launcher.chmod(0o755)
    return launcher


def freeze_commit(target: Path, commit: str, weights: Path | None = None) -> Path:
    """Build a wheel of `commit` of this repository from a scratch git worktree (pip,
    with build isolation: the commit's own build requirements) and freeze its package
    to target; the worktree and the wheel are removed afterwards."""
    known = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet",
                            f"{commit}^{{commit}}"], capture_output=True, text=True)
    if known.returncode != 0:
        raise SystemExit(f"--commit {commit}: no such commit in {ROOT}")
    scratch = Path(tempfile.mkdtemp(prefix="ab-freeze-")) / "src"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(scratch),
                    known.stdout.strip()], check=True, capture_output=True)
    try:
        wheels = scratch.parent / "wheel"
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                        str(wheels), str(scratch)], check=True)
        built = scratch.parent / "built"
        with zipfile.ZipFile(next(wheels.glob("*.whl"))) as wheel:
            wheel.extractall(built)
        return freeze(target, built, weights)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(scratch)],
                       capture_output=True)
        shutil.rmtree(scratch.parent, ignore_errors=True)


def score_table(run_dir: Path) -> str:
    """W-L-D of the engine named `new`, score, Elo and the 95% interval (normal
    approximation on the per-game scores)."""
    db = sqlite3.connect(run_dir / "game.db")
    names = dict(db.execute("select id, player_name from player"))
    scores = []
    for result, black in db.execute("select game_result, black_player_id from game"):
        new_black = names[black] == "new"
        if result == "BLACK_WIN":
            scores.append(1.0 if new_black else 0.0)
        elif result == "WHITE_WIN":
            scores.append(0.0 if new_black else 1.0)
        else:
            scores.append(0.5)
    return score_summary(scores)


def score_summary(scores: list[float]) -> str:
    """W-L-D, score, Elo and its 95% interval (normal approximation on the per-game
    scores: 1, 0.5 or 0 for the engine they are counted for)."""
    n = len(scores)
    if not n:
        return "no game finished"
    p = sum(scores) / n
    se = math.sqrt(sum((x - p) ** 2 for x in scores) / n / n)

    def elo(q: float) -> str:
        if q <= 0:
            return "-inf"
        if q >= 1:
            return "+inf"
        return f"{-400 * math.log10(1 / q - 1):+.0f}"

    wins, losses = scores.count(1.0), scores.count(0.0)
    return (f"games {n}: +{wins} -{losses} ={n - wins - losses}, score {p:.3f}, "
            f"Elo {elo(p)} [95%: {elo(p - 1.96 * se)}, {elo(p + 1.96 * se)}]")


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
    ap.add_argument("--new", default=str(ROOT / "bench" / "engine.sh"),
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
    ap.add_argument("--run-dir", default=str(ROOT / "bench" / "out" / "ab"))
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
