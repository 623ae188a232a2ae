"""Training of the layered (NNUE-style) network (`usi-engine learn-net --head layers`),
in numpy.

For the side to move, with crelu(x) = clip(x, 0, 1):

    v   = KP(position) + w3 . h2 + c3                       (centipawns)
    h2  = crelu(W2 h1 + c2),   h1 = crelu(W1 x + c1)        (32 units each)
    x   = [crelu(acc_us), crelu(acc_them)]
    acc = b1 + sum of FT[f] over that king's KP features f (`usi_engine.eval.kp`)

The first layer FT is trained with a factoriser as in `usi_engine.training.learn_net`
(each row is its own weight plus one shared by all king squares). The loss, the data
and the optimiser are learn_net's. After each step the layers' weights are clipped to
what the engine's integers hold: int8 layers of 1/64 (|W| <= 127/64), int16 output
weights of 1/16 cp (|w3| <= 2047 cp per unit); `export` clips the first layer's rows so
that 81 of them cannot leave int16. The network is written
(`eval.weights.write_layered`) after each epoch whose validation loss is the best so
far.

Costs in numpy grow with the width: the first layer's gradient is one bincount per
unit, and Adam moves every row of it each step.

    >>> from usi_engine.training.learn_layers import train_layers     # doctest: +SKIP
    >>> from usi_engine.training.learn_net import NetConfig           # doctest: +SKIP
    >>> train_layers(["data/"], "nn.bin", NetConfig(hidden=128))       # doctest: +SKIP
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from usi_engine.eval import kp
from usi_engine.eval import weights as eval_weights
from usi_engine.training import learn_net
from usi_engine.training.data import Dataset
from usi_engine.training.learn_net import (NetConfig, first_layer_gradient, loss_and_grad,
                                           run_learner, starting_point)
from usi_engine.training.optim import Adam

W = kp.WEIGHT_COUNT
F = kp.FEATURES_PER_BUCKET
L1, L2 = kp.LAYER1, kp.LAYER2
#: What the engine's integers hold (see the module docstring).
LAYER_LIMIT = 127 / 64
OUT_LIMIT = 32767 / 16
#: Samples gathered at a time in the forward pass (bounds its memory: 80 rows each).
GATHER_CHUNK = 1024


def crelu(x: np.ndarray) -> np.ndarray:
    return np.clip(x, 0.0, 1.0)


def slope(x: np.ndarray) -> np.ndarray:
    """crelu's derivative (0 or 1, as float32)."""
    return ((x > 0) & (x < 1)).astype(np.float32)


class LayersNet:
    """Float parameters of the layered network; the padding feature W (and F) maps to a
    zero row."""

    def __init__(self, kp_cp: np.ndarray, hidden: int, rng: np.random.Generator) -> None:
        if hidden % 32 or not 0 < hidden <= kp.MAX_HIDDEN:
            raise ValueError(f"hidden width {hidden}: a multiple of 32 up to {kp.MAX_HIDDEN}")
        self.kp = np.append(np.asarray(kp_cp, dtype=np.float32), 0).astype(np.float32)
        self.ft = rng.normal(0.0, 0.02, (W + 1, hidden)).astype(np.float32)
        self.ft[W] = 0
        self.ftf = np.zeros((F + 1, hidden), dtype=np.float32)
        self.b1 = np.full(hidden, 0.5, dtype=np.float32)
        self.w1 = rng.normal(0.0, 0.6 / math.sqrt(2 * hidden), (L1, 2 * hidden)).astype(np.float32)
        self.c1 = np.full(L1, 0.5, dtype=np.float32)
        self.w2 = rng.normal(0.0, 0.6 / math.sqrt(L1), (L2, L1)).astype(np.float32)
        self.c2 = np.full(L2, 0.5, dtype=np.float32)
        self.w3 = rng.normal(0.0, 10.0, L2).astype(np.float32)
        self.c3 = np.zeros(1, dtype=np.float32)

    @property
    def hidden(self) -> int:
        return int(self.b1.size)

    @classmethod
    def from_weights(cls, weights: eval_weights.LayeredWeights) -> "LayersNet":
        """The float network the engine's integers stand for (the factoriser's shared
        rows zero)."""
        net = cls(eval_weights.dequantize(weights.kp), weights.hidden, np.random.default_rng(0))
        net.ft[:W] = weights.first / kp.QA
        net.b1[:] = weights.first_bias / kp.QA
        net.w1[:] = weights.l1_w.reshape(L1, -1) / 64
        net.c1[:] = weights.l1_b / (kp.QA * 64)
        net.w2[:] = weights.l2_w.reshape(L2, L1) / 64
        net.c2[:] = weights.l2_b / (kp.QA * 64)
        net.w3[:] = weights.l3_w / 16
        net.c3[:] = weights.l3_b / kp.OUT_DIV
        return net

    def params(self) -> list[np.ndarray]:
        return [self.kp, self.ft, self.ftf, self.b1, self.w1, self.c1, self.w2, self.c2,
                self.w3, self.c3]

    def first_layer(self) -> np.ndarray:
        """FT with the factoriser folded in: [W + 1, hidden]."""
        return learn_net.fold_factoriser(self.ft, self.ftf)

    def clip_to_integers(self) -> None:
        """Keep every weight where the engine's integers can hold it."""
        np.clip(self.w1, -LAYER_LIMIT, LAYER_LIMIT, out=self.w1)
        np.clip(self.w2, -LAYER_LIMIT, LAYER_LIMIT, out=self.w2)
        np.clip(self.w3, -OUT_LIMIT, OUT_LIMIT, out=self.w3)
        self.kp[W] = 0
        self.ft[W] = 0
        self.ftf[F] = 0


