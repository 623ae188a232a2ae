"""Training of a HalfKP network in YaneuraOu's halfkp_256x2-32-32 shape, written as its
``nn.bin`` (`usi-engine learn-net --head halfkp`), in numpy.

For the side to move, with crelu(x) = clip(x, 0, 1):

    v   = w3 . h2 + c3                                      (the engine's units)
    h2  = crelu(W2 h1 + c2),   h1 = crelu(W1 x + c1)        (32 units each)
    x   = [crelu(acc_us), crelu(acc_them)]
    acc = b1 + sum of FT[f] over that king's 38 HalfKP features f
          (king square x BonaPiece: `usi_engine.eval.nnue_file.board_features`)

FT is trained with a factoriser (each row is its own weight plus one shared by all
king squares, for the rows of king squares the data rarely shows), folded in when the
file is written. The loss, the data and the optimiser are learn_net's. After each step
the layers' weights are clipped to what YaneuraOu's integers hold: int8 layers of
1/64 (|W| <= 127/64) and an int8 output layer of 16/127 units at FV_SCALE 16
(|w3| <= 127 x 127 / 16). `export` gives the integers: accumulators in 1/127,
each layer's sum shifted right by 6 as YaneuraOu's ClippedReLU does, so that the
engine and YaneuraOu's NNUE edition evaluate the file as this network does, to
rounding.

    >>> from usi_engine.training.learn_halfkp import train_halfkp     # doctest: +SKIP
    >>> from usi_engine.training.learn_net import NetConfig            # doctest: +SKIP
    >>> train_halfkp(["data/"], "nn.bin", NetConfig(hidden=256))       # doctest: +SKIP
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from usi_engine.eval import nnue_file
from usi_engine.training import learn_net
from usi_engine.training.data import Dataset
from usi_engine.training.learn_layers import accumulators, head_backward, head_forward
from usi_engine.training.learn_net import (NetConfig, first_layer_gradient, loss_and_grad,
                                           run_learner)
from usi_engine.training.optim import Adam

ROWS = nnue_file.FEATURES
BONA = nnue_file.BONA_PIECES
KINGS = ROWS // BONA
L1, L2 = 32, 32
QA = 127                          # an accumulator's 1.0 in YaneuraOu's integers
SHIFT = 1 << nnue_file.WEIGHT_SCALE_BITS
FV_SCALE = 16
LAYER_LIMIT = 127 / SHIFT
OUT_LIMIT = 127 * QA / FV_SCALE


def features(part: Dataset) -> np.ndarray:
    """The HalfKP features of a batch, [n, 2, 38] (black's view, white's)."""
    return nnue_file.board_features(part.board, part.hands)


class HalfKpTrainee:
    """Float parameters of a halfkp_{hidden}x2-32-32 network (256 wide to be written;
    narrower ones train the same way, for tests)."""

    def __init__(self, hidden: int, rng: np.random.Generator) -> None:
        if hidden % 32 or not 0 < hidden <= 256:
            raise ValueError(f"hidden width {hidden}: a multiple of 32 up to 256 (only 256, "
                             "halfkp_256x2-32-32, is written as an nn.bin)")
        self.ft = rng.standard_normal((ROWS, hidden), dtype=np.float32)
        self.ft *= 0.01
        self.ftf = np.zeros((BONA, hidden), dtype=np.float32)
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
    def from_file(cls, net: nnue_file.HalfKpNet) -> "HalfKpTrainee":
        """The float network an nn.bin's integers stand for (to go on training it)."""
        hidden, l1, l2 = net.shape
        if (l1, l2) != (L1, L2):
            raise ValueError(f"halfkp_{hidden}x2-{l1}-{l2}: halfkp_256x2-32-32 is trained")
        trainee = cls.__new__(cls)
        trainee.ft = (net.ft_weight / QA).astype(np.float32)
        trainee.ftf = np.zeros((BONA, hidden), dtype=np.float32)
        trainee.b1 = (net.ft_bias / QA).astype(np.float32)
        trainee.w1, trainee.c1, trainee.w2, trainee.c2, trainee.w3, trainee.c3 = (
            np.zeros(shape, dtype=np.float32)
            for shape in ((L1, 2 * hidden), L1, (L2, L1), L2, L2, 1))
        trainee.w1[:] = net.l1_weight / SHIFT
        trainee.c1[:] = net.l1_bias / (QA * SHIFT)
        trainee.w2[:] = net.l2_weight / SHIFT
        trainee.c2[:] = net.l2_bias / (QA * SHIFT)
        trainee.w3[:] = net.out_weight[0].astype(np.float32) * QA / FV_SCALE
        trainee.c3[:] = net.out_bias / FV_SCALE
        return trainee

    def params(self) -> list[np.ndarray]:
        return [self.ft, self.ftf, self.b1, self.w1, self.c1, self.w2, self.c2, self.w3,
                self.c3]

    def first_layer(self) -> np.ndarray:
        """FT with the factoriser folded in: [ROWS, hidden]."""
        return self.ft + np.tile(self.ftf, (KINGS, 1))

    def clip_to_integers(self) -> None:
        """Keep every weight where YaneuraOu's integers can hold it."""
        np.clip(self.w1, -LAYER_LIMIT, LAYER_LIMIT, out=self.w1)
        np.clip(self.w2, -LAYER_LIMIT, LAYER_LIMIT, out=self.w2)
        np.clip(self.w3, -OUT_LIMIT, OUT_LIMIT, out=self.w3)


def forward(net: HalfKpTrainee, table: np.ndarray, feats: np.ndarray, side: np.ndarray):
    """Scores for the side to move and what the backward pass needs."""
    return head_forward(net, accumulators(net, table, feats), side)


