"""A teacher for the training data: ``usi-engine relabel``.

Reads PackedSfenValue record files (as ``usi-engine gensfen`` writes them), asks any
USI engine (the *teacher*: gpsshogi's ``gpsusi``, Fairy-Stockfish, YaneuraOu, ...) for
its score of each position, and writes the same records with the teacher's score in
place of the stored one, one output file per input file with the same name, so that
``usi-engine learn`` trains on the teacher's judgement instead of our own search's.

For every record: ``position sfen ...`` then the go line (``--go``); the last
``score`` of the ``info`` lines before ``bestmove`` is stored, from the side to move
(as USI gives it): centipawns times ``--score-factor``, clamped to +-32000; ``mate N``
as +-(32000 - N), and a bare ``mate +`` / ``mate -`` (gpsusi sends those) as +-32000.
``bestmove resign`` or ``win`` still counts.  A record the teacher gives no score for
is dropped.

Each output file is written whole (a ``.tmp`` file, then renamed), and output files
already present are skipped, so an interrupted run resumes where it stopped.  Every
worker process has its own teacher process, started once and sent ``usinewgame`` at
the start of each file.  A teacher that dies is restarted once per file (the record
is asked again); a second death fails that file, with a message, and the other files
go on.  A teacher silent for ``--timeout-s`` seconds on a position is sent ``stop``;
if it still says nothing it is killed and restarted, and the record dropped; three
such positions in a row fail the file.

The record files are read and written through `usi_engine.training.data`.

    >>> from usi_engine.training.relabel import Config, Teacher, relabel_file  # doctest: +SKIP
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.util
import os
import shlex
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from usi_engine.core.packed import decode_records
from usi_engine.notation.score import MATE_VALUE
from usi_engine.training.data import (quiet, read_record_file, record_count,
                                      record_files, record_sfen, stored_cp, stored_mate,
                                      write_records)
from usi_engine.console.progress import clear_line, progress_line
from usi_engine.usi.client import UsiClient, UsiEngineExited, UsiError, UsiTimeout
from usi_engine.usi.info import Info

#: The default go line: a time limit every USI engine honours (gpsusi knows neither
#: ``go depth`` nor ``go nodes``): 100 ms a position.
DEFAULT_GO = "go btime 0 wtime 0 byoyomi 100"
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_SCORE = 3000
#: After ``stop``, how long a timed-out teacher gets to answer before it is killed.
STOP_GRACE_S = 5.0
#: The handshake (usi/usiok, isready/readyok) may take this long at least (weights load).
STARTUP_TIMEOUT_S = 60.0
#: A file fails when the teacher answers none of this many positions in a row.
TIMEOUTS_IN_A_ROW = 3
#: A file fails at the teacher's second death within it.
DEATHS_PER_FILE = 1


@dataclass(frozen=True)
class Config:
    """The settings of a run (the command line's options)."""
    command: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    go: str = DEFAULT_GO
    timeout_s: float = DEFAULT_TIMEOUT_S
    quiet_only: bool = False
    max_score: int = DEFAULT_MAX_SCORE
    score_factor: float = 1.0
    limit: int | None = None


#: The teacher could not be started or did not follow USI (the client's errors).
TeacherError = UsiError
#: The teacher's process ended.
TeacherDied = UsiEngineExited
#: The teacher said nothing conclusive in time.
TeacherTimeout = UsiTimeout


def stored_score(info: Info, factor: float = 1.0) -> int:
    """The score of an ``info`` line as stored in a record: ``cp`` times `factor`,
    rounded and clamped to +-MATE_VALUE; a mate in N as +-(MATE_VALUE - N), N = 0 when
    the engine gives no length (``mate +`` / ``mate -``).  See
    `usi_engine.training.data.stored_cp` and `stored_mate`."""
    if info.is_mate:
        return stored_mate(info.score_mate or 0, info.mate_sign)
    assert info.score_cp is not None
    return stored_cp(info.score_cp * factor)


class Teacher:
    """A USI engine asked for scores, one position at a time (through the package's
    USI client, :class:`usi_engine.usi.client.UsiClient`); its failures are the
    client's exceptions, named TeacherDied / TeacherTimeout / TeacherError here."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.engine: UsiClient | None = None

    @property
    def alive(self) -> bool:
        """True while the engine process runs."""
        return self.engine is not None and self.engine.alive

    def _engine(self) -> UsiClient:
        if self.engine is None:
            raise TeacherDied("the teacher is not running")
        return self.engine

    def start(self) -> None:
        """Start the engine and do the handshake (usi, the options, isready).
        TeacherError when it cannot be run, dies, stays silent or lacks an option."""
        self.kill()
        try:
            # a session of its own: Ctrl-C reaches only us, and we quit it
            engine = self.engine = UsiClient(self.config.command, name="the teacher",
                                             new_session=True, stderr_keep=3)
        except OSError as exc:
            raise TeacherError(f"cannot run {shlex.join(self.config.command)}: {exc}") from None
        startup = max(self.config.timeout_s, STARTUP_TIMEOUT_S)
        engine.usi(startup)
        for name, value in self.config.options:
            if not name.startswith("USI_") and not engine.has_option(name):
                known = ", ".join(sorted(engine.options)) or "none"
                raise TeacherError(f"--option {name}: the teacher has no such option "
                                   f"(it has: {known})")
            engine.setoption(name, value)
        engine.isready(startup)

    def new_game(self) -> None:
        """``usinewgame``: a new file's positions are unrelated to the last ones."""
        self._engine().usinewgame()

    def score(self, sfen: str) -> int | None:
        """The teacher's stored score of the position, or None when it gave none.
        TeacherDied if it exits; TeacherTimeout if it answers neither the go line within
        the timeout nor ``stop`` within STOP_GRACE_S (the engine is then in an unknown
        state: kill it)."""
        engine = self._engine()
        engine.position(sfen)
        result = engine.go(self.config.go, timeout=self.config.timeout_s,
                           stop_grace=min(STOP_GRACE_S, self.config.timeout_s))
        best = result.score
        return stored_score(best, self.config.score_factor) if best is not None else None

    def kill(self) -> None:
        """End the engine at once (no-op when none runs)."""
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.kill()
            engine.quit(timeout=1.0)

    def close(self) -> None:
        """``quit`` the engine (killed if it does not exit)."""
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.quit(timeout=3.0)


# ---- one file ---------------------------------------------------------------------------------
@dataclass
class FileResult:
    """What became of one input file."""
    name: str
    records: int = 0          # records read (after --limit)
    relabelled: int = 0       # written with the teacher's score
    timeouts: int = 0
    error: str | None = None
    seconds: float = 0.0

    @property
    def dropped(self) -> int:
        return self.records - self.relabelled if self.error is None else 0


def wanted(records: np.ndarray, config: Config) -> np.ndarray:
    """Mask of the records to ask the teacher about: all of them, or with quiet_only
    those whose stored move does not capture and whose stored |score| <= max_score."""
    keep = np.ones(len(records), dtype=bool)
    if not config.quiet_only or not len(records):
        return keep
    board, _, _ = decode_records(records)
    return quiet(records, board, config.max_score)


def relabel_file(teacher: Teacher, src: Path, dst: Path, config: Config,
                 on_record: Callable[[], None] = lambda: None) -> FileResult:
    """Relabel one file into `dst`; never raises for the teacher's failures (they are in
    the result's ``error``, and nothing is written)."""
    start = time.perf_counter()
    try:
        records = read_record_file(src, config.limit)
    except (OSError, ValueError) as exc:
        return FileResult(src.name, error=str(exc))
    result, out = relabel_records(teacher, src.name, records, config, on_record)
    if out is not None:
        try:
            write_records(dst, out)             # whole, or not at all
        except OSError as exc:
            result.error = f"cannot write {dst}: {exc}"
    result.seconds = time.perf_counter() - start
    return result


def relabel_records(teacher: Teacher, name: str, records: np.ndarray, config: Config,
                    on_record: Callable[[], None] = lambda: None
                    ) -> tuple[FileResult, np.ndarray | None]:
    """The records of file ``name`` with the teacher's scores (those it answered), or
    None with the reason in the result's ``error``; never raises for the teacher."""
    start = time.perf_counter()
    result = FileResult(name)
    result.records = len(records)
    ask = wanted(records, config)
    scores = np.zeros(len(records), dtype=np.int16)
    got = np.zeros(len(records), dtype=bool)
    deaths = in_a_row = 0

    def restart() -> None:
        nonlocal deaths
        while True:
            try:
                teacher.start()
                teacher.new_game()
                return
            except TeacherDied:
                deaths += 1
                if deaths > DEATHS_PER_FILE:
                    raise
            except TeacherError:
                teacher.kill()
                raise

    try:
        if teacher.alive:
            teacher.new_game()
        else:
            restart()
        for i in np.flatnonzero(ask):
            sfen = record_sfen(records, int(i))
            while True:
                try:
                    score = teacher.score(sfen)
                    in_a_row = 0
                except TeacherTimeout:
                    teacher.kill()
                    result.timeouts += 1
                    in_a_row += 1
                    if in_a_row >= TIMEOUTS_IN_A_ROW:
                        raise TeacherError(f"the teacher answered none of {in_a_row} "
                                           f"positions in a row within "
                                           f"{config.timeout_s:g} s") from None
                    restart()
                    score = None
                except TeacherDied:
                    teacher.kill()
                    deaths += 1
                    if deaths > DEATHS_PER_FILE:
                        raise
                    restart()
                    continue            # ask the restarted teacher again
                break
            if score is not None:
                scores[i] = score
                got[i] = True
            on_record()
        out = records[got]
        out["score"] = scores[got]
        result.relabelled = len(out)
        result.seconds = time.perf_counter() - start
        return result, out
    except TeacherDied as exc:
        teacher.kill()
        result.error = f"{exc}; it died twice on this file, which is left out"
    except TeacherError as exc:
        teacher.kill()
        result.error = f"{exc}; the file is left out"
    result.seconds = time.perf_counter() - start
    return result, None


# ---- worker processes ---------------------------------------------------------------------
_worker: dict = {}


def _worker_exit(signum, frame) -> None:           # pragma: no cover - runs in a worker
    teacher = _worker.get("teacher")
    if teacher is not None:
        teacher.kill()
    os._exit(1)


def _init_worker(config: Config, counter) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent handles Ctrl-C
    signal.signal(signal.SIGTERM, _worker_exit)      # Pool.terminate: take the teacher along
    teacher = Teacher(config)
    _worker.update(config=config, counter=counter, teacher=teacher)
    multiprocessing.util.Finalize(None, teacher.close, exitpriority=10)


def _init_ray_worker(config: Config) -> None:
    signal.signal(signal.SIGTERM, _worker_exit)      # Ray ends its workers: the teacher too
    old = _worker.get("teacher")
    if old is not None:
        old.close()
    _worker.update(config=config, counter=None, teacher=Teacher(config))


def _relabel_task(job: tuple[str, np.ndarray]) -> tuple[FileResult, np.ndarray | None]:
    """A Ray task: one file's records relabelled here, written by the driver."""
    return relabel_records(_worker["teacher"], job[0], job[1], _worker["config"])


def _init_here(teacher: Teacher, config: Config, counter, on_record: Callable[[], None]) -> None:
    """One worker, this process: the teacher already started, progress shown as it goes."""
    _worker.update(config=config, counter=counter, teacher=teacher, on_record=on_record)


def _count(counter) -> None:
    with counter.get_lock():
        counter.value += 1


def _run_file(job: tuple[str, str]) -> FileResult:
    counter = _worker["counter"]
    on_record = _worker.get("on_record") or (lambda: _count(counter))
    return relabel_file(_worker["teacher"], Path(job[0]), Path(job[1]), _worker["config"],
                        on_record)


# ---- the command ------------------------------------------------------------------------------
@dataclass
class Summary:
    """Totals of a run."""
    records: int = 0
    relabelled: int = 0
    dropped: int = 0
    skipped_files: int = 0
    failed: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        """``records N relabelled M dropped D seconds T records_per_s X``."""
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        return (f"records {self.records} relabelled {self.relabelled} dropped {self.dropped} "
                f"seconds {self.seconds:.1f} records_per_s {rate:.1f}")


def _progress(done: int, total: int, start: float) -> None:
    progress_line("relabel", "records", done, total, start)


def plan(data: list[str], out_dir: Path) -> list[tuple[Path, Path]]:
    """The (input, output) pairs of the record files and folders in `data`.  ValueError
    on a missing input, a file that is not whole records, two inputs of the same name
    or an output that would overwrite its input."""
    files = record_files(data)
    if not files:
        raise ValueError("no record files (*.psv, *.bin) in the paths given")
    seen: dict[str, Path] = {}
    jobs = []
    for src in files:
        if src.name in seen:
            raise ValueError(f"two input files named {src.name} ({seen[src.name]} and {src}): "
                             "their outputs would clash")
        seen[src.name] = src
        dst = out_dir / src.name
        if dst.exists() and dst.resolve() == src.resolve():
            raise ValueError(f"--out {out_dir} holds the input {src}: choose another folder")
        record_count(src)                   # ValueError unless whole records
        jobs.append((src, dst))
    return jobs


def _ray_jobs(todo: list[tuple[Path, Path]], config: Config,
              add: Callable[[FileResult], None]) -> list[tuple[str, np.ndarray]]:
    """Each file a Ray task: its records read here and sent (a Ray worker sees none of
    this machine's files); the relabelled ones come back to be written here whole."""
    jobs = []
    for src, _ in todo:
        try:
            jobs.append((src.name, read_record_file(src, config.limit)))
        except (OSError, ValueError) as exc:
            add(FileResult(src.name, error=str(exc)))
    return jobs


def relabel_all(teacher: Teacher, todo: list[tuple[Path, Path]], config: Config,
                workers: int, ray_address: str | None = None) -> Summary:
    """Relabel the (input, output) pairs: in this process with `teacher` (already
    started) for one worker, else on a pool of `workers` processes with a teacher each."""
    summary = Summary()
    start = time.perf_counter()
    total = 0
    for src, _ in todo:
        count = record_count(src)
        total += count if config.limit is None else min(count, config.limit)
    counter = multiprocessing.Value("q", 0)

    def add(result: FileResult) -> None:
        if result.error is not None:
            summary.failed.append(result)
            return
        summary.records += result.records
        summary.relabelled += result.relabelled
        summary.dropped += result.dropped

    from usi_engine.cluster.runner import TaskRunner
    workers = max(1, min(workers, len(todo)))
    shown = [0.0]

    def progress() -> None:
        _progress(counter.value, total, start)

    def tick() -> None:
        counter.value += 1
        now = time.perf_counter()
        if now - shown[0] > 0.5:
            shown[0] = now
            progress()

    destinations = {src.name: dst for src, dst in todo}
    tasks: list[Any]
    if ray_address is not None:
        teacher.close()                      # each Ray worker starts its own
        runner = TaskRunner(_init_ray_worker, (config,), ray_address=ray_address)
        task: Callable[[Any], Any] = _relabel_task
        tasks = _ray_jobs(todo, config, add)
    else:
        if workers == 1:
            runner = TaskRunner(_init_here, (teacher, config, counter, tick))
        else:
            teacher.close()                  # each worker starts its own
            runner = TaskRunner(_init_worker, (config, counter), processes=workers)
        task = _run_file
        tasks = [(str(src), str(dst)) for src, dst in todo]
    with runner:
        for done in runner.imap_unordered(task, tasks, on_wait=progress):
            if runner.on_ray:
                result, out = done
                if out is not None:
                    try:
                        write_records(destinations[result.name], out)
                    except OSError as exc:
                        result.error = f"cannot write {destinations[result.name]}: {exc}"
                add(result)
                counter.value += result.records
            else:
                add(done)
            progress()
    clear_line()
    summary.seconds = time.perf_counter() - start
    return summary
