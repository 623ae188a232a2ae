"""Training speed of a halfkp_256x2-32-32 network: the numpy trainer
(`usi_engine.training.learn_halfkp`, what `learn-net --head halfkp` runs) against the
same network, loss and Adam in PyTorch (when it is installed: `pip install torch`), on
the same batches, side by side. It decides whether a PyTorch trainer is worth a `train`
extra (issue 70: at least 5 times the numpy trainer's positions a second).

    python -m bench.speed.halfkp_train_speed                  # 8,192-position steps
    python -m bench.speed.halfkp_train_speed --batch 16384 --steps 6

The PyTorch model: an EmbeddingBag (sum) over the 38 features of each view, with sparse
gradients (SparseAdam for it, Adam for the rest) and with dense ones (Adam), the factoriser as a second bag over
the BonaPiece alone, the same clipped ReLUs and the same excess cross-entropy. The
positions are random playouts (as the tests' data); the speed does not depend on
their labels.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from bench.lib.engines import machine_line
from usi_engine.core.packed import PSV_DTYPE, move_to_psv, pack
from usi_engine.core.position import Position
from usi_engine.eval import nnue_file
from usi_engine.training import data as training_data
from usi_engine.training import learn_halfkp
from usi_engine.training.learn_net import NetConfig, new_optimizer


def playout_records(count: int, seed: int) -> np.ndarray:
    """Positions of random playouts from the start (labels: 0 cp, a draw)."""
    rng = np.random.default_rng(seed)
    records = np.zeros(count, dtype=PSV_DTYPE)
    position = Position()
    i = 0
    while i < count:
        quiet = position.quiets()
        if not quiet or position.ply > 150:
            position = Position()
            continue
        records[i]["sfen"] = np.frombuffer(pack(position), dtype=np.uint8)
        records[i]["move"] = move_to_psv(position, quiet[0])
        records[i]["score"] = int(rng.integers(-600, 600))
        records[i]["game_result"] = int(rng.integers(-1, 2))
        i += 1
        position.push(quiet[rng.integers(len(quiet))])
    return records


def numpy_rate(part: training_data.Dataset, steps: int) -> float:
    cfg = NetConfig(hidden=256)
    net = learn_halfkp.HalfKpTrainee(256, np.random.default_rng(1))
    opt = new_optimizer(net)
    feats = learn_halfkp.features(part)
    learn_halfkp.train_step(net, opt, feats, part, None, cfg, 1.0)          # warm-up
    start = time.perf_counter()
    for _ in range(steps):
        learn_halfkp.train_step(net, opt, learn_halfkp.features(part), part, None, cfg, 1.0)
    return steps * len(part) / (time.perf_counter() - start)


def torch_rate(part: training_data.Dataset, steps: int, sparse: bool) -> float | None:
    try:
        import torch
    except ImportError:
        return None
    cfg = NetConfig(hidden=256)
    hidden = 256
    ft = torch.nn.EmbeddingBag(nnue_file.FEATURES, hidden, mode="sum", sparse=sparse)
    ftf = torch.nn.EmbeddingBag(nnue_file.BONA_PIECES, hidden, mode="sum", sparse=sparse)
    torch.nn.init.normal_(ft.weight, 0, 0.01)
    torch.nn.init.zeros_(ftf.weight)
    dense = torch.nn.ModuleDict({"l1": torch.nn.Linear(2 * hidden, 32),
                                 "l2": torch.nn.Linear(32, 32), "out": torch.nn.Linear(32, 1)})
    b1 = torch.nn.Parameter(torch.full((hidden,), 0.5))
    first = list(ft.parameters()) + list(ftf.parameters())
    sparse_opt = (torch.optim.SparseAdam(first, lr=1e-3) if sparse
                  else torch.optim.Adam(first, lr=1e-3))
    dense_opt = torch.optim.Adam(list(dense.parameters()) + [b1], lr=1e-3)
    score = torch.tensor(part.score, dtype=torch.float32)
    result = torch.tensor(part.result, dtype=torch.float32)
    side = torch.tensor(part.side.astype(np.int64))

    def step() -> None:
        feats = torch.from_numpy(learn_halfkp.features(part).astype(np.int64))
        acc = [ft(feats[:, v]) + ftf(feats[:, v] % nnue_file.BONA_PIECES) + b1 for v in (0, 1)]
        black = (side == 0)[:, None]
        us = torch.where(black, acc[0], acc[1]).clamp(0, 1)
        them = torch.where(black, acc[1], acc[0]).clamp(0, 1)
        h1 = dense["l1"](torch.cat([us, them], dim=1)).clamp(0, 1)
        h2 = dense["l2"](h1).clamp(0, 1)
        v = dense["out"](h2)[:, 0]
        p = torch.sigmoid(v / cfg.scale)
        target = cfg.lambda_ * torch.sigmoid(score / cfg.scale) + (1 - cfg.lambda_) * result
        loss = torch.nn.functional.binary_cross_entropy(p, target)
        sparse_opt.zero_grad()
        dense_opt.zero_grad()
        loss.backward()
        sparse_opt.step()
        dense_opt.step()

    step()                                                                     # warm-up
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps * len(part) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=8192, help="positions a step (8192)")
    ap.add_argument("--steps", type=int, default=4, help="timed steps of each trainer (4)")
    ap.add_argument("--positions", type=int, default=4096,
                    help="distinct positions the batches repeat (4096)")
    args = ap.parse_args(argv)
    data = training_data.decode(playout_records(args.positions, 1), 3000)
    part = data.subset(np.arange(args.batch) % len(data))
    print(machine_line())
    print(f"halfkp_256x2-32-32, batches of {args.batch}, {args.steps} timed steps each, "
          f"{os.cpu_count()} cores")
    ours = numpy_rate(part, args.steps)
    print(f"numpy (learn_halfkp):  {ours:,.0f} positions/s")
    for sparse in (True, False):
        theirs = torch_rate(part, args.steps, sparse)
        if theirs is None:
            print("PyTorch: not installed (pip install torch)")
            return 0
        import torch
        kind = "sparse gradients, SparseAdam" if sparse else "dense gradients, Adam"
        print(f"PyTorch {torch.__version__} ({torch.get_num_threads()} threads, {kind}): "
              f"{theirs:,.0f} positions/s, {theirs / ours:.2f} times numpy's")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
