"""SPSA tuning of the search parameters by self-play (shogiarena), resumable.

The parameters are those of ``usi_engine.search.alphabeta.TUNABLES`` (margins, reductions, the
aspiration window). The engine offers them as USI options when ``USI_ENGINE_TUNE`` is
set (``usi_engine/usi/tuning.py``); this script writes a launcher that sets it, the
parameter space and the shogiarena configuration into the run directory, runs
``shogiarena run spsa`` there, and prints each parameter's default beside its tuned
value. Run the same command again to resume; shogiarena keeps every game.

    # freeze the build to tune (any commit), then tune it:
    python -m bench.strength.ab_match --freeze /tmp/tune-base
    python -m bench.strength.spsa_tune --engine /tmp/tune-base/engine.sh --updates 600 \\
        --nodes 20000 --workers 2 --run-dir /tmp/spsa1
    # what it found so far (also printed at the end of a run):
    python -m bench.strength.spsa_tune --run-dir /tmp/spsa1 --show
    # then check the values with a match before changing the defaults in search/alphabeta.pyx:
    python -m bench.strength.ab_match --new-option RfpMargin=... (with USI_ENGINE_TUNE=1) ...

Each update plays one pair of games (the plus and the minus perturbation, the same
opening with colours swapped); the perturbation of each parameter ends at c_end
(about a tenth of its default) and the step size at r_end 0.002, as in fishtest and
OpenBench. Needs shogiarena (the `bench` extra, Python 3.11+); installs nothing.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from bench.lib.paths import ENGINE_SH, OPENINGS

# The final perturbation of each parameter (about a tenth of its default).
C_END = {"RfpMargin": 15, "FutilityBase": 12, "FutilityPerDepth": 12, "LmrBase": 10,
         "LmrDivisor": 15, "LmrHistoryDivisor": 1000, "AspirationDelta": 5,
         "QsDeltaMargin": 20}
R_END = 0.002

LAUNCHER = """#!/bin/sh
# {engine} with the search parameters offered as USI options (bench/strength/spsa_tune.py)
USI_ENGINE_TUNE=1 exec "{engine}" "$@"
"""


def tunables() -> tuple[tuple[str, int, int, int], ...]:
    """The tuned parameters: ``usi_engine.search.alphabeta.TUNABLES`` (name, default,
    low, high), less the on/off switches where the search still marks some as such
    (``SWITCHES``, measured by matches one at a time); without ``SWITCHES`` every
    tunable is tuned."""
    from usi_engine.search import alphabeta
    switches = set(getattr(alphabeta, "SWITCHES", ()) or ())
    return tuple(tuple(t) for t in alphabeta.TUNABLES if t[0] not in switches)


def space(params: tuple[tuple[str, int, int, int], ...]) -> dict:
    """shogiarena's parameter space: one integer USI option per parameter."""
    return {
        "schema_version": "shogiarena.spsa.space.v1",
        "target": {"protocol": "usi_options"},
        "parameters": [
            {"id": name, "target": {"option": name, "value_encoding": "integer"},
             "value_type": "int", "initial": default, "bounds": {"min": low, "max": high},
             "schedule": {"c_end": C_END.get(name, max(1, abs(default) // 10)), "r_end": R_END},
             "rounding": {"mode": "stochastic"}}
            for name, default, low, high in params],
    }


def config(run_dir: Path, launcher: Path, args: argparse.Namespace) -> dict:
    """shogiarena's SPSA configuration: the one engine plays itself (plus against minus)."""
    options = {"NetworkDelay": 0, "NetworkDelay2": 0, "USI_Hash": 64, "Threads": 1,
               "NodesLimit": args.nodes}
    return {
        "experiment_name": run_dir.name,
        "engines": [{"name": "usi_engine", "engine_path": str(run_dir / "engine.json"),
                     "options": options}],
        "rules": {"time_control": {"time_ms": 0, "byoyomi_ms": args.byoyomi},
                  "initial_positions": {"type": "file",
                                        "source": str(Path(args.openings).resolve())}},
        "spsa": {"space": str(run_dir / "space.json"), "num_updates": args.updates,
                 "pairs_per_update": 1, "num_parallel": args.workers,
                 # usinewgame already ages the table: no 'Clear Hash' button needed
                 "variants": {"apply": {"clear_hash": False}}},
        "dashboard": {"enabled": False},
    }


def latest_values(run_dir: Path) -> dict[str, float] | None:
    """The parameter values (theta) after the newest update shogiarena has committed."""
    path = run_dir / "spsa" / "current.json"
    if not path.is_file():
        return None
    theta = json.loads(path.read_text()).get("theta")
    return theta if isinstance(theta, dict) else None


def updates_done(run_dir: Path) -> int:
    path = run_dir / "spsa" / "current.json"
    return int(json.loads(path.read_text()).get("update_idx", 0)) if path.is_file() else 0


def report(run_dir: Path) -> str:
    values = latest_values(run_dir)
    if values is None:
        return f"no update written yet under {run_dir}"
    lines = [f"after {updates_done(run_dir)} updates", f"{'parameter':<20} {'default':>8} {'tuned':>10}"]
    for name, default, _low, _high in tunables():
        tuned = values.get(name)
        shown = f"{tuned:10.1f}" if isinstance(tuned, (int, float)) else f"{'?':>10}"
        lines.append(f"{name:<20} {default:>8} {shown}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default=str(ENGINE_SH),
                    help="launcher of the build to tune (bench/engine.sh: this checkout)")
    ap.add_argument("--run-dir", required=True)
    ap.add_argument("--updates", type=int, default=600, help="SPSA updates (a game pair each)")
    ap.add_argument("--nodes", type=int, default=20000, help="NodesLimit of every move")
    ap.add_argument("--byoyomi", type=int, default=2000,
                    help="ms a move, a safety net above the node limit")
    ap.add_argument("--workers", type=int, default=1, help="games at once (one per core)")
    ap.add_argument("--openings", default=str(OPENINGS))
    ap.add_argument("--show", action="store_true", help="print what the run found so far")
    args = ap.parse_args(argv)
    run_dir = Path(args.run_dir).resolve()
    if args.show:
        print(report(run_dir / "arena"))
        return 0
    beside = Path(sys.executable).parent / "shogiarena"     # a venv run without activating it
    arena = shutil.which("shogiarena") or (str(beside) if beside.exists() else None)
    if arena is None:
        raise SystemExit("shogiarena is not installed: pip install -e '.[bench]' (Python 3.11+)")
    run_dir.mkdir(parents=True, exist_ok=True)
    launcher = run_dir / "engine-tune.sh"
    launcher.write_text(LAUNCHER.format(engine=Path(args.engine).resolve()))
    launcher.chmod(0o755)
    # shogiarena's SPSA reads the engine from a configuration file (JSON is YAML)
    (run_dir / "engine.json").write_text(json.dumps({"name": "usi_engine",
                                                     "engine_path": str(launcher)}))
    (run_dir / "space.json").write_text(json.dumps(space(tunables()), indent=1))
    config_path = run_dir / "spsa.json"
    config_path.write_text(json.dumps(config(run_dir, launcher, args), indent=1))
    cmd = [arena, "run", "spsa", str(config_path), "--run-dir", str(run_dir / "arena")]
    print(" ".join(cmd), flush=True)
    code = subprocess.call(cmd)
    print(report(run_dir / "arena"))
    return code


if __name__ == "__main__":
    sys.exit(main())
