"""The hand-written evaluation (`EvalType hand`): the search keeps its board sums move
by move (usi_engine.eval.handwritten.hand_update); they must give the score computed from
scratch after every move and undo, whatever the weights."""
from __future__ import annotations

import numpy as np
import pytest

from usi_engine.eval import handwritten as evaluate

STARTPOS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
DROPS = "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1"


@pytest.fixture
def random_weights():
    """Every weight random (no zero term to hide a missed update); restored after."""
    rng = np.random.default_rng(7)
    shapes = evaluate.default_weights()
    weights = {name: rng.integers(-300, 300, size=np.shape(value), dtype=np.int32)
               for name, value in shapes.items()}
    weights["hand_pressure"] = np.int32(11)
    evaluate.load_weights(weights)
    yield
    evaluate.load_weights(evaluate.default_weights())


def random_walk_totals() -> dict:
    """incremental_check's counts over 12 random walks of 1,000 moves."""
    totals = {"checks": 0, "mismatches": 0, "drops": 0, "captures": 0,
              "promotions": 0, "king_moves": 0}
    for seed in range(6):
        for sfen in (STARTPOS, DROPS):
            for key, value in evaluate.incremental_check(sfen, 1000, seed).items():
                totals[key] += value
    return totals


def assert_sums_agree_on_every_kind_of_move(totals: dict) -> None:
    assert totals["checks"] >= 10000
    assert totals["mismatches"] == 0
    for kind in ("drops", "captures", "promotions", "king_moves"):
        assert totals[kind] >= 100, kind


def test_incremental_board_sums_give_the_score_from_scratch(random_weights):
    assert_sums_agree_on_every_kind_of_move(random_walk_totals())


@pytest.fixture
def random_piece_values():
    """Random board and hand values and no king term (material's shape: a king move
    is then updated like any other, not recounted); restored after."""
    rng = np.random.default_rng(11)
    weights = evaluate.material_weights()
    weights["piece"] = rng.integers(1, 2000, size=16, dtype=np.int32)
    weights["hand"] = rng.integers(1, 2000, size=8, dtype=np.int32)
    evaluate.load_weights(weights)
    yield
    evaluate.load_weights(evaluate.default_weights())


def test_incremental_sums_without_king_terms_give_the_score_from_scratch(
        random_piece_values):
    assert_sums_agree_on_every_kind_of_move(random_walk_totals())


# black has given a knight for a pawn: the knight is in white's hand, the pawn in black's
KNIGHT_FOR_PAWN = "lnsgkgsnl/1r5b1/pppppppp1/9/9/9/PPPPPPPPP/1B5R1/LNSGKGS1L b Pn 1"


@pytest.fixture
def loader():
    from usi_engine.eval.loader import EvalLoader
    yield EvalLoader()
    evaluate.load_weights(evaluate.default_weights())


def test_material_evaluation_counts_piece_values_alone(loader):
    loader.apply("material", "")
    assert evaluate.evaluate_sfen(KNIGHT_FOR_PAWN) == (90 - 405) - (405 - 90)
    assert evaluate.evaluate_sfen(STARTPOS) == 0


def test_hand_evaluation_comes_back_after_the_material_one(loader):
    loader.apply("hand", "")
    hand_score = evaluate.evaluate_sfen(KNIGHT_FOR_PAWN)
    loader.apply("material", "")
    loader.apply("hand", "")
    assert evaluate.evaluate_sfen(KNIGHT_FOR_PAWN) == hand_score != -630
