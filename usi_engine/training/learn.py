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
weights.  The records are read, decoded, split and batched by
`usi_engine.training.data`; the loss is `usi_engine.training.loss`'s and the optimiser
`usi_engine.training.optim.Adam`, both shared with `usi_engine.training.learn_net`.

    >>> from usi_engine.training.learn import TrainConfig, train   # doctest: +SKIP
    >>> train(["data/"], "kp.bin", TrainConfig(epochs=4))  # doctest: +SKIP
"""
from __future__ import annotations

import dataclasses
import math
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from usi_engine.eval import weights as eval_weights
from usi_engine.training.data import (Dataset, batches, batches_in_order, load_data,
                                      starting_weights)
from usi_engine.training.loss import excess_cross_entropy
from usi_engine.training.optim import Adam

#: Adam's epsilon for the KP table (centipawn-sized gradients).
ADAM_EPS = 1e-12


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
    gradient of the loss with respect to each position's score, times scale (see
    `usi_engine.training.loss.excess_cross_entropy`)."""
    v = model.predict(features, data.side)
    return excess_cross_entropy(v, data.score, data.result, cfg.lambda_, cfg.scale)


def new_optimizer(model: Model) -> Adam:
    """The learner's Adam for `model`: bias correction on the moment, epsilon 1e-12."""
    return Adam([model.w], eps=ADAM_EPS, correct="moment")


def evaluate_loss(model: Model, data: Dataset, cfg: TrainConfig) -> float:
    """Mean excess cross-entropy over a data set."""
    total = 0.0
    for features, part in batches_in_order(data, cfg.batch_size):
        loss, _ = loss_terms(model, features, part, cfg)
        total += loss * len(part)
    return total / max(1, len(data))


def train_step(model: Model, optimizer: Adam, features: np.ndarray, part: Dataset,
               start: np.ndarray, cfg: TrainConfig, lr: float) -> float:
    """One Adam step on a mini-batch; returns its loss before the step."""
    loss, g = loss_terms(model, features, part, cfg)
    sign = np.where(part.side == 0, 1.0, -1.0) * g
    width = features.shape[2]
    grad: np.ndarray = np.bincount(features[:, 0].ravel(), weights=np.repeat(sign, width),
                                   minlength=model.w.size).astype(np.float64, copy=False)
    grad -= np.bincount(features[:, 1].ravel(), weights=np.repeat(sign, width),
                        minlength=model.w.size)
    grad /= len(part)
    grad[:-1] += cfg.reg * (model.w[:-1] - start)
    grad[-1] = 0.0
    optimizer.step([model.w], [grad], [lr])
    model.w[-1] = 0.0
    return loss


def train(paths: Sequence[str | Path], out: str | Path, cfg: TrainConfig,
          log: Callable[[str], None] = print) -> dict:
    """Train from the record files/folders `paths`, write the weights to `out`, and
    return a summary (positions used, losses per epoch)."""
    t0 = time.perf_counter()
    loaded = load_data(paths, cfg.val_fraction, cfg.max_score)
    train_set, val_set = loaded.train, loaded.validation
    start = starting_weights(cfg.init)
    model = Model(start)
    baseline = evaluate_loss(model, val_set, cfg) if len(val_set) else float("nan")
    log(f"train {len(train_set)} positions of {loaded.train_records} records "
        f"({loaded.train_files} files), validation {len(val_set)} "
        f"({loaded.validation_files} files), "
        f"read_s {time.perf_counter() - t0:.1f}")
    log(f"epoch 0 validation_loss {baseline:.6f} (starting weights: {cfg.init})")
    optimizer = new_optimizer(model)
    rng = np.random.default_rng(cfg.seed)
    steps_per_epoch = math.ceil(len(train_set) / cfg.batch_size)
    total_steps = steps_per_epoch * cfg.epochs
    history = []
    step = 0
    for epoch in range(1, cfg.epochs + 1):
        e0 = time.perf_counter()
        losses = []
        for features, part in batches(train_set, cfg.batch_size, rng):
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit("run: usi-engine learn --help")
