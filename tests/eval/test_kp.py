"""The learned king-piece evaluation: incremental sums, symmetry, the hand-written
baseline written as KP weights, and the feature arrays the trainer uses."""
import re

import numpy as np
import pytest

from usi_engine.eval import weights as eval_weights

from usi_engine.eval import kp
from usi_engine.eval.handwritten import evaluate_sfen as hand_evaluate
from usi_engine.core.position import Position

STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
DROPS = "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1"


@pytest.fixture
def random_weights():
    return kp.Network(np.random.default_rng(11).integers(-3000, 3000, kp.WEIGHT_COUNT)
                      .astype(np.int16))


def _random_positions(count: int, seed: int) -> list[Position]:
    rng = np.random.default_rng(seed)
    out = []
    pos = Position()
    while len(out) < count:
        moves = pos.legal_moves()
        if not moves or pos.ply > 200:
            pos = Position()
            continue
        pos.push(moves[rng.integers(len(moves))])
        out.append(pos.copy())
    return out


def test_incremental_sums_equal_sums_from_scratch_over_thousands_of_moves(random_weights):
    totals = {"checks": 0, "mismatches": 0, "drops": 0, "captures": 0,
              "promotions": 0, "king_moves": 0}
    for seed in range(6):
        for sfen in (STARTPOS, DROPS):
            for key, value in random_weights.incremental_check(sfen, 1000, seed).items():
                totals[key] += value
    assert totals["checks"] >= 10000
    assert totals["mismatches"] == 0
    for kind in ("drops", "captures", "promotions", "king_moves"):
        assert totals[kind] >= 100, kind


def test_score_is_the_same_for_the_position_turned_round(random_weights):
    for pos in _random_positions(200, 3):
        board, side, hands = pos.sfen().split()[:3]
        turned = "/".join("".join(re.findall(r"\+?[A-Za-z]|\d", row)[::-1]).swapcase()
                          for row in board.split("/")[::-1])
        turned_hands = hands if hands == "-" else hands.swapcase()
        flipped = f"{turned} {'w' if side == 'b' else 'b'} {turned_hands} 1"
        assert random_weights.evaluate(flipped) == random_weights.evaluate(pos.sfen())


def test_hand_projection_scores_as_the_hand_written_evaluation():
    projection = kp.Network(eval_weights.quantize(eval_weights.hand_projection()))
    differences = [projection.evaluate(p.sfen()) - hand_evaluate(p.sfen())
                   for p in _random_positions(500, 5)]
    assert max(abs(d) for d in differences) <= 2


def _arrays(positions: list[Position]):
    board = np.zeros((len(positions), 81), dtype=np.uint8)
    hands = np.zeros((len(positions), 2, 8), dtype=np.uint8)
    names = {"P": 1, "L": 2, "N": 3, "S": 4, "B": 5, "R": 6, "G": 7}
    for i, pos in enumerate(positions):
        for sq in range(81):
            board[i, sq] = pos.piece_at(sq)
        for color in range(2):
            for name, count in pos.hand(color).items():
                hands[i, color, names[name.upper()]] = count
    side = np.array([p.turn for p in positions], dtype=np.uint8)
    return board, hands, side


def test_feature_arrays_sum_to_the_search_evaluation(random_weights):
    positions = _random_positions(300, 9)
    features = kp.features(*_arrays(positions))
    table = np.append(random_weights.table().astype(np.int64), 0)   # the padding slot weighs 0
    black_view = table[features[:, 0]].sum(axis=1)
    white_view = table[features[:, 1]].sum(axis=1)
    for i, pos in enumerate(positions):
        total = int(black_view[i] - white_view[i]) * (1 if pos.turn == 0 else -1)
        expected = abs(total) // kp.SCALE * (1 if total >= 0 else -1)
        assert random_weights.evaluate(pos.sfen()) == expected


def test_feature_arrays_refuse_impossible_hands():
    board, hands, side = _arrays(_random_positions(1, 1))
    hands[0, 0, 1] = 19
    with pytest.raises(ValueError, match="too many pieces"):
        kp.features(board, hands, side)


def test_a_network_keeps_its_own_copy_of_the_weights():
    table = np.zeros(kp.WEIGHT_COUNT, dtype=np.int16)
    net = kp.Network(table)
    table[:] = 999
    assert net.evaluate(STARTPOS) == 0 and not net.table().any()


def test_two_networks_score_side_by_side_each_with_its_own_weights(random_weights):
    zero = kp.Network(np.zeros(kp.WEIGHT_COUNT, dtype=np.int16))
    assert zero.evaluate(DROPS) == 0 and random_weights.evaluate(DROPS) != 0
