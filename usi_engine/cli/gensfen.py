"""``usi-engine gensfen``: self-play training data (PackedSfenValue)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from usi_engine.cli.common import fail as fail_as, int_in


def cmd_gensfen(args: argparse.Namespace) -> int:
    """Self-play training data (:mod:`usi_engine.training.gensfen`): returns the exit
    code (2 with one line on stderr for bad arguments)."""
    from usi_engine.cluster.arguments import check_ray
    from usi_engine.cluster.ray_pool import RayConnectError
    from usi_engine.training import gensfen     # lazy: imports the compiled core

    def fail(message: str) -> int:
        return fail_as(message, "gensfen")

    nodes = 0 if args.depth else (args.nodes or 4000)
    try:
        openings_path = args.openings or gensfen.default_openings_path()
    except OSError as exc:
        return fail(str(exc))
    try:
        openings = gensfen.read_openings(openings_path)
    except (OSError, UnicodeDecodeError) as exc:
        return fail(f"--openings {openings_path}: cannot read it ({exc})")
    except ValueError as exc:
        return fail(f"--openings: {exc}")
    settings = gensfen.Settings(seed=args.seed, nodes=nodes, depth=args.depth or 0,
                        batch_positions=args.batch_positions, random_plies=args.random_plies,
                        openings=openings, eval_kind=args.eval,
                        eval_file=os.path.abspath(args.eval_file) if args.eval_file else None,
                        hash_mb=args.hash_mb)
    try:
        gensfen.network_for(settings.eval_kind, settings.eval_file)
    except ValueError as exc:
        return fail(str(exc))
    total_batches = -(-args.positions // args.batch_positions)
    if total_batches > gensfen.MAX_BATCHES:
        return fail(f"{total_batches} batches is too many (at most {gensfen.MAX_BATCHES}): "
                    "raise --batch-positions")
    try:
        batches = (gensfen.parse_batches(args.batches, total_batches) if args.batches
                   else list(range(total_batches)))
    except ValueError as exc:
        return fail(str(exc))
    out_dir = Path(args.out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        gensfen.check_manifest(out_dir, settings)
    except OSError as exc:
        return fail(f"--out {out_dir}: {exc}")
    except ValueError as exc:
        return fail(str(exc))
    size = settings.batch_positions * gensfen.PSV_DTYPE.itemsize
    todo = []
    for k in batches:
        path = gensfen.batch_path(out_dir, k)
        if not path.exists():
            todo.append(k)
        elif path.stat().st_size != size:
            return fail(f"{path} holds {path.stat().st_size} bytes, not {size}: remove it")
    if len(todo) < len(batches):
        print(f"gensfen: {len(batches) - len(todo)} of {len(batches)} batches already in "
              f"{out_dir}, skipped", file=sys.stderr)
    problem = check_ray(getattr(args, "ray", None))
    if problem:
        return fail(problem)
    try:
        positions, games, seconds = gensfen.run_batches(settings, out_dir, todo, args.workers,
                                                        getattr(args, "ray", None))
    except OSError as exc:
        print(f"usi-engine gensfen: error: writing a batch failed: {exc}", file=sys.stderr)
        return 1
    except RayConnectError as exc:               # --ray could not start or reach Ray
        return fail(str(exc))
    print(f"positions {positions} games {games} seconds {seconds:.1f} "
          f"positions_per_s {positions / seconds if seconds > 0 else 0.0:.1f}")
    return 0


def add_gensfen_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``gensfen`` sub-command's arguments (the work is in :mod:`usi_engine.training.gensfen`,
    imported only when the command runs)."""
    p = sub.add_parser(
        "gensfen", help="self-play training data (YaneuraOu PackedSfenValue files)",
        description="Play the engine against itself and write every searched position with "
                    "its score, move and game result as 40-byte PackedSfenValue records, in "
                    "batches DIR/batch-NNNNN.psv. Rerunning the same command resumes; the same "
                    "seed and settings give the same bytes whatever the worker count. Last "
                    "line: positions N games G seconds T positions_per_s X.")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--positions", required=True, type=int_in(1, 10**12), metavar="N",
                   help="positions to generate (rounded up to whole batches)")
    p.add_argument("--seed", type=int_in(0, 2**63 - 1), default=1, help="random seed (default 1)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int_in(1, 10**9), default=None,
                       help="nodes per search (default 4000)")
    limit.add_argument("--depth", type=int_in(1, 100), default=None,
                       help="depth per search instead of a node count")
    p.add_argument("--workers", type=int_in(1, 1024), default=os.cpu_count() or 1,
                   help="worker processes (default: the core count)")
    p.add_argument("--batch-positions", type=int_in(1, 10**8), default=10000, metavar="N",
                   help="records per batch file (default 10000)")
    p.add_argument("--batches", metavar="LIST",
                   help="make only these batches, e.g. 10-19 or 0-4,7 (to share out the work)")
    p.add_argument("--openings", metavar="FILE",
                   help="opening file, one 'startpos moves ...' or SFEN a line (default: "
                        "the opening set shipped in the package, usi_engine/data/openings.txt)")
    p.add_argument("--random-plies", type=int_in(0, 100), default=4, metavar="N",
                   help="up to N random legal moves after the opening (default 4)")
    p.add_argument("--eval", choices=("hand", "learned"), default="hand",
                   help="evaluation used by the searches (default hand)")
    p.add_argument("--eval-file", metavar="PATH", help="weights for --eval learned")
    p.add_argument("--hash-mb", type=int_in(1, 4096), default=16, metavar="MB",
                   help="search table per worker in MB (default 16)")
    from usi_engine.cluster.arguments import add_ray_argument
    add_ray_argument(p, "a batch")
    p.set_defaults(func=cmd_gensfen)
