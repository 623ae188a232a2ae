"""Training data I/O: PackedSfenValue record files, decoded to arrays, split and batched.

A record file (``*.psv`` or ``*.bin``) is a whole number of YaneuraOu PackedSfenValue
records, 40 bytes each (:data:`usi_engine.core.packed.PSV_DTYPE`: a 32-byte packed
position, its search score for the side to move, the best move, the game ply and the
game's result for the side to move).  ``usi-engine gensfen`` writes them,
``usi-engine relabel`` rewrites their scores, ``usi-engine learn`` and ``learn-net``
train on them; every one of those reads and writes them through this module.

    >>> from usi_engine.training import data                          # doctest: +SKIP
    >>> files = data.record_files(["runs/gensfen/"])                  # doctest: +SKIP
    >>> records = data.read_records(files)                            # doctest: +SKIP
    >>> positions = data.decode(records, max_score=3000)              # doctest: +SKIP
    >>> for features, batch in data.batches(positions, 4096, np.random.default_rng(1)):
    ...     ...                                                       # doctest: +SKIP

Stored scores (:data:`MATE_VALUE`, :func:`stored_cp`, :func:`stored_mate`) are int16
centipawns clamped to +-32000, a mate in N plies as +-(32000 - N).
"""
from __future__ import annotations

import dataclasses
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from usi_engine.core.packed import PSV_DTYPE, decode_records, unpack
from usi_engine.eval import kp
from usi_engine.eval import weights as eval_weights
from usi_engine.notation.score import MATE_VALUE

#: Bytes of one PackedSfenValue record (PSV_DTYPE.itemsize).
PSV_RECORD_BYTES = 40
#: PackedSfenValue move: to-square in bits 0-6, from-square (or dropped type) in 7-13,
#: this flag for a drop.
PSV_DROP_FLAG = 1 << 14
#: The suffixes of the record files found in a folder.
RECORD_SUFFIXES = (".psv", ".bin")
#: Stored scores: centipawns clamped to MATE_VALUE, a mate in N plies as +-(MATE_VALUE - N).


# ---- stored scores --------------------------------------------------------------------------
def stored_cp(cp: float) -> int:
    """A centipawn score as stored: rounded and clamped to +-MATE_VALUE.

    >>> stored_cp(123.4), stored_cp(-50000)
    (123, -32000)
    """
    return max(-MATE_VALUE, min(MATE_VALUE, round(cp)))


def stored_mate(plies: int, sign: int) -> int:
    """A mate score as stored: `sign` (+1: the side to move mates, -1: it is mated) times
    MATE_VALUE less the mate's length in plies (0 when unknown).

    >>> stored_mate(3, 1), stored_mate(-4, -1), stored_mate(0, -1)
    (31997, -31996, -32000)
    """
    return sign * (MATE_VALUE - min(abs(plies), MATE_VALUE))


# ---- files ------------------------------------------------------------------------------------
def record_files(paths: Sequence[str | Path]) -> list[Path]:
    """The record files named in `paths`, and the ``*.psv`` / ``*.bin`` files of the
    folders named (each folder's sorted by name), in the order given.  ValueError on a
    path that does not exist."""
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            out.extend(sorted(p for p in path.iterdir() if p.suffix in RECORD_SUFFIXES))
        elif path.is_file():
            out.append(path)
        else:
            raise ValueError(f"no such file or folder: {path}")
    return out


def record_count(path: Path) -> int:
    """The number of records in file `path`; ValueError if its size is not a whole
    number of 40-byte records, OSError if it cannot be read."""
    size = path.stat().st_size
    if size % PSV_RECORD_BYTES:
        raise ValueError(f"{path}: {size} bytes is not a whole number of 40-byte records")
    return size // PSV_RECORD_BYTES


def read_record_file(path: Path, limit: int | None = None) -> np.ndarray:
    """The records of one file (the first `limit` of them) as a PSV_DTYPE array;
    ValueError if the file is not a whole number of 40-byte records."""
    count = record_count(path)
    return np.fromfile(path, dtype=PSV_DTYPE,
                       count=count if limit is None else min(limit, count))


def read_records(files: Sequence[Path]) -> np.ndarray:
    """All records of the files, in order, as one PSV_DTYPE array (empty for none)."""
    parts = [read_record_file(f) for f in files]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=PSV_DTYPE)


