"""``usi-engine relabel``: training data scored again by a USI teacher."""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from usi_engine.cli.common import fail as fail_as, float_in, int_in


def cmd_relabel(args: argparse.Namespace) -> int:
    """Relabel records with a USI teacher's scores (:mod:`usi_engine.training.relabel`):
    0 when every file was done, 1 when some failed, 2 (one line on stderr) for bad
    arguments."""
    from usi_engine.cluster.arguments import check_ray
    from usi_engine.cluster.ray_pool import RayConnectError
    from usi_engine.training import relabel      # lazy: it loads numpy
    from usi_engine.usi.client import split_command

    def fail(message: str) -> int:
        return fail_as(message, "relabel")

    try:
        command = tuple(split_command(args.engine))
    except ValueError as exc:
        return fail(f"--engine: {exc}")
    if not command:
        return fail("--engine: empty command")
    if shutil.which(command[0]) is None:
        return fail(f"--engine: {command[0]} is not an executable program")
    options = []
    for text in args.option or ():
        name, sep, value = text.partition("=")
        if not sep or not name.strip() or " " in name.strip():
            return fail(f"--option: expected NAME=VALUE, got {text[:60]!r}")
        options.append((name.strip(), value.strip()))
    go = " ".join(args.go.split())
    if go.split()[:1] != ["go"] or "infinite" in go.split() or "ponder" in go.split():
        return fail(f"--go: expected a go command with a limit, e.g. '{relabel.DEFAULT_GO}', "
                    f"got {args.go[:60]!r}")
    if args.max_score is not None and not args.quiet_only:
        return fail("--max-score goes with --quiet-only")
    config = relabel.Config(command=command, options=tuple(options), go=go, timeout_s=args.timeout_s,
                    quiet_only=args.quiet_only,
                    max_score=relabel.DEFAULT_MAX_SCORE if args.max_score is None else args.max_score,
                    score_factor=args.score_factor, limit=args.limit)
    out_dir = Path(args.out)
    try:
        jobs = relabel.plan(args.data, out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
    except ValueError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"--out {out_dir}: {exc}")
    todo = [(src, dst) for src, dst in jobs if not dst.exists()]
    if len(todo) < len(jobs):
        print(f"relabel: {len(jobs) - len(todo)} of {len(jobs)} files already in {out_dir}, "
              "skipped", file=sys.stderr)
    problem = check_ray(getattr(args, "ray", None))
    if problem:
        return fail(problem)
    teacher = relabel.Teacher(config)
    try:
        teacher.start()          # bad engine or option: a usage error, before any work
    except relabel.TeacherError as exc:
        teacher.kill()
        return fail(f"--engine {args.engine}: {exc}")
    try:
        summary = relabel.relabel_all(teacher, todo, config, args.workers, getattr(args, "ray", None))
    except RayConnectError as exc:               # --ray could not start or reach Ray
        return fail(str(exc))
    finally:
        teacher.close()
    summary.skipped_files = len(jobs) - len(todo)
    for failed in summary.failed:
        print(f"usi-engine relabel: {failed.name}: {failed.error}", file=sys.stderr)
    print(summary.line())
    return 1 if summary.failed else 0


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