def backward(net: HalfKpTrainee, feats: np.ndarray, side: np.ndarray, saved, g: np.ndarray
             ) -> list[np.ndarray]:
    """Gradients of the mean loss, in the order of `HalfKpTrainee.params`."""
    g = (g / len(g)).astype(np.float32)
    (gw1, gc1, gw2, gc2, gw3, gc3), gb1, gacc = head_backward(net, side, saved, g)
    gft = first_layer_gradient(feats, gacc, ROWS)
    gftf = gft.reshape(KINGS, BONA, net.hidden).sum(axis=0)
    return [gft, gftf, gb1, gw1, gc1, gw2, gc2, gw3, gc3]


def batch_rows(feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first layer's rows a batch uses (sorted, unique) and its features as
    indices into them: a step reads and changes those rows alone, a few thousand of
    the 125,388."""
    rows, local = np.unique(feats, return_inverse=True)
    return rows, local.reshape(feats.shape)


def sparse_gradients(net: HalfKpTrainee, rows: np.ndarray, local: np.ndarray,
                     side: np.ndarray, saved, g: np.ndarray) -> list[np.ndarray]:
    """`backward`'s gradients with FT's for `rows` only ([len(rows), hidden]; the rest
    are zero): FT's row gradients summed by BonaPiece give the factoriser's."""
    g = (g / len(g)).astype(np.float32)
    (gw1, gc1, gw2, gc2, gw3, gc3), gb1, gacc = head_backward(net, side, saved, g)
    gft = first_layer_gradient(local, gacc, len(rows))
    gftf = np.zeros_like(net.ftf)
    np.add.at(gftf, rows % BONA, gft)
    return [gft, gftf, gb1, gw1, gc1, gw2, gc2, gw3, gc3]


def evaluate_loss(net: HalfKpTrainee, data: Dataset, cfg: NetConfig) -> float:
    """Mean excess cross-entropy of the float network over a data set."""
    return learn_net.evaluate_loss(net, data, cfg, forward, features)


def new_optimizer(net: HalfKpTrainee) -> Adam:
    return learn_net.new_optimizer(net)


def train_step(net: HalfKpTrainee, opt: Adam, feats: np.ndarray, part: Dataset,
               start_kp: None, cfg: NetConfig, decay: float) -> float:
    """One Adam step on a mini-batch (sparse in FT: the batch's rows alone); returns
    its loss before the step."""
    rows, local = batch_rows(feats)
    v, saved = forward(net, net.ft[rows] + net.ftf[rows % BONA], local, part.side)
    loss, g = loss_and_grad(v, part, cfg)
    grads = sparse_gradients(net, rows, local, part.side, saved, g)
    lr, out_lr = cfg.lr * decay, cfg.out_lr * decay
    opt.step(net.params(), grads, [lr, lr, lr, lr, lr, lr, lr, out_lr, out_lr],
             rows=[rows] + [None] * 8)
    net.clip_to_integers()
    return loss


def export(net: HalfKpTrainee) -> nnue_file.HalfKpNet:
    """The float network in YaneuraOu's integers (an nn.bin's contents): 256 wide."""
    if net.hidden != 256:
        raise ValueError(f"a network {net.hidden} wide: nn.bin holds halfkp_256x2-32-32")
    def ints(values: np.ndarray, factor: float, low: int, high: int, dtype) -> np.ndarray:
        return np.clip(np.rint(np.asarray(values, np.float64) * factor), low, high).astype(dtype)
    limit = 32767 // (nnue_file.PIECE_SLOTS + 1)     # 38 rows and the bias stay in int16
    return nnue_file.HalfKpNet(
        ft_bias=ints(net.b1, QA, -limit, limit, np.int16),
        ft_weight=ints(net.first_layer(), QA, -limit, limit, np.int16),
        l1_bias=ints(net.c1, QA * SHIFT, -2**31, 2**31 - 1, np.int32),
        l1_weight=ints(net.w1, SHIFT, -128, 127, np.int8),
        l2_bias=ints(net.c2, QA * SHIFT, -2**31, 2**31 - 1, np.int32),
        l2_weight=ints(net.w2, SHIFT, -128, 127, np.int8),
        out_bias=ints(net.c3, FV_SCALE, -2**31, 2**31 - 1, np.int32),
        out_weight=ints(net.w3[None, :], FV_SCALE / QA, -128, 127, np.int8))


def starting_halfkp(init: str, hidden: int, rng: np.random.Generator
                    ) -> tuple[HalfKpTrainee, HalfKpTrainee, str]:
    """The network to start from: an nn.bin named by `init` (to go on training it), else
    random weights (the baseline: the same network with its output silenced)."""
    try:
        net = HalfKpTrainee.from_file(nnue_file.load_net(init))
        return net, net, "the network"
    except (OSError, nnue_file.NetFileError):
        pass                                   # (the learners' default init: a KP table)
    net = HalfKpTrainee(hidden, rng)
    silent = HalfKpTrainee(hidden, np.random.default_rng(0))
    silent.w3[:] = 0
    return net, silent, "a network outputting 0"


def write(path: str | Path, net: HalfKpTrainee) -> None:
    with open(path, "wb") as f:
        nnue_file.write_net(export(net), f)


def train_halfkp(paths: Sequence[str | Path], out: str | Path, cfg: NetConfig,
                 log: Callable[[str], None] = print) -> dict:
    """Train from the record files/folders `paths`, write the nn.bin to `out`, and
    return a summary (positions used, losses per epoch)."""
    return run_learner(paths, out, cfg, log, starting_halfkp,
                       f"halfkp_{cfg.hidden}x2-{L1}-{L2}", new_optimizer, train_step,
                       evaluate_loss, write, features)