def write_records(path: Path, records: np.ndarray) -> None:
    """Write record file `path` whole: to ``<path>.tmp`` first (flushed to disk), then
    renamed into place, so that a file of that name is always complete and a rerun that
    skips the files already there resumes an interrupted one."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(records.tobytes())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def record_sfen(records: np.ndarray, index: int) -> str:
    """The SFEN of record `index` (its move number the record's game ply, at least 1)."""
    return unpack(records["sfen"][index].tobytes(), max(1, int(records["gamePly"][index])))


# ---- selecting and decoding ---------------------------------------------------------------
def captures(records: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Mask of the records whose stored best move captures (board: their decoded
    boards, [n, 81]): a board move whose to-square holds a piece."""
    move = records["move"].astype(np.int64)
    to = move & 0x7F
    return ((move & PSV_DROP_FLAG) == 0) & (board[np.arange(len(records)), to] != 0)


def quiet(records: np.ndarray, board: np.ndarray, max_score: int) -> np.ndarray:
    """Mask of the records whose stored move does not capture and whose stored
    |score| <= max_score (the positions whose static score means something)."""
    return ~captures(records, board) & (np.abs(records["score"].astype(np.int64)) <= max_score)


@dataclasses.dataclass
class Dataset:
    """Decoded positions and their labels (side-to-move view), one row a position."""
    board: np.ndarray      # uint8 [n, 81]
    hands: np.ndarray      # uint8 [n, 2, 8]
    side: np.ndarray       # uint8 [n]
    score: np.ndarray      # float64 [n], centipawns
    result: np.ndarray     # float64 [n], 1 win, 0 loss, 0.5 draw

    def __len__(self) -> int:
        return len(self.score)

    def subset(self, index: np.ndarray) -> "Dataset":
        """The rows `index` (an index array or mask), as a new Dataset."""
        return Dataset(self.board[index], self.hands[index], self.side[index],
                       self.score[index], self.result[index])


def decode(records: np.ndarray, max_score: int) -> Dataset:
    """The usable records (a quiet best move, |score| <= max_score) as arrays."""
    board, hands, side = decode_records(records)
    score = records["score"].astype(np.float64)
    keep = ~captures(records, board) & (np.abs(score) <= max_score) & (records["move"] != 0)
    result = (records["game_result"].astype(np.float64) + 1.0) / 2.0
    return Dataset(board[keep], hands[keep], side[keep], score[keep], result[keep])


# ---- training and validation sets --------------------------------------------------------
def split_files(files: Sequence[Path], val_fraction: float) -> tuple[list[Path], list[Path]]:
    """(training files, validation files): whole files are held out for validation, the
    last ones (a file is a batch of whole games, so no game has positions on both
    sides), at least one and `val_fraction` of them rounded; with one file, none.

    >>> [p.name for p in split_files([Path(f"{k}.psv") for k in range(4)], 0.05)[1]]
    ['3.psv']
    """
    if len(files) < 2 or val_fraction <= 0:
        return list(files), []
    n_val = min(len(files) - 1, max(1, int(round(len(files) * val_fraction))))
    return list(files[:-n_val]), list(files[-n_val:])


@dataclasses.dataclass
class TrainingData:
    """The decoded training and validation sets of some record files."""
    train: Dataset
    validation: Dataset
    train_records: int        # records read for training (before decode's selection)
    train_files: int
    validation_files: int


def load_data(paths: Sequence[str | Path], val_fraction: float, max_score: int
              ) -> TrainingData:
    """The training and validation sets of the record files and folders `paths` (see
    `record_files`, `split_files`, `decode`).  ValueError when there are no record
    files or no usable training position."""
    files = record_files(paths)
    if not files:
        raise ValueError("no record files found")
    train_files, val_files = split_files(files, val_fraction)
    train_records = read_records(train_files)
    train_set = decode(train_records, max_score)
    val_set = decode(read_records(val_files), max_score)
    if len(train_set) < 1:
        raise ValueError(f"no usable positions in {len(train_records)} records")
    return TrainingData(train_set, val_set, len(train_records), len(train_files),
                        len(val_files))


# ---- batches ----------------------------------------------------------------------------------
def features(part: Dataset) -> np.ndarray:
    """The KP features of the positions, [n, 2, kp.MAX_ACTIVE] (see `kp.features`)."""
    return kp.features(part.board, part.hands, part.side)


def batches(data: Dataset, batch_size: int, rng: np.random.Generator,
            features_of: Callable[[Dataset], np.ndarray] | None = None
            ) -> Iterator[tuple[np.ndarray, Dataset]]:
    """(features, batch) of shuffled mini-batches of `data` (one permutation drawn from
    `rng`; each batch's rows in their order in `data`), the features computed one batch
    ahead in a thread (kp.features runs without the GIL, beside numpy's work on the
    previous batch); `features_of`: the network's features, the KP ones by default."""
    order = rng.permutation(len(data))
    features_of = features_of or features
    chunks = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]

    def prepare(index: np.ndarray) -> tuple[np.ndarray, Dataset]:
        part = data.subset(np.sort(index))
        return features_of(part), part

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(prepare, chunks[0]) if chunks else None
        for k in range(len(chunks)):
            assert pending is not None
            ready = pending.result()
            pending = pool.submit(prepare, chunks[k + 1]) if k + 1 < len(chunks) else None
            yield ready


def batches_in_order(data: Dataset, batch_size: int,
                     features_of: Callable[[Dataset], np.ndarray] | None = None
                     ) -> Iterator[tuple[np.ndarray, Dataset]]:
    """(features, batch) of consecutive slices of `data` (for evaluating a loss)."""
    for start in range(0, len(data), batch_size):
        part = data.subset(np.arange(start, min(start + batch_size, len(data))))
        yield (features_of or features)(part), part


# ---- weights to start from ----------------------------------------------------------------
def starting_weights(init: str) -> np.ndarray:
    """Centipawn KP weights to start training from: ``"hand"``, the hand-written
    evaluation's projection; otherwise a KP weight file's, dequantized."""
    if init == "hand":
        return eval_weights.hand_projection()
    return eval_weights.dequantize(eval_weights.read_weights(init))
