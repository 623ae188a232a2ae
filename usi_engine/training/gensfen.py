"""Self-play training data, like YaneuraOu's ``gensfen``: ``usi-engine gensfen``.

The engine plays itself from varied openings and records, for every position of
every game, the position, its search score, the move played and the game's result,
as YaneuraOu's PackedSfenValue records (40 bytes each, see :mod:`usi_engine.core.packed`)
that cshogi, YaneuraOu's learner and our own trainer read.

The work is cut into independent batches of ``batch_positions`` records.  Batch k
is generated from its own random stream, seeded from (seed, k), with a fresh search
table for every game, so its file ``batch-<k:05d>.psv`` is the same bytes whichever
process, machine or worker count makes it.  Each batch file is written whole and
renamed into place, so a rerun of the same command resumes: the batches already
there are skipped.  ``--batches 10-19`` makes a subset, so that batches can be
shared out among machines.  The settings are kept in ``gensfen.json`` in the
output directory, and a rerun with other settings is refused.

A game: an opening from the openings file, then 0..random_plies random legal moves
(tried again while a depth-3 search scores the result beyond +-300 cp); then at
every ply a node- (or depth-) limited search labels the position with its score and
plays its best move.  The game ends with no legal move (a loss), a declaration win,
a repetition under the game rule, a score below -3000 cp for the side to move (a
loss; mate scores are played out instead) or, as a draw, after MAX_GAME_PLY plies.
"""
from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing
import os
import random
import signal
import time
from dataclasses import asdict, dataclass
from typing import Any
from pathlib import Path

import numpy as np

from usi_engine.core.packed import PSV_DTYPE, move_to_psv, pack
from usi_engine.core.position import Position
from usi_engine.core.referee import game_over
from usi_engine.notation.score import MATE_VALUE
from usi_engine.training.data import stored_cp, stored_mate, write_records
from usi_engine.console.progress import clear_line, progress_line

#: A game is a draw once it reaches this many plies (the SFEN move number passes it).
MAX_GAME_PLY = 320
#: The side to move has lost once its score falls below this (cp).
RESIGN_CP = -3000
#: An opening plus random plies is kept only if a depth-3 search scores it within this.
BALANCED_CP = 300
BALANCE_CHECK_DEPTH = 3
#: Tries at a balanced random start before taking the opening without random plies.
MAX_START_TRIES = 50
EVAL_KINDS = ("hand", "learned")
MAX_BATCHES = 10**6
MANIFEST = "gensfen.json"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Settings:
    """Everything that decides a batch's bytes (kept in the output's gensfen.json)."""
    seed: int
    nodes: int
    depth: int
    batch_positions: int
    random_plies: int
    openings: tuple[str, ...]
    eval_kind: str
    eval_file: str | None
    hash_mb: int


def batch_path(out_dir: Path, k: int) -> Path:
    """The file of batch k."""
    return out_dir / f"batch-{k:05d}.psv"


