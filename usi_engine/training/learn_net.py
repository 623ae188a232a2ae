"""Training of the king-piece network (`usi-engine learn-net`), in numpy.

The network adds a small non-linear term to the learned king-piece (KP) table:

    v = KP(position)  +  sum_i w_us[i] * x_us[i]^2 + sum_i w_them[i] * x_them[i]^2 + b

for the side to move, where x = clip(acc, 0, 1) and each king's accumulator
acc = b1 + sum of W1[f] over that king's KP features f (`usi_engine.eval.kp`), "us" the
side to move's king.  The accumulators change by a few rows per move, so the search
updates them as it updates the KP sums.  The first layer is trained with a factoriser
(as Stockfish's trainer does): every W1[king square, feature] is the sum of its own
weight and one shared by all king squares, so rarely seen king squares learn from the
others.  The loss is the KP learner's (`usi_engine.training.loss`): the cross-entropy
between sigmoid(v / scale) and lambda * sigmoid(score / scale) + (1 - lambda) * result;
the data come from `usi_engine.training.data` and the optimiser is
`usi_engine.training.optim.Adam`, as for `usi_engine.training.learn`.  The network is
written after each epoch whose validation loss is the best so far (it overfits a small
data set within a few epochs).

    >>> from usi_engine.training.learn_net import NetConfig, train_net   # doctest: +SKIP
    >>> train_net(["data/"], "kpnn.bin", NetConfig(epochs=6))    # doctest: +SKIP
"""
from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from usi_engine.eval import kp
from usi_engine.eval import weights as eval_weights
from usi_engine.training.data import (Dataset, batches, batches_in_order, load_data,
                                      starting_weights)
from usi_engine.training.loss import excess_cross_entropy
from usi_engine.training.optim import Adam

W = kp.WEIGHT_COUNT
F = kp.FEATURES_PER_BUCKET


@dataclasses.dataclass
class NetConfig:
    """Training settings (the command line's options)."""
    epochs: int = 6
    batch_size: int = 8192
    lr: float = 1e-3                # Adam step of the first layer (accumulator units)
    out_lr: float = 0.5             # Adam step of the output layer and KP table (cp)
    lambda_: float = 0.7
    scale: float = 600.0
    max_score: int = 3000
    val_fraction: float = 0.05
    seed: int = 1
    init: str = ""                  # KP table or network to start from ("": the shipped table)
    kp_reg: float = 1e-4            # L2 pull of the KP table towards its start
    hidden: int = kp.HIDDEN


class Net:
    """Float parameters; the padding feature W (and F) maps to a zero row."""

    def __init__(self, kp_cp: np.ndarray, hidden: int, rng: np.random.Generator) -> None:
        self.kp = np.append(np.asarray(kp_cp, dtype=np.float32), 0).astype(np.float32)
        self.ft = rng.normal(0.0, 0.04, (W + 1, hidden)).astype(np.float32)
        self.ft[W] = 0
        self.ftf = np.zeros((F + 1, hidden), dtype=np.float32)
        self.b1 = np.full(hidden, 0.3, dtype=np.float32)
        self.w2 = rng.normal(0.0, 2.0, 2 * hidden).astype(np.float32)
        self.b2 = np.zeros(1, dtype=np.float32)

    @classmethod
    def from_weights(cls, weights: eval_weights.NetWeights) -> "Net":
        """The float network that the engine's integer weights stand for (the
        factoriser's shared rows zero, so that its first layer is the file's)."""
        net = cls(eval_weights.dequantize(weights.kp), kp.HIDDEN, np.random.default_rng(0))
        net.ft[:W] = weights.first / kp.QA
        net.b1[:] = weights.first_bias / kp.QA
        net.w2[:] = weights.out / kp.QB
        net.b2[:] = weights.out_bias / kp.QB
        return net

    @property
    def hidden(self) -> int:
        return int(self.b1.size)

    def params(self) -> list[np.ndarray]:
        return [self.kp, self.ft, self.ftf, self.b1, self.w2, self.b2]

    def first_layer(self) -> np.ndarray:
        """W1 with the factoriser folded in: [W + 1, hidden]."""
        return fold_factoriser(self.ft, self.ftf)


def fold_factoriser(ft: np.ndarray, ftf: np.ndarray) -> np.ndarray:
    """A first layer [W + 1, hidden] with the factoriser's rows (shared by all king
    squares) added to each king square's own; the padding row W stays zero."""
    table = ft.copy()
    table[:W] += np.tile(ftf[:F], (kp.KING_BUCKETS, 1))
    table[W] = 0
    return table


def forward(net: Net, table: np.ndarray, features: np.ndarray, side: np.ndarray):
    """Scores for the side to move and what the backward pass needs."""
    acc = [table[features[:, v]].sum(axis=1) + net.b1 for v in (0, 1)]
    black = (side == 0)[:, None]
    us = np.where(black, acc[0], acc[1])
    them = np.where(black, acc[1], acc[0])
    cu, ct = np.clip(us, 0, 1), np.clip(them, 0, 1)
    h = net.w2.size // 2
    nn = (cu * cu) @ net.w2[:h] + (ct * ct) @ net.w2[h:] + net.b2[0]
    kpv = net.kp[features[:, 0]].sum(axis=1) - net.kp[features[:, 1]].sum(axis=1)
    v = np.where(side == 0, kpv, -kpv) + nn
    return v, (us, them, cu, ct)


