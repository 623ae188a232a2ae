"""Training of the king-piece evaluation (`usi-engine learn`) from PackedSfenValue files.

Each record is a position with a search score (from the side to move) and the game's
result.  The model's score v of a position is the sum of its features' weights (see
`usi_engine.eval.kp`) in centipawns; it is fitted, as in Texel tuning and YaneuraOu's
learner, by the cross-entropy between the win probability sigmoid(v / scale) and the
target

    lambda * sigmoid(score / scale) + (1 - lambda) * (result + 1) / 2

with Adam over mini-batches, plus an L2 pull towards the starting weights (the
hand-written evaluation by default), which keeps rarely seen features near sensible
values.  Records whose best move captures (the static score says little there) or whose
score is beyond `max_score` (decided games, mates) are left out.  A slice of the files
is held out for validation; its loss is printed each epoch next to that of the starting
weights.

    >>> from usi_engine.training.learn import TrainConfig, train   # doctest: +SKIP
    >>> train(["data/"], "kp.bin", TrainConfig(epochs=4))  # doctest: +SKIP
"""
from __future__ import annotations

import dataclasses
import math
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from usi_engine.eval import weights as eval_weights

from usi_engine.eval import kp

PSV_RECORD_BYTES = 40
#: PackedSfenValue move: to-square in bits 0-6, from-square (or dropped type) in 7-13,
#: this flag for a drop.
PSV_DROP_FLAG = 1 << 14


@dataclasses.dataclass
class TrainConfig:
    """Training settings (the command line's options)."""
    epochs: int = 8
    batch_size: int = 16384
    lr: float = 1.0                 # Adam step size, in centipawns
    lambda_: float = 0.7            # weight of the search score against the game result
    scale: float = 600.0            # centipawns of score per unit of log-odds
    reg: float = 1e-6               # L2 pull towards the starting weights
    max_score: int = 3000
    val_fraction: float = 0.05
    seed: int = 1
    init: str = "hand"              # "hand" or a weight file to continue from


@dataclasses.dataclass
class Dataset:
    """Decoded positions and their labels (side-to-move view)."""
    board: np.ndarray      # uint8 [n, 81]
    hands: np.ndarray      # uint8 [n, 2, 8]
    side: np.ndarray       # uint8 [n]
    score: np.ndarray      # float64 [n], centipawns
    result: np.ndarray     # float64 [n], 1 win, 0 loss, 0.5 draw

    def __len__(self) -> int:
        return len(self.score)

    def subset(self, index: np.ndarray) -> "Dataset":
        return Dataset(self.board[index], self.hands[index], self.side[index],
                       self.score[index], self.result[index])


def psv_files(paths: Sequence[str | Path]) -> list[Path]:
    """The record files named, and the *.psv/*.bin files in the folders named, sorted."""
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            out.extend(sorted(p for p in path.iterdir() if p.suffix in (".psv", ".bin")))
        elif path.is_file():
            out.append(path)
        else:
            raise ValueError(f"no such file or folder: {path}")
    return out


def read_file(path: Path, limit: int | None = None) -> np.ndarray:
    """The records of one file (the first `limit` of them); ValueError if it is not a
    whole number of 40-byte records."""
    from usi_engine.core.packed import PSV_DTYPE
    size = path.stat().st_size
    if size % PSV_RECORD_BYTES:
        raise ValueError(f"{path}: {size} bytes is not a whole number of 40-byte records")
    count = size // PSV_RECORD_BYTES
    return np.fromfile(path, dtype=PSV_DTYPE, count=count if limit is None else min(limit, count))


def read_records(files: Sequence[Path]) -> np.ndarray:
    """All records of the files, as a PSV structured array."""
    from usi_engine.core.packed import PSV_DTYPE
    parts = [read_file(f) for f in files]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=PSV_DTYPE)