def accumulators(net: Any, table: np.ndarray, features: np.ndarray) -> list[np.ndarray]:
    """Both views' accumulators [n, hidden] (black's, white's), gathered in chunks
    (`net`: anything with `hidden` and the bias `b1`)."""
    out = []
    for view in (0, 1):
        acc = np.empty((len(features), net.hidden), dtype=np.float32)
        for start in range(0, len(features), GATHER_CHUNK):
            rows = features[start:start + GATHER_CHUNK, view]
            acc[start:start + len(rows)] = table[rows].sum(axis=1)
        out.append(acc + net.b1)
    return out


def head_forward(net, acc: list[np.ndarray], side: np.ndarray):
    """The two clipped-ReLU layers over both accumulators (the side to move's first)
    and the output w3 . h2 + c3, with what head_backward needs (`net`: this module's
    LayersNet or learn_halfkp's network: w1, c1, w2, c2, w3, c3)."""
    black = (side == 0)[:, None]
    us = np.where(black, acc[0], acc[1])
    them = np.where(black, acc[1], acc[0])
    x = np.concatenate([crelu(us), crelu(them)], axis=1)
    z1 = x @ net.w1.T + net.c1
    h1 = crelu(z1)
    z2 = h1 @ net.w2.T + net.c2
    h2 = crelu(z2)
    return h2 @ net.w3 + net.c3[0], (us, them, x, z1, h1, z2, h2)


def head_backward(net, side: np.ndarray, saved, g: np.ndarray):
    """Gradients of w1, c1, w2, c2, w3, c3 and b1, and of both accumulators (black's,
    white's), for per-position output gradients g (already divided by the batch)."""
    us, them, x, z1, h1, z2, h2 = saved
    h = net.hidden
    gw3 = h2.T @ g
    gc3 = np.array([g.sum()], dtype=np.float32)
    dz2 = g[:, None] * net.w3 * slope(z2)
    gw2 = dz2.T @ h1
    gc2 = dz2.sum(axis=0)
    dz1 = (dz2 @ net.w2) * slope(z1)
    gw1 = dz1.T @ x
    gc1 = dz1.sum(axis=0)
    dx = dz1 @ net.w1
    gus = dx[:, :h] * slope(us)
    gthem = dx[:, h:] * slope(them)
    black = (side == 0)[:, None]
    gacc = (np.where(black, gus, gthem), np.where(black, gthem, gus))
    gb1 = (gacc[0] + gacc[1]).sum(axis=0)
    return [gw1, gc1, gw2, gc2, gw3, gc3], gb1, gacc


def forward(net: LayersNet, table: np.ndarray, features: np.ndarray, side: np.ndarray):
    """Scores for the side to move and what the backward pass needs."""
    out, saved = head_forward(net, accumulators(net, table, features), side)
    kpv = net.kp[features[:, 0]].sum(axis=1) - net.kp[features[:, 1]].sum(axis=1)
    return np.where(side == 0, kpv, -kpv) + out, saved


