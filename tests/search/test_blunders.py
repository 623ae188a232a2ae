"""Positions where the search once chose a losing move through a pruning flaw, each
pinned once the flaw was mended: a search at every depth of the range avoids the move.
Hand-set evaluation, compiled defaults, a fresh table for each depth."""
import pytest

from usi_engine.core.position import Position, move_to_usi
from usi_engine.search.searcher import Searcher

# Device match of 2026-11-26 against YaneuraOu, game 4, ply 38 after the opening: ours
# played 1h2h at depth 11 (+78) and YaneuraOu answered 4d1g+, a bishop promoting on an
# empty square next to the rook (+771 for it).  The quiet promotion was ordered last by
# its sunk capture history and then pruned by the capture futility rule, which valued
# it by its victim: nothing.
PROMOTION_PRUNED_AS_A_CAPTURE = (
    "1nsgp3l/l2k5/1p1p1p1sp/p1p2bg2/1r5pP/P4P2L/LPPP1S1P1/2SG4R/BN1KG4 b N2Pnp 51", "1h2h")


def hand_set_searcher() -> Searcher:
    searcher = Searcher()
    searcher.set_evaluation(None)
    return searcher


def test_a_move_that_allows_a_promotion_fork_is_not_chosen_at_any_depth():
    sfen, blunder = PROMOTION_PRUNED_AS_A_CAPTURE
    position = Position("sfen " + sfen)
    chosen = [move_to_usi(hand_set_searcher().search(position, depth=d).best) for d in range(9, 14)]
    assert blunder not in chosen, chosen


def test_the_promotion_fork_is_the_answer_to_that_move():
    sfen, blunder = PROMOTION_PRUNED_AS_A_CAPTURE
    position = Position("sfen " + sfen)
    position.push_usi(blunder)
    results = [hand_set_searcher().search(position, depth=d) for d in range(6, 11)]
    assert [move_to_usi(r.best) for r in results] == ["4d1g+"] * 5
    assert results[-1].score_cp > 300