def captures(records: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Mask of the records whose stored best move captures (board: their decoded
    boards): a board move whose to-square holds a piece."""
    move = records["move"].astype(np.int64)
    to = move & 0x7F
    return ((move & PSV_DROP_FLAG) == 0) & (board[np.arange(len(records)), to] != 0)


def decode(records: np.ndarray, max_score: int) -> Dataset:
    """The usable records (quiet best move, |score| <= max_score) as arrays."""
    from usi_engine.core.packed import decode_records
    board, hands, side = decode_records(records)
    score = records["score"].astype(np.float64)
    keep = ~captures(records, board) & (np.abs(score) <= max_score) & (records["move"] != 0)
    result = (records["game_result"].astype(np.float64) + 1.0) / 2.0
    return Dataset(board[keep], hands[keep], side[keep], score[keep], result[keep])


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


class Model:
    """The KP weights in centipawns as one float vector (plus a padding slot of 0)."""

    def __init__(self, weights_cp: np.ndarray) -> None:
        self.w = np.append(np.asarray(weights_cp, dtype=np.float64), 0.0)

    def predict(self, features: np.ndarray, side: np.ndarray) -> np.ndarray:
        """Score for the side to move of each position ([n, 2, MAX_ACTIVE] features)."""
        black = self.w[features[:, 0]].sum(axis=1) - self.w[features[:, 1]].sum(axis=1)
        return np.where(side == 0, black, -black)

    def weights(self) -> np.ndarray:
        return self.w[:-1]


def loss_terms(model: Model, features: np.ndarray, data: Dataset, cfg: TrainConfig
               ) -> tuple[float, np.ndarray]:
    """Mean cross-entropy above its minimum (the target's own entropy) and the
    gradient of the loss with respect to each position's score, times scale."""
    v = model.predict(features, data.side)
    target = cfg.lambda_ * _sigmoid(data.score / cfg.scale) + (1 - cfg.lambda_) * data.result
    p = np.clip(_sigmoid(v / cfg.scale), 1e-12, 1 - 1e-12)
    t = np.clip(target, 1e-12, 1 - 1e-12)
    excess = t * np.log(t / p) + (1 - t) * np.log((1 - t) / (1 - p))
    # d(loss)/d(v) is (p - target) / scale; the 1 / scale is left out (Adam does not
    # care about a constant factor, and gradients near 1 keep clear of its epsilon)
    return float(excess.mean()), p - target


class Adam:
    """Adam over a dense weight vector; the step size is given at each step (it decays)."""

    def __init__(self, size: int) -> None:
        self.m = np.zeros(size)
        self.v = np.zeros(size)
        self.t = 0

    def step(self, w: np.ndarray, grad: np.ndarray, lr: float) -> None:
        self.t += 1
        self.m *= 0.9
        self.m += 0.1 * grad
        self.v *= 0.999
        self.v += 0.001 * grad * grad
        m_hat = self.m / (1 - 0.9 ** self.t)
        v_hat = self.v / (1 - 0.999 ** self.t)
        w -= lr * m_hat / (np.sqrt(v_hat) + 1e-12)


def _batches(data: Dataset, batch_size: int, rng: np.random.Generator
             ) -> Iterator[tuple[np.ndarray, Dataset]]:
    """Shuffled mini-batches with their features, computed one batch ahead in a thread
    (kp.features runs without the GIL, beside numpy's work on the previous batch)."""
    order = rng.permutation(len(data))
    chunks = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]

    def prepare(index: np.ndarray) -> tuple[np.ndarray, Dataset]:
        part = data.subset(np.sort(index))
        return kp.features(part.board, part.hands, part.side), part

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(prepare, chunks[0]) if chunks else None
        for k in range(len(chunks)):
            assert pending is not None
            ready = pending.result()
            pending = pool.submit(prepare, chunks[k + 1]) if k + 1 < len(chunks) else None
            yield ready


def evaluate_loss(model: Model, data: Dataset, cfg: TrainConfig) -> float:
    """Mean excess cross-entropy over a data set."""
    total = 0.0
    for start in range(0, len(data), cfg.batch_size):
        part = data.subset(np.arange(start, min(start + cfg.batch_size, len(data))))
        loss, _ = loss_terms(model, kp.features(part.board, part.hands, part.side), part, cfg)
        total += loss * len(part)
    return total / max(1, len(data))


def train_step(model: Model, optimizer: Adam, features: np.ndarray, part: Dataset,
               start: np.ndarray, cfg: TrainConfig, lr: float) -> float:
    """One Adam step on a mini-batch; returns its loss before the step."""
    loss, g = loss_terms(model, features, part, cfg)
    sign = np.where(part.side == 0, 1.0, -1.0) * g
    width = features.shape[2]
    grad = np.bincount(features[:, 0].ravel(), weights=np.repeat(sign, width),
                       minlength=model.w.size)
    grad -= np.bincount(features[:, 1].ravel(), weights=np.repeat(sign, width),
                        minlength=model.w.size)
    grad /= len(part)
    grad[:-1] += cfg.reg * (model.w[:-1] - start)
    grad[-1] = 0.0
    optimizer.step(model.w, grad, lr)
    model.w[-1] = 0.0
    return loss


def starting_weights(init: str) -> np.ndarray:
    """Centipawn weights to start from: the hand-written evaluation or a file."""
    if init == "hand":
        return eval_weights.hand_projection()
    return eval_weights.dequantize(eval_weights.read_weights(init))


def split_files(files: Sequence[Path], val_fraction: float) -> tuple[list[Path], list[Path]]:
    """Whole files are held out for validation (the last ones: a file is a batch of
    whole games, so no game has positions on both sides); with one file, none."""
    if len(files) < 2 or val_fraction <= 0:
        return list(files), []
    n_val = min(len(files) - 1, max(1, int(round(len(files) * val_fraction))))
    return list(files[:-n_val]), list(files[-n_val:])


def load_data(paths: Sequence[str | Path], val_fraction: float, max_score: int
              ) -> tuple[Dataset, Dataset, int, int, int]:
    """The training and validation sets of the record files/folders `paths` (whole
    files held out), with the number of training records and of each side's files."""
    files = psv_files(paths)
    if not files:
        raise ValueError("no record files found")
    train_files, val_files = split_files(files, val_fraction)
    train_records = read_records(train_files)
    train_set = decode(train_records, max_score)
    val_set = decode(read_records(val_files), max_score)
    if len(train_set) < 1:
        raise ValueError(f"no usable positions in {len(train_records)} records")
    return train_set, val_set, len(train_records), len(train_files), len(val_files)


def train(paths: Sequence[str | Path], out: str | Path, cfg: TrainConfig,
          log: Callable[[str], None] = print) -> dict:
    """Train from the record files/folders `paths`, write the weights to `out`, and
    return a summary (positions used, losses per epoch)."""
    t0 = time.perf_counter()
    train_set, val_set, n_records, n_train_files, n_val_files = load_data(
        paths, cfg.val_fraction, cfg.max_score)
    start = starting_weights(cfg.init)
    model = Model(start)
    baseline = evaluate_loss(model, val_set, cfg) if len(val_set) else float("nan")
    log(f"train {len(train_set)} positions of {n_records} records "
        f"({n_train_files} files), validation {len(val_set)} ({n_val_files} files), "
        f"read_s {time.perf_counter() - t0:.1f}")
    log(f"epoch 0 validation_loss {baseline:.6f} (starting weights: {cfg.init})")
    optimizer = Adam(model.w.size)
    rng = np.random.default_rng(cfg.seed)
    steps_per_epoch = math.ceil(len(train_set) / cfg.batch_size)
    total_steps = steps_per_epoch * cfg.epochs
    history = []
    step = 0
    for epoch in range(1, cfg.epochs + 1):
        e0 = time.perf_counter()
        losses = []
        for features, part in _batches(train_set, cfg.batch_size, rng):
            lr = cfg.lr * (1.0 - 0.9 * step / max(1, total_steps))   # linear decay to 10%
            losses.append(train_step(model, optimizer, features, part, start, cfg, lr))
            step += 1
        val = evaluate_loss(model, val_set, cfg) if len(val_set) else float("nan")
        history.append({"epoch": epoch, "train_loss": float(np.mean(losses)),
                        "validation_loss": val})
        log(f"epoch {epoch} train_loss {np.mean(losses):.6f} validation_loss {val:.6f} "
            f"seconds {time.perf_counter() - e0:.1f}")
    eval_weights.write_weights(out, eval_weights.quantize(model.weights()))
    log(f"wrote {out}")
    return {"train_positions": len(train_set), "validation_positions": len(val_set),
            "baseline_validation_loss": baseline,
            "epochs": history}


def main_learn(args) -> int:
    """The `usi-engine learn` command (argparse namespace from __main__)."""
    cfg = TrainConfig(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                      lambda_=args.lambda_, scale=args.scale, reg=args.reg,
                      max_score=args.max_score, val_fraction=args.val_fraction,
                      seed=args.seed, init=args.init)
    train(args.data, args.out, cfg, log=lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run: usi-engine learn --help")
