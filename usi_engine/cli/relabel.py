"""``usi-engine relabel``: training data scored again by a USI teacher."""
from __future__ import annotations

import argparse
import os
from typing import Any

from usi_engine.cli.common import int_in, float_in


def cmd_relabel(args: argparse.Namespace) -> int:
    """Relabel records with a USI teacher's scores (see :mod:`usi_engine.training.relabel`)."""
    from usi_engine.training.relabel import run
    return run(args)


def add_relabel_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``relabel`` sub-command's arguments."""
    # The defaults of usi_engine.training.relabel (not imported here: it loads numpy).
    DEFAULT_GO, DEFAULT_MAX_SCORE, DEFAULT_TIMEOUT_S = "go btime 0 wtime 0 byoyomi 100", 3000, 30.0
    p = sub.add_parser(
        "relabel", help="replace the records' scores by a USI engine's (a teacher)",
        description="Ask a USI engine for its score of every record's position and write "
                    "the records with that score (side to move; mate N as +-(32000 - N)) "
                    "to DIR, one file per input file with the same name, for usi-engine "
                    "learn. Files already in DIR are skipped (a rerun resumes). Records the "
                    "teacher gives no score for are dropped. Last line: records N "
                    "relabelled M dropped D seconds T records_per_s X. Exit code 1 when a "
                    "file failed (its reason on stderr).")
    p.add_argument("data", nargs="+", help="record files, or folders of *.psv / *.bin files")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--engine", required=True, metavar="CMD",
                   help="the teacher's command line, e.g. '/usr/games/gpsusi "
                        "--node-count-hard-limit 3000'")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="setoption for the teacher before isready (repeatable)")
    p.add_argument("--go", default=DEFAULT_GO, metavar="LINE",  # relabel.DEFAULT_GO
                   help=f"the go command sent for each position (default '{DEFAULT_GO}'; "
                        "e.g. 'go depth 6' or 'go nodes 20000' where the teacher knows them)")
    p.add_argument("--workers", type=int_in(1, 1024), default=os.cpu_count() or 1,
                   help="worker processes, one teacher each (default: the core count)")
    p.add_argument("--timeout-s", type=float_in(0.05, 1e6), default=DEFAULT_TIMEOUT_S,
                   metavar="S", help="seconds a position may take before 'stop' (default "
                                     f"{DEFAULT_TIMEOUT_S:g}); then the teacher is restarted")
    p.add_argument("--quiet-only", action="store_true",
                   help="drop, unasked, the records whose stored move captures or whose "
                        "stored |score| is beyond --max-score (the trainer leaves those out)")
    p.add_argument("--max-score", type=int_in(0, 32000), default=None,
                   help=f"with --quiet-only (default {DEFAULT_MAX_SCORE})")
    p.add_argument("--score-factor", type=float_in(0.0, 100.0), default=1.0, metavar="F",
                   help="multiply the teacher's centipawns (not mates) by F (default 1)")
    p.add_argument("--limit", type=int_in(1, 10**12), default=None, metavar="N",
                   help="at most the first N records of each file")
    from usi_engine.cluster.arguments import add_ray_argument
    add_ray_argument(p, "a file")
    p.set_defaults(func=cmd_relabel)