def loss_and_grad(v: np.ndarray, part: Dataset, cfg: NetConfig) -> tuple[float, np.ndarray]:
    """Mean excess cross-entropy and d(loss)/d(v) times scale, per position (float32;
    see `usi_engine.training.loss.excess_cross_entropy`)."""
    loss, grad = excess_cross_entropy(v, part.score, part.result, cfg.lambda_, cfg.scale)
    return loss, grad.astype(np.float32)


def first_layer_gradient(features: np.ndarray, gacc: tuple[np.ndarray, np.ndarray],
                         rows: int) -> np.ndarray:
    """The first layer's gradient [rows, hidden] (float32): each position's accumulator
    gradient (gacc: black's view, white's; [n, hidden]) summed into the rows of that
    view's features, one bincount per unit."""
    width = features.shape[2]
    index = np.concatenate([features[:, 0].ravel(), features[:, 1].ravel()])
    out = np.empty((rows, gacc[0].shape[1]), dtype=np.float32)
    for k in range(out.shape[1]):
        weights = np.concatenate([np.repeat(gacc[0][:, k], width),
                                  np.repeat(gacc[1][:, k], width)])
        out[:, k] = np.bincount(index, weights=weights, minlength=rows)
    return out


def backward(net: Net, features: np.ndarray, side: np.ndarray, saved, g: np.ndarray
             ) -> list[np.ndarray]:
    """Gradients of the mean loss, in the order of `Net.params`."""
    us, them, cu, ct = saved
    g = g / len(g)
    h = net.w2.size // 2
    gw2 = np.concatenate([(cu * cu).T @ g, (ct * ct).T @ g])
    gb2 = np.array([g.sum()], dtype=np.float32)
    gus = g[:, None] * net.w2[:h] * 2 * cu * ((us > 0) & (us < 1))
    gthem = g[:, None] * net.w2[h:] * 2 * ct * ((them > 0) & (them < 1))
    black = (side == 0)[:, None]
    gacc = (np.where(black, gus, gthem), np.where(black, gthem, gus))
    gb1 = (gacc[0] + gacc[1]).sum(axis=0)
    width = features.shape[2]
    gft = first_layer_gradient(features, gacc, W + 1)
    gft[W] = 0
    gftf = np.zeros_like(net.ftf)
    gftf[:F] = gft[:W].reshape(kp.KING_BUCKETS, F, h).sum(axis=0)
    signed = np.where(side == 0, g, -g)
    gkp = (np.bincount(features[:, 0].ravel(), weights=np.repeat(signed, width), minlength=W + 1)
           - np.bincount(features[:, 1].ravel(), weights=np.repeat(signed, width),
                         minlength=W + 1)).astype(np.float32)
    gkp[W] = 0
    return [gkp, gft, gftf, gb1.astype(np.float32), gw2.astype(np.float32), gb2]


#: Adam's epsilon for the network (gradients of accumulator units).
ADAM_EPS = 1e-8


def new_optimizer(net: Any) -> Adam:
    """The learner's Adam for `net`'s parameters: bias correction on the step size,
    epsilon 1e-8."""
    return Adam(net.params(), eps=ADAM_EPS, correct="step")


def evaluate_loss(net: Any, data: Dataset, cfg: NetConfig, forward_fn: Callable | None = None,
                  features_of: Callable | None = None) -> float:
    """Mean excess cross-entropy of the float network over a data set (`forward_fn`:
    the network's forward pass, this module's by default; `features_of`: its features,
    the KP ones by default)."""
    table = net.first_layer()
    total = 0.0
    for features, part in batches_in_order(data, cfg.batch_size, features_of):
        v, _ = (forward_fn or forward)(net, table, features, part.side)
        total += loss_and_grad(v, part, cfg)[0] * len(part)
    return total / max(1, len(data))


def train_step(net: Net, opt: Adam, features: np.ndarray, part: Dataset, start_kp: np.ndarray,
               cfg: NetConfig, decay: float) -> float:
    """One Adam step on a mini-batch; returns its loss before the step."""
    table = net.first_layer()
    v, saved = forward(net, table, features, part.side)
    loss, g = loss_and_grad(v, part, cfg)
    grads = backward(net, features, part.side, saved, g)
    grads[0][:W] += cfg.kp_reg * (net.kp[:W] - start_kp)
    lr, out_lr = cfg.lr * decay, cfg.out_lr * decay
    opt.step(net.params(), grads, [out_lr, lr, lr, lr, out_lr, out_lr])
    net.kp[W] = 0
    net.ft[W] = 0
    net.ftf[F] = 0
    return loss


