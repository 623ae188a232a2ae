"""``usi-engine gensfen``: self-play training data (PackedSfenValue)."""
from __future__ import annotations

import argparse
import os
from typing import Any

from usi_engine.cli.common import int_in


def cmd_gensfen(args: argparse.Namespace) -> int:
    """Self-play training data (see :mod:`usi_engine.training.gensfen`)."""
    from usi_engine.training.gensfen import run
    return run(args)


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