def backward(net: LayersNet, features: np.ndarray, side: np.ndarray, saved, g: np.ndarray
             ) -> list[np.ndarray]:
    """Gradients of the mean loss, in the order of `LayersNet.params`."""
    g = (g / len(g)).astype(np.float32)
    h = net.hidden
    (gw1, gc1, gw2, gc2, gw3, gc3), gb1, gacc = head_backward(net, side, saved, g)
    gft = first_layer_gradient(features, gacc, W + 1)
    gft[W] = 0
    gftf = np.zeros_like(net.ftf)
    gftf[:F] = gft[:W].reshape(kp.KING_BUCKETS, F, h).sum(axis=0)
    width = features.shape[2]
    signed = np.where(side == 0, g, -g)
    gkp = (np.bincount(features[:, 0].ravel(), weights=np.repeat(signed, width), minlength=W + 1)
           - np.bincount(features[:, 1].ravel(), weights=np.repeat(signed, width),
                         minlength=W + 1)).astype(np.float32)
    gkp[W] = 0
    return [gkp, gft, gftf, gb1, gw1, gc1, gw2, gc2, gw3, gc3]


def evaluate_loss(net: LayersNet, data: Dataset, cfg: NetConfig) -> float:
    """Mean excess cross-entropy of the float network over a data set."""
    return learn_net.evaluate_loss(net, data, cfg, forward)


def train_step(net: LayersNet, opt: Adam, features: np.ndarray, part: Dataset,
               start_kp: np.ndarray, cfg: NetConfig, decay: float) -> float:
    """One Adam step on a mini-batch; returns its loss before the step."""
    v, saved = forward(net, net.first_layer(), features, part.side)
    loss, g = loss_and_grad(v, part, cfg)
    grads = backward(net, features, part.side, saved, g)
    grads[0][:W] += cfg.kp_reg * (net.kp[:W] - start_kp)
    lr, out_lr = cfg.lr * decay, cfg.out_lr * decay
    opt.step(net.params(), grads, [out_lr, lr, lr, lr, lr, lr, lr, lr, out_lr, out_lr])
    net.clip_to_integers()
    return loss


def export(net: LayersNet) -> eval_weights.LayeredWeights:
    """The float network in the engine's integers (`eval.weights.LayeredWeights`)."""
    def ints(values: np.ndarray, factor: float, low: int, high: int, dtype) -> np.ndarray:
        return np.clip(np.rint(np.asarray(values, np.float64) * factor), low, high).astype(dtype)
    limit = 32767 // (kp.MAX_ACTIVE + 1)
    return eval_weights.LayeredWeights(
        kp=eval_weights.quantize(net.kp[:W]),
        first=ints(net.first_layer()[:W], kp.QA, -limit, limit, np.int16),
        first_bias=ints(net.b1, kp.QA, -limit, limit, np.int16),
        l1_w=ints(net.w1, 64, -128, 127, np.int8),
        l1_b=ints(net.c1, kp.QA * 64, -2**31, 2**31 - 1, np.int32),
        l2_w=ints(net.w2, 64, -128, 127, np.int8),
        l2_b=ints(net.c2, kp.QA * 64, -2**31, 2**31 - 1, np.int32),
        l3_w=ints(net.w3, 16, -32767, 32767, np.int16),
        l3_b=int(np.rint(net.c3[0] * kp.OUT_DIV)))


def starting_layers(init: str, hidden: int, rng: np.random.Generator
                    ) -> tuple[LayersNet, LayersNet, str]:
    """`learn_net.starting_point` for the layered head (USIEVNN2 files)."""
    def silence(net: LayersNet) -> None:
        net.w3[:] = 0
    return starting_point(init, hidden, rng, LayersNet, eval_weights.LayeredWeights, silence)


def train_layers(paths: Sequence[str | Path], out: str | Path, cfg: NetConfig,
                 log: Callable[[str], None] = print) -> dict:
    """Train from the record files/folders `paths`, write the weights to `out`, and
    return a summary (positions used, losses per epoch)."""
    return run_learner(paths, out, cfg, log, starting_layers,
                       f"layered head, hidden {cfg.hidden}",
                       learn_net.new_optimizer, train_step, evaluate_loss,
                       lambda path, net: eval_weights.write_layered(path, export(net)))
