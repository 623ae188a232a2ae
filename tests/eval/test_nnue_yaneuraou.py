"""Our evaluation of an nn.bin against YaneuraOu's own: the NNUE edition built by
../shared/tools/setup-peers.sh (``yaneuraou-nnue``, halfkp_256x2-32-32) and, for the
wider shapes, by tools/yaneuraou/build-shapes.sh (each skipped when it is not built),
given the same file in EvalDir, prints with `e` the value our `eval` prints, at every
ply of random games from the start, from handicap starts and from positions with
every piece in hand, for several random nets, one written by the HalfKP trainer
(`learn-net --head halfkp`), and FV_SCALE 16 and 24."""
from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

from tests.helpers.peers import PEERS, YANEURAOU_NNUE
from usi_engine.core.position import Position
from usi_engine.eval import nnue_file
from usi_engine.notation.sfen import STARTPOS_SFEN
from usi_engine.training import learn_halfkp

pytestmark = pytest.mark.slow

STARTS = [
    STARTPOS_SFEN,
    "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",    # lance
    "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",      # bishop
    "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",        # two pieces
    "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",          # six pieces
    "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1",                         # all in hand
    "4k4/9/9/9/9/9/9/9/4K4 w 2r2b4g4s4n4l18p 1",
    "3k5/9/9/9/9/9/9/9/5K3 b RB2G2S2N2L9Prb2g2s2n2l9p 1",
]
GAMES_PER_START = 3
MAX_PLIES = 160


def random_game(start: str, rng: random.Random) -> list[str]:
    """The SFEN of every position of one random game from ``start`` (to mate, or
    MAX_PLIES), captures, promotions and drops favoured so that hands fill and empty."""
    position = Position(start)
    sfens = [position.sfen()]
    for _ in range(MAX_PLIES):
        moves = position.legal_moves()
        if not moves:
            break
        texts = [position.move_to_usi(m) for m in moves]
        lively = [m for m, t in zip(moves, texts)
                  if "*" in t or t.endswith("+") or m in set(position.captures())]
        position.push(rng.choice(lively) if lively and rng.random() < 0.5 else rng.choice(moves))
        sfens.append(position.sfen())
    return sfens


def evaluations(command: list[str], eval_dir: str, fv_scale: int,
                sfens: list[str]) -> list[int]:
    """Each ``eval = V`` the engine prints for ``position sfen S`` then ``e``."""
    lines = ["usi", f"setoption name EvalDir value {eval_dir}",
             f"setoption name FV_SCALE value {fv_scale}", "setoption name Threads value 1",
             "setoption name USI_Hash value 16", "setoption name BookFile value no_book",
             "isready"]
    for sfen in sfens:
        lines += [f"position sfen {sfen}", "e"]
    lines.append("quit")
    out = subprocess.run(command, input="\n".join(lines) + "\n", capture_output=True,
                         text=True, timeout=600).stdout
    return [int(line.split("=")[1]) for line in out.splitlines() if line.startswith("eval = ")]


@pytest.fixture(scope="module")
def games():
    rng = random.Random(2026)
    sfens = [sfen for start in STARTS for _ in range(GAMES_PER_START)
             for sfen in random_game(start, rng)]
    return sfens


def _build(shape: tuple[int, int, int]):
    """YaneuraOu's NNUE build of ``shape``, or a skip."""
    name = "halfkp_{}x2-{}-{}".format(*shape)
    binary = (YANEURAOU_NNUE if shape == (256, 32, 32)
              else PEERS / f"yaneuraou-nnue-{name.removeprefix('halfkp_')}")
    if not binary.exists():
        pytest.skip(f"{binary} is not built (setup-peers.sh, tools/yaneuraou/build-shapes.sh)")
    return binary


def _trainer_s_net(seed: int) -> nnue_file.HalfKpNet:
    """What `learn-net --head halfkp` writes, from a float network spread as after
    training (not YaneuraOu's random integers)."""
    rng = np.random.default_rng(seed)
    net = learn_halfkp.HalfKpTrainee(256, rng)
    net.ft *= 5.0
    net.w1[:] = rng.normal(0, 0.2, net.w1.shape)
    net.w2[:] = rng.normal(0, 0.4, net.w2.shape)
    net.w3[:] = rng.normal(0, 200, net.w3.shape)
    return learn_halfkp.export(net)


@pytest.mark.parametrize("shape, seed, fv_scale, written_by_trainer", [
    ((256, 32, 32), 1, 16, False), ((256, 32, 32), 2, 24, False),
    ((256, 32, 32), 3, 16, False), ((512, 16, 32), 4, 16, False),
    ((1024, 8, 32), 5, 24, False), ((256, 32, 32), 6, 16, True)],
    ids=["256-seed1-fv16", "256-seed2-fv24", "256-seed3-fv16", "512-seed4-fv16",
         "1024-seed5-fv24", "256-trainer-seed6-fv16"])
def test_our_eval_is_yaneuraou_s_e_at_every_ply(tmp_path, games, shape, seed, fv_scale,
                                                written_by_trainer):
    binary = _build(shape)
    net = (_trainer_s_net(seed) if written_by_trainer
           else nnue_file.random_net(seed=seed, shape=shape))
    with open(tmp_path / "nn.bin", "wb") as f:
        nnue_file.write_net(net, f)
    theirs = evaluations([str(binary)], str(tmp_path), fv_scale, games)
    ours = evaluations([sys.executable, "-m", "usi_engine"], str(tmp_path), fv_scale, games)
    assert len(theirs) == len(ours) == len(games)
    differ = [(sfen, a, b) for sfen, a, b in zip(games, ours, theirs) if a != b]
    assert not differ, f"{len(differ)} of {len(games)} differ, first: {differ[:3]}"
    assert len(set(ours)) > len(games) // 4     # the net tells positions apart
