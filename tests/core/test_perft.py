"""Perft: every reference count in sfen/perft.txt.  Counts above FAST_LIMIT leaves are
marked slow (run them with `python -m pytest -m slow tests/core/test_perft.py`)."""
import pytest

from conftest import read_perft_suite
from usi_engine import Position

FAST_LIMIT = 30_000_000

CASES = [
    pytest.param(sfen, depth, count, id=f"{name}-d{depth}",
                 marks=[pytest.mark.slow] if count > FAST_LIMIT else [])
    for name, sfen, counts in read_perft_suite()
    for depth, count in sorted(counts.items())
]


@pytest.mark.parametrize("sfen,depth,count", CASES)
def test_perft_matches_reference_count(sfen, depth, count):
    assert Position(sfen).perft(depth) == count


def test_perft_leaves_the_position_unchanged():
    pos = Position()
    before = (pos.sfen(), pos.key, pos.history_length)
    pos.perft(3)
    assert (pos.sfen(), pos.key, pos.history_length) == before


def test_divide_sums_to_perft():
    pos = Position()
    divided = pos.divide(3)
    assert len(divided) == 30
    assert sum(divided.values()) == pos.perft(3)


def test_perft_depth_zero_is_one():
    assert Position().perft(0) == 1


def test_perft_rejects_negative_depth():
    with pytest.raises(ValueError, match="depth"):
        Position().perft(-1)
