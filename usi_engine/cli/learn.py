"""``usi-engine learn``: train the king-piece table on training data."""
from __future__ import annotations

import argparse
from typing import Any

from usi_engine.cli.common import float_in, int_in, train_from_arguments


def cmd_learn(args: argparse.Namespace) -> int:
    """Train the king-piece evaluation (see :mod:`usi_engine.training.learn`)."""
    from usi_engine.training.learn import TrainConfig, train
    return train_from_arguments(train, TrainConfig, args, reg=args.reg, init=args.init)


def add_learn_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``learn`` sub-command's arguments."""
    p = sub.add_parser(
        "learn", help="train the learned evaluation on PackedSfenValue records",
        description="Fit the king-piece weights to the records' search scores and game "
                    "results (cross-entropy of win probabilities, Adam, mini-batches); the "
                    "last files are held out for validation and its loss is printed each "
                    "epoch, epoch 0 being the starting weights. Writes a weight file for "
                    "the EvalFile option.")
    p.add_argument("data", nargs="+", help="record files, or folders of *.psv / *.bin files")
    p.add_argument("--out", required=True, metavar="FILE", help="weight file to write")
    p.add_argument("--epochs", type=int_in(1, 10000), default=8,
                   help="passes over the training data (default 8)")
    p.add_argument("--batch-size", type=int_in(16, 10**7), default=16384,
                   help="positions per step (default 16384)")
    p.add_argument("--lr", type=float_in(1e-6, 1e4), default=1.0,
                   help="Adam step in centipawns (default 1.0), decayed linearly to 10%%")
    p.add_argument("--lambda", dest="lambda_", type=float_in(0.0, 1.0), default=0.7,
                   help="weight of the search score against the game result (default 0.7)")
    p.add_argument("--scale", type=float_in(1.0, 1e5), default=600.0,
                   help="centipawns per unit of log-odds (default 600)")
    p.add_argument("--reg", type=float_in(0.0, 1e3), default=1e-6,
                   help="L2 pull towards the starting weights (default 1e-6)")
    p.add_argument("--max-score", type=int_in(1, 32000), default=3000,
                   help="leave out records scored beyond this (default 3000)")
    p.add_argument("--val-fraction", type=float_in(0.0, 0.9), default=0.05,
                   help="fraction of the files held out for validation (default 0.05)")
    p.add_argument("--seed", type=int_in(0, 2**63 - 1), default=1,
                   help="random seed of the split, the order and the start (default 1)")
    p.add_argument("--init", default="hand",
                   help="starting weights: hand (the hand-written evaluation; the default) or a weight file")
    p.set_defaults(func=cmd_learn)
