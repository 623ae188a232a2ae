"""``usi-engine analyze``: every game of the records and folders given, analysed at a
fixed effort, written to one folder: per game ``NAME.kif`` and ``NAME.csa`` (the
record with the analysis in its comments), ``NAME.html`` (the report) and
``NAME.analysis.json`` (the figures, which a rerun with the same settings reuses
instead of searching again), then ``index.html`` over them all.

Games are named after their files (``folder/game.kif`` -> ``folder__game``; files of
the same name but for the extension add it, ``game-kif``; a file of several games adds
``-2``, ``-3`` ...). A record that cannot be read is reported with
its file and line, and the others are analysed; the exit code is then 1.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

from usi_engine.analysis.core import AnalysisSettings, GameAnalysis, analyze_record
from usi_engine.cli.common import int_in
from usi_engine.cluster.arguments import add_ray_argument
from usi_engine.console.progress import clear_line, progress_line

__all__ = ["cmd_analyze", "add_analyze_parser", "find_games", "write_outputs", "RECORD_SUFFIXES"]

#: The files a folder is searched for (the analysis's own JSON is left out).
RECORD_SUFFIXES = (".kif", ".kifu", ".ki2", ".ki2u", ".csa", ".jkf", ".json", ".usi", ".sfen")
ANALYSIS_SUFFIX = ".analysis.json"


def _record_files(paths: list[str]) -> Iterator[tuple[Path, Path]]:
    """(file, the folder it was found under or its own folder) for each input, folders
    searched recursively in sorted order."""
    for text in paths:
        path = Path(text)
        if path.is_dir():
            for found in sorted(path.rglob("*")):
                name = found.name.lower()
                if (found.is_file() and name.endswith(RECORD_SUFFIXES)
                        and not name.endswith(ANALYSIS_SUFFIX)):
                    yield found, path
        else:
            yield path, path.parent


def _base_name(path: Path, root: Path) -> str:
    try:
        relative = path.relative_to(root)
    except ValueError:
        relative = Path(path.name)
    parts = [*relative.parent.parts, relative.stem] if relative.parent != Path(".") \
        else [relative.stem]
    return "__".join(p for p in parts if p not in ("", ".", ".."))


def find_games(paths: list[str]) -> Iterator[tuple[str, Path, int, Any, str | None]]:
    """(name, file, index in the file, Record or None, error or None) of every game."""
    from usi_engine.record import RecordError, read_record
    used: set[str] = set()
    files = list(_record_files(paths))
    bases = [_base_name(path, root) or "game" for path, root in files]
    for (path, root), base in zip(files, bases):
        if bases.count(base) > 1:          # game.kif and game.csa: game-kif, game-csa
            base += "-" + path.suffix.lstrip(".").lower()
        try:
            records = read_record(path)
        except (RecordError, OSError, UnicodeDecodeError) as exc:
            yield base, path, 0, None, str(exc) if isinstance(exc, RecordError) else \
                f"{path}: {exc}"
            continue
        for index, record in enumerate(records):
            name = base if index == 0 else f"{base}-{index + 1}"
            while name in used:
                name += "_"
            used.add(name)
            record.source = record.source or str(path)
            yield name, path, index, record, None


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all: a killed run leaves no half-written file to be reused."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _load_done(path: Path, settings: AnalysisSettings, record: Any) -> GameAnalysis | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        done = GameAnalysis.from_json(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if done.settings != settings or done.moves != list(record.moves) \
            or done.start_sfen != record.start_sfen:
        return None
    return done


def write_outputs(out: Path, name: str, record: Any, analysis: GameAnalysis) -> None:
    """NAME.analysis.json, NAME.kif, NAME.csa and NAME.html in ``out``."""
    from usi_engine.analysis.annotate import annotated_record
    from usi_engine.analysis.report import game_page, plot_png
    from usi_engine.record import encode_record, write_record
    _write(out / (name + ANALYSIS_SUFFIX),
           json.dumps(analysis.to_json(), ensure_ascii=False).encode("utf-8"))
    for fmt in ("kif", "csa"):
        target = out / f"{name}.{fmt}"
        text = write_record(annotated_record(record, analysis, fmt), fmt)
        _write(target, encode_record(text, target))
    _write(out / f"{name}.html", game_page(analysis).encode("utf-8"))
    plot_png(analysis, str(out / f"{name}.png"))        # when matplotlib is installed


# --- workers -----------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _worker_init(settings: AnalysisSettings,
                 on_ply: Callable[[int], None] | None = None) -> None:
    """A worker's searcher (on_ply: told each position analysed, in this process)."""
    from usi_engine.search.searcher import Searcher
    searcher = Searcher()
    searcher.set_hash(settings.hash_mb)
    searcher.set_threads(settings.threads)
    _WORKER.update(searcher=searcher, settings=settings, on_ply=on_ply)


def _analyze_task(task: tuple[str, int, Any]) -> GameAnalysis:
    name, index, record = task
    return analyze_record(record, _WORKER["settings"], _WORKER["searcher"], name, index,
                          _WORKER["on_ply"])


def _plies_to_analyze(record: Any, settings: AnalysisSettings) -> int:
    last = min(settings.to_ply or len(record.moves), len(record.moves))
    return max(0, last - settings.from_ply + 1)


def _summary_line(name: str, analysis: GameAnalysis, out: Path) -> str:
    parts = []
    for side, player in ((0, analysis.black or "先手"), (1, analysis.white or "後手")):
        mine = [p for p in analysis.plies if p.turn == side]
        loss = sum(p.loss for p in mine) / len(mine) * 100 if mine else 0.0
        marks = ", ".join(f"{m} {sum(p.mark == m for p in mine)}"
                          for m in ("大悪手", "悪手", "疑問手", "緩手")
                          if any(p.mark == m for p in mine))
        parts.append(f"{player}: loss {loss:.1f}%" + (f" ({marks})" if marks else ""))
    return f"{name}: {len(analysis.plies)} plies; {'; '.join(parts)} -> {out / (name + '.html')}"


