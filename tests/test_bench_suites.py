"""The diagnostic suites in bench/: their positions are legal and their scoring rules hold."""
import json
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import refutation_suite  # noqa: E402
from usi_engine.position import Position, usi_to_move  # noqa: E402

REFUTATIONS = json.loads((ROOT / "bench" / "blunders" / "refutations.json").read_text())


def test_a_refutation_is_seen_from_the_first_iteration_that_stays_above_the_threshold():
    history = [(10, 50), (20, 300), (30, 100), (40, 300), (50, 320)]
    assert refutation_suite.seen_at(history, 200) == 40


def test_a_refutation_lost_again_by_the_last_iteration_is_not_seen():
    assert refutation_suite.seen_at([(10, 300), (20, 100)], 200) is None


@pytest.mark.parametrize("case", REFUTATIONS[:10], ids=lambda c: c["after"])
def test_each_refutation_position_is_the_blunder_played_on_its_position_before(case):
    position = Position(case["before"])
    position.push(usi_to_move(case["after"]))
    assert position.sfen() == case["sfen"]


def test_the_suite_scores_our_search_on_a_position_with_a_small_cap():
    nodes = refutation_suite.ours(REFUTATIONS[:1], 20_000, {}, "hand")
    assert len(nodes) == 1 and 0 < nodes[0] <= 40_000