def export(net: Net) -> eval_weights.NetWeights:
    """The float network in the engine's integer format."""
    return eval_weights.quantize_net(net.kp[:W], net.first_layer()[:W], net.b1, net.w2,
                                     float(net.b2[0]))


def starting_point(init: str, hidden: int, rng: np.random.Generator, cls: Any,
                   file_type: type, silence: Callable[[Any], None]) -> tuple[Any, Any, str]:
    """The network training starts from, the one whose loss is the baseline, and what
    that is: a network file of `file_type` is taken as it is (to go on training it on
    new data: `cls.from_weights`); a KP table (or "hand") gets a random `cls` network on
    top, the table alone (a network that `silence` made output nothing) the baseline."""
    if init != "hand" and isinstance(weights := eval_weights.read_any(init), file_type):
        net = cls.from_weights(weights)
        if hidden != net.hidden:
            raise ValueError(f"{init}: a network of width {net.hidden}, not {hidden}")
        return net, net, "the network"
    start_kp = starting_weights(init).astype(np.float32)
    net = cls(start_kp, hidden, rng)
    kp_only = cls(start_kp, hidden, rng)
    silence(kp_only)
    return net, kp_only, "the KP table alone"


def starting_net(init: str, hidden: int, rng: np.random.Generator) -> tuple[Net, Net, str]:
    """`starting_point` for the square head (kpnn.bin files)."""
    def silence(net: Net) -> None:
        net.w2[:] = 0
    return starting_point(init, hidden, rng, Net, eval_weights.NetWeights, silence)


def run_learner(paths: Sequence[str | Path], out: str | Path, cfg: NetConfig,
                log: Callable[[str], None], starting: Callable, shape: str,
                new_opt: Callable, step: Callable, loss: Callable, write: Callable,
                features_of: Callable | None = None) -> dict:
    """What the network learners share: read the records `paths` (a training and a
    validation set), start from `starting(init, hidden, rng)` (the network, the baseline
    network and what that is), then epochs of shuffled mini-batches, each trained by
    `step(net, opt, features, batch, start_kp, cfg, decay)` with the step sizes decayed
    linearly to 10%, the validation loss `loss(net, val_set, cfg)` after each, and
    `write(out, net)` after each epoch whose validation loss is the best so far
    (`features_of`: the network's features of a batch, the KP ones by default; a
    network without a KP table gets None as start_kp).  Returns a summary (positions
    used, losses per epoch)."""
    t0 = time.perf_counter()
    loaded = load_data(paths, cfg.val_fraction, cfg.max_score)
    train_set, val_set = loaded.train, loaded.validation
    init = cfg.init or str(eval_weights.embedded_kp_path())
    rng = np.random.default_rng(cfg.seed)
    net, baseline_net, what = starting(init, cfg.hidden, rng)
    start_kp = net.kp[:W].copy() if hasattr(net, "kp") else None
    baseline = loss(baseline_net, val_set, cfg) if len(val_set) else float("nan")
    log(f"train {len(train_set)} positions ({loaded.train_files} files), validation "
        f"{len(val_set)} ({loaded.validation_files} files), {shape}, "
        f"read_s {time.perf_counter() - t0:.1f}")
    log(f"epoch 0 validation_loss {baseline:.6f} ({what} {init})")
    opt = new_opt(net)
    steps = math.ceil(len(train_set) / cfg.batch_size) * cfg.epochs
    history, done, best = [], 0, math.inf
    for epoch in range(1, cfg.epochs + 1):
        e0 = time.perf_counter()
        losses = []
        for features, part in batches(train_set, cfg.batch_size, rng, features_of):
            decay = 1.0 - 0.9 * done / max(1, steps)      # linear decay to 10%
            losses.append(step(net, opt, features, part, start_kp, cfg, decay))
            done += 1
        val = loss(net, val_set, cfg) if len(val_set) else float("nan")
        history.append({"epoch": epoch, "train_loss": float(np.mean(losses)),
                        "validation_loss": val})
        log(f"epoch {epoch} train_loss {np.mean(losses):.6f} validation_loss {val:.6f} "
            f"seconds {time.perf_counter() - e0:.1f}")
        if val > best:                                    # NaN (no validation) writes
            log(f"epoch {epoch} not written: validation loss above the best, {best:.6f}")
            continue
        best = val
        write(out, net)                                   # the best epoch so far is kept
        log(f"wrote {out} (epoch {epoch})")
    return {"train_positions": len(train_set), "validation_positions": len(val_set),
            "baseline_validation_loss": baseline, "epochs": history}


def train_net(paths: Sequence[str | Path], out: str | Path, cfg: NetConfig,
              log: Callable[[str], None] = print) -> dict:
    """Train from the record files/folders `paths`, write the weights to `out`, and
    return a summary (positions used, losses per epoch)."""
    return run_learner(paths, out, cfg, log, starting_net, f"hidden {cfg.hidden}",
                       new_optimizer, train_step, evaluate_loss,
                       lambda path, net: eval_weights.write_net(path, export(net)))