def settings_from(args: argparse.Namespace) -> AnalysisSettings:
    nodes = args.nodes or 0
    time_ms = 0 if nodes else (args.time_ms or 1000)
    return AnalysisSettings(nodes=nodes, time_ms=time_ms, multipv=args.multipv,
                            from_ply=args.from_ply, to_ply=args.to_ply, threads=args.threads,
                            hash_mb=args.hash)


def cmd_analyze(args: argparse.Namespace) -> int:
    """Analyse every game of ``args.inputs`` into ``args.out``; 0, or 1 when a record
    could not be read."""
    from usi_engine.analysis.report import index_page
    from usi_engine.cluster.arguments import check_ray
    problem = check_ray(args.ray)
    if problem:
        print(f"usi-engine analyze: error: {problem}", file=sys.stderr)
        return 2
    settings = settings_from(args)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"usi-engine analyze: error: --out {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    failed = 0
    finished: dict[str, GameAnalysis] = {}
    todo: list[tuple[str, int, Any]] = []
    records: dict[str, Any] = {}
    for name, path, index, record, error in find_games(args.inputs):
        if record is None:
            failed += 1
            print(f"usi-engine analyze: {error}", file=sys.stderr)
            continue
        records[name] = record
        done = None if args.force else _load_done(out / (name + ANALYSIS_SUFFIX), settings, record)
        if done is not None:
            finished[name] = done
        else:
            todo.append((name, index, record))
    if not records:
        print("usi-engine analyze: no game found", file=sys.stderr)
        return 1
    reused = len(finished)
    total = sum(_plies_to_analyze(record, settings) for _, _, record in todo)
    positions_done = [0]

    def progress() -> None:
        progress_line("analyze", "positions", positions_done[0], total, start)

    def on_ply(ply: int) -> None:          # (in this process: each position as it is done)
        positions_done[0] += 1
        progress()

    def results() -> Iterator[GameAnalysis]:
        from usi_engine.cluster.runner import TaskRunner
        ray = getattr(args, "ray", None)
        here = ray is None and (args.workers <= 1 or len(todo) <= 1)
        with TaskRunner(_worker_init, (settings, on_ply if here else None),
                        processes=0 if here else args.workers, ray_address=ray) as runner:
            for analysis in runner.imap_unordered(_analyze_task, todo):
                if here:
                    positions_done[0] -= _plies_to_analyze(records[analysis.name],
                                                           settings)  # (added below)
                yield analysis

    from usi_engine.cluster.ray_pool import RayConnectError
    try:
        for analysis in results():
            name = analysis.name
            write_outputs(out, name, records[name], analysis)
            finished[name] = analysis
            positions_done[0] += _plies_to_analyze(records[name], settings)
            clear_line()
            print(_summary_line(name, analysis, out), flush=True)
            progress()
    except RayConnectError as exc:
        clear_line()
        print(f"usi-engine analyze: error: {exc}", file=sys.stderr)
        return 2
    finally:
        clear_line()
        if finished:
            ordered = [finished[n] for n in records if n in finished]
            _write(out / "index.html", index_page(ordered).encode("utf-8"))
    print(f"analyzed {len(todo)} games, reused {reused}, {failed} unreadable; "
          f"{out / 'index.html'} ({time.perf_counter() - start:.1f} s)")
    return 1 if failed else 0


def add_analyze_parser(sub: Any) -> None:
    """The ``analyze`` command's arguments."""
    p = sub.add_parser(
        "analyze", help="analyse games: annotated KIF/CSA and HTML reports",
        description="Analyse every game of the records given (KIF/KIFU/KI2/CSA/JKF files, "
                    "USI position lines; folders are searched): each position searched "
                    "with MultiPV, the played move valued, win rates (logistic, "
                    "coefficient 600) and marks for moves losing 5/10/20/50% of win rate "
                    "(緩手/疑問手/悪手/大悪手). Writes NAME.kif, NAME.csa, NAME.html and "
                    "NAME.analysis.json per game and index.html to --out; a rerun with "
                    "the same settings skips the games already analysed. With --nodes "
                    "(and one thread) the same input gives the same output.")
    p.add_argument("inputs", nargs="+", metavar="RECORD_OR_FOLDER")
    p.add_argument("--out", required=True, metavar="DIR")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int_in(1, 10**12), default=None,
                       help="nodes per position (reproducible)")
    limit.add_argument("--time-ms", type=int_in(1, 10**8), default=None, metavar="MS",
                       help="ms per position (default 1000 when --nodes is not given)")
    p.add_argument("--multipv", type=int_in(1, 16), default=3, help="lines per position (default 3)")
    p.add_argument("--from-ply", type=int_in(1, 100000), default=1, metavar="N",
                   help="first move analysed (default 1)")
    p.add_argument("--to-ply", type=int_in(0, 100000), default=0, metavar="N",
                   help="last move analysed (0: the last)")
    p.add_argument("--threads", type=int_in(1, 256), default=1, help="threads per search (default 1)")
    p.add_argument("--workers", type=int_in(1, 1024), default=1,
                   help="games analysed at once, one process each (default 1)")
    p.add_argument("--hash", type=int_in(1, 1 << 20), default=64, metavar="MB",
                   help="table size per worker (default 64)")
    p.add_argument("--force", action="store_true", help="analyse again games already done")
    add_ray_argument(p, "a game")
    p.set_defaults(func=cmd_analyze)
