"""``usi-engine learn-net``: train the network on top of the king-piece table."""
from __future__ import annotations

import argparse
from typing import Any

from usi_engine.cli.common import fail, float_in, int_in, train_from_arguments


def cmd_learn_net(args: argparse.Namespace) -> int:
    """Train the network on top of the king-piece table: the square head
    (:mod:`usi_engine.training.learn_net`) or the layered one (``learn_layers``)."""
    from usi_engine.eval import kp
    from usi_engine.training.learn_halfkp import train_halfkp
    from usi_engine.training.learn_layers import train_layers
    from usi_engine.training.learn_net import NetConfig, train_net
    head = args.head
    hidden = args.hidden or {"square": kp.HIDDEN, "layers": 128, "halfkp": 256}[head]
    if head == "square" and hidden != kp.HIDDEN:
        return fail(f"the square head is {kp.HIDDEN} wide (--hidden goes with --head layers)")
    if head == "halfkp" and hidden != 256:
        return fail("--head halfkp trains halfkp_256x2-32-32: its accumulators are 256 wide")
    learner = {"square": train_net, "layers": train_layers, "halfkp": train_halfkp}[head]
    return train_from_arguments(learner, NetConfig, args, out_lr=args.out_lr,
                                init=args.init or "", hidden=hidden)


def add_learn_net_parser(sub: "argparse._SubParsersAction[Any]") -> None:
    """The ``learn-net`` sub-command's arguments."""
    p = sub.add_parser(
        "learn-net", help="train the network of the learned evaluation (numpy)",
        description="Fit a KP table and the small network on top of it (a 32-wide "
                    "accumulator per king, squared clipped ReLU, one output) to the "
                    "records' search scores and game results, as learn does. Writes a "
                    "network file for the EvalFile option after every epoch.")
    p.add_argument("data", nargs="+", help="record files, or folders of *.psv / *.bin files")
    p.add_argument("--out", required=True, metavar="FILE", help="network file to write")
    p.add_argument("--epochs", type=int_in(1, 10000), default=4,
                   help="passes over the training data (default 4)")
    p.add_argument("--batch-size", type=int_in(16, 10**7), default=8192,
                   help="positions per step (default 8192)")
    p.add_argument("--lr", type=float_in(1e-8, 10.0), default=1e-3,
                   help="Adam step of the first layer (default 0.001), decayed to 10%%")
    p.add_argument("--out-lr", type=float_in(1e-6, 1e4), default=0.5,
                   help="Adam step of the output layer and KP table in cp (default 0.5)")
    p.add_argument("--lambda", dest="lambda_", type=float_in(0.0, 1.0), default=0.7,
                   help="weight of the search score against the game result (default 0.7)")
    p.add_argument("--scale", type=float_in(1.0, 1e5), default=600.0,
                   help="centipawns per unit of log-odds (default 600)")
    p.add_argument("--max-score", type=int_in(1, 32000), default=3000,
                   help="leave out records scored beyond this (default 3000)")
    p.add_argument("--val-fraction", type=float_in(0.0, 0.9), default=0.05,
                   help="fraction of the files held out for validation (default 0.05)")
    p.add_argument("--seed", type=int_in(0, 2**63 - 1), default=1,
                   help="random seed of the split, the order and the start (default 1)")
    p.add_argument("--init", default=None,
                   help="KP table to start from with a new network (default: the one "
                        "shipped), or a network file (an nn.bin with --head halfkp) to go "
                        "on training")
    p.add_argument("--head", choices=("square", "layers", "halfkp"), default="square",
                   help="square: the 32-wide network of kpnn.bin (default); layers: the "
                        "NNUE-style head, two int8 layers of 32 over wider accumulators; "
                        "halfkp: YaneuraOu's halfkp_256x2-32-32 on HalfKP features, "
                        "written as an nn.bin (random start, or --init an nn.bin)")
    p.add_argument("--hidden", type=int_in(32, 256), default=None,
                   help="accumulator width of --head layers, a multiple of 32 (default 128)")
    p.set_defaults(func=cmd_learn_net)