def batch_seed(seed: int, k: int) -> int:
    """The random seed of batch k: a hash of (seed, k), the same on every platform."""
    digest = hashlib.blake2b(f"gensfen:{seed}:{k}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def read_openings(path: str) -> tuple[str, ...]:
    """The openings of a file: one per line, ``startpos [moves ...]`` or an SFEN
    (optionally ``sfen <SFEN> [moves ...]``); '#' starts a comment.  ValueError naming
    the line on one that is not a legal position; OSError if unreadable."""
    openings = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            try:
                Position(text)
            except ValueError as exc:
                raise ValueError(f"{path} line {number}: {exc}") from None
            openings.append(text)
    if not openings:
        raise ValueError(f"{path}: no openings in it")
    return tuple(openings)


#: The opening set, shipped in the package (the repository's one copy of it).
OPENINGS_RESOURCE = "data/openings.txt"


def default_openings_path() -> str:
    """The opening set shipped in the package (usi_engine/data/openings.txt), the same
    in a source checkout and an installed package. OSError if the installation lacks
    it: gensfen never falls back to other openings, which would give other bytes."""
    from importlib import resources
    path = resources.files("usi_engine").joinpath(OPENINGS_RESOURCE)
    if not path.is_file():
        raise FileNotFoundError(f"the package's opening set usi_engine/{OPENINGS_RESOURCE} "
                                "is missing (a broken installation?): give --openings FILE")
    return str(path)


@functools.lru_cache(maxsize=4)
def network_for(kind: str, path: str | None):
    """The evaluation `kind` names ("hand": None, the hand-written one; "learned": a
    kp.Network of the weights in `path` or of the shipped ones), read once per process.
    ValueError with a one-line reason when that evaluation is not available."""
    if kind == "hand":
        if path is not None:
            raise ValueError("--eval-file goes with --eval learned, not with --eval hand")
        return None
    if kind == "learned":
        from usi_engine.eval.loader import load_network
        from usi_engine.eval.weights import WeightFileError
        try:
            return load_network(path or "")     # the file asked for, or an error
        except WeightFileError as exc:
            raise ValueError(f"--eval-file {path}: {exc}" if path
                             else f"the shipped weights: {exc}") from None
    raise ValueError(f"unknown evaluation {kind!r} (expected one of {', '.join(EVAL_KINDS)})")


# ---- one game ------------------------------------------------------------------------------
def _new_searcher(settings: Settings):
    """A searcher with a fresh table: each game starts from the same state, wherever
    it is played."""
    from usi_engine.search.searcher import Searcher
    searcher = Searcher()
    searcher.set_threads(1)
    searcher.set_hash(settings.hash_mb)
    searcher.set_evaluation(network_for(settings.eval_kind, settings.eval_file))
    return searcher


def _stored_score(result) -> int:
    """The search score as stored (`usi_engine.training.data`): cp clamped to
    +-MATE_VALUE, mate in k plies as +-(MATE_VALUE - |k|)."""
    if result.score_mate is not None:
        k = result.score_mate
        return stored_mate(k, 1 if k > 0 else -1)
    return stored_cp(result.score_cp)


def _start_position(settings: Settings, rng: random.Random) -> Position:
    """An opening from the set, then up to random_plies random legal moves, kept when a
    shallow search finds the result balanced."""
    for _ in range(MAX_START_TRIES):
        position = Position(rng.choice(settings.openings))
        for _ in range(rng.randint(0, settings.random_plies)):
            moves = position.legal_moves()
            if not moves:
                break
            position.push(rng.choice(moves))
        if not position.legal_moves():
            continue
        result = _new_searcher(settings).search(position, depth=BALANCE_CHECK_DEPTH)
        if result.score_mate is None and abs(result.score_cp) <= BALANCED_CP:
            return position
    return Position(rng.choice(settings.openings))


def _game_over(position: Position) -> int | None:
    """The result for the side to move if the game has ended here (1 win, -1 loss,
    0 draw), else None: the engine's referee, under the CSA 27-point rule."""
    outcome = game_over(position, "CSARule27", MAX_GAME_PLY)
    return None if outcome is None else outcome.result


def play_game(settings: Settings, rng: random.Random) -> list[tuple[bytes, int, int, int, int]]:
    """One self-play game: a record (packed position, score, psv move, game ply,
    result for the side to move) for each position searched, in order."""
    position = _start_position(settings, rng)
    searcher = _new_searcher(settings)
    plies: list[tuple[bytes, int, int, int, int]] = []    # (..., side to move)
    outcome = None                                         # for the side to move at the end
    while True:
        outcome = _game_over(position)
        if outcome is not None:
            break
        result = searcher.search(position, nodes=settings.nodes, depth=settings.depth,
                                 max_game_ply=MAX_GAME_PLY)
        if not result.best:
            raise RuntimeError(f"search returned no move in {position.sfen()}")
        score = _stored_score(result)
        plies.append((pack(position), score, move_to_psv(position, result.best),
                      min(position.ply, 0xFFFF), position.turn))
        if result.score_mate is None and result.score_cp < RESIGN_CP:
            outcome = -1
            break
        position.push(result.best)
    last_side = position.turn
    return [(packed, score, move, ply, outcome if side == last_side else -outcome)
            for packed, score, move, ply, side in plies]


def generate_batch(settings: Settings, k: int, counter=None) -> tuple[np.ndarray, int]:
    """Batch k's records (exactly batch_positions of them, the last game cut short)
    and the number of games played.  `counter` (a shared integer) is advanced by the
    positions of each game as it ends, for progress reports."""
    rng = random.Random(batch_seed(settings.seed, k))
    records = np.zeros(settings.batch_positions, PSV_DTYPE)
    filled = games = 0
    while filled < settings.batch_positions:
        game = play_game(settings, rng)[: settings.batch_positions - filled]
        games += 1
        for packed, score, move, ply, outcome in game:
            record = records[filled]
            record["sfen"] = np.frombuffer(packed, np.uint8)
            record["score"] = score
            record["move"] = move
            record["gamePly"] = ply
            record["game_result"] = outcome
            filled += 1
        if counter is not None and game:
            with counter.get_lock():
                counter.value += len(game)
    return records, games


def write_batch(out_dir: Path, k: int, records: np.ndarray) -> None:
    """Write batch k whole (see `usi_engine.training.data.write_records`)."""
    write_records(batch_path(out_dir, k), records)


# ---- worker processes -----------------------------------------------------------------------
_worker: dict = {}


def _init_worker(settings: Settings, out_dir: str, counter) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent handles Ctrl-C
    network_for(settings.eval_kind, settings.eval_file)
    _worker.update(settings=settings, out_dir=Path(out_dir), counter=counter)


def _init_ray_worker(settings: Settings) -> None:
    network_for(settings.eval_kind, settings.eval_file)
    _worker.update(settings=settings, out_dir=None, counter=None)


def _make_batch(k: int) -> tuple[int, np.ndarray, int]:
    """A Ray task: batch k's records, which the driver writes."""
    records, games = generate_batch(_worker["settings"], k, None)
    return k, records, games


def _run_batch(k: int) -> tuple[int, int, int]:
    settings = _worker["settings"]
    records, games = generate_batch(settings, k, _worker["counter"])
    write_batch(_worker["out_dir"], k, records)
    return k, len(records), games


# ---- the command --------------------------------------------------------------------------------
def parse_batches(text: str, total: int) -> list[int]:
    """``3``, ``10-19`` or a comma-separated list of those, as batch numbers below
    total; ValueError otherwise."""
    chosen: set[int] = set()
    for part in text.split(","):
        low, sep, high = part.strip().partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise ValueError(f"--batches: expected e.g. 3 or 10-19 or 0-4,7, got {text[:40]!r}")
        first, last = int(low), int(high) if sep else int(low)
        if first > last or last >= total:
            raise ValueError(f"--batches: {part.strip()} is not within 0-{total - 1}")
        chosen.update(range(first, last + 1))
    return sorted(chosen)


def check_manifest(out_dir: Path, settings: Settings) -> None:
    """Record the settings in out_dir, or check that they match those recorded there;
    ValueError naming the first difference."""
    path = out_dir / MANIFEST
    mine = {"format": FORMAT_VERSION, **asdict(settings)}
    mine["openings"] = hashlib.sha256("\n".join(settings.openings).encode()).hexdigest()
    if path.exists():
        try:
            theirs = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: unreadable ({exc})") from None
        for key, value in mine.items():
            if theirs.get(key) != value:
                raise ValueError(f"{out_dir} holds batches made with other settings "
                                 f"({key}: {theirs.get(key)!r}, now {value!r}); "
                                 "use another --out")
        return
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(mine, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _progress(done: int, total: int, start: float) -> None:
    progress_line("gensfen", "positions", done, total, start)


def run_batches(settings: Settings, out_dir: Path, todo: list[int], workers: int,
                ray_address: str | None = None) -> tuple[int, int, float]:
    """Make the batches of todo on `workers` processes, or as Ray tasks where
    ray_address is given (each written whole here as it comes back); (positions,
    games, seconds)."""
    from usi_engine.cluster.runner import TaskRunner
    start = time.perf_counter()
    total = len(todo) * settings.batch_positions
    positions = games = 0
    if not todo:
        return 0, 0, 0.0
    counter = multiprocessing.Value("q", 0)
    shown = [0]                     # positions in the batches written so far

    def progress() -> None:
        _progress(max(counter.value, shown[0]), total, start)

    if ray_address is not None:
        runner = TaskRunner(_init_ray_worker, (settings,), ray_address=ray_address)
        task: Any = _make_batch
    else:
        runner = TaskRunner(_init_worker, (settings, str(out_dir), counter),
                            processes=max(1, min(workers, len(todo))))
        task = _run_batch
    with runner:
        for k, made, g in runner.imap_unordered(task, todo, on_wait=progress):
            if runner.on_ray:
                write_batch(out_dir, k, made)
            positions += made if isinstance(made, int) else len(made)
            games += g
            shown[0] = positions
            progress()
    clear_line()
    return positions, games, time.perf_counter() - start

