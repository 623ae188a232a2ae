"""Differential tests of the tsume solver against cshogi's DfPn, on game positions.

Positions are sampled from the reproducible "rich" random games of test_differential
(captures, drops, checks and promotions; hands fill up and kings get chased).  At each
sampled position where the side to move has a check, our solver runs with a small node
budget, in both length conventions, and:

* a `mate` line is replayed with cshogi alone: legal moves, every attacker move checks,
  the last position is checkmate, the length is odd;
* `nomate` must never meet a mate that cshogi's DfPn proves (cshogi may say nomate
  wrongly, so only its proofs count);
* the strict length is never shorter than the published one (passing over useless
  interpositions can only shorten a line).
"""
from __future__ import annotations

import pytest

import cshogi  # noqa: F401  (in the test extra: a missing cshogi fails, never skips)

from cshogi_referee import mate_line_fault  # noqa: E402
from differential_corpus import corpus, walk  # noqa: E402
from usi_engine import Position, move_to_usi  # noqa: E402
from usi_engine.mate.solver import MateSolver  # noqa: E402

SAMPLE_EVERY = 7          # plies between sampled positions
#: Games of the default corpus' "rich" family sampled: 20 in the default run (some 330
#: positions, 55 mates), all 120 under -m slow (which .ci/run runs).
GAMES = [pytest.param(20, id="default"), pytest.param(120, id="all", marks=pytest.mark.slow)]
OUR_NODES = 4000
CSHOGI_NODES = 20000


def sampled_positions(count: int) -> list[str]:
    games = [g for g in corpus() if g.family == "rich"][:count]
    out = []
    for _game, ply, _pos, board in walk(games):
        if ply % SAMPLE_EVERY == 0 and not board.is_check() and any(True for _ in board.check_moves):
            out.append(board.sfen())
    return out


def cshogi_proves_mate(sfen: str) -> bool:
    dfpn = cshogi.DfPn()
    dfpn.set_max_search_node(CSHOGI_NODES)
    return bool(dfpn.search(cshogi.Board(sfen)))


@pytest.fixture(scope="module", params=GAMES)
def solved(request):
    solver = MateSolver()
    solver.set_hash(16)
    rows = []
    for sfen in sampled_positions(request.param):
        results = {}
        for published in (True, False):
            solver.clear()
            r = solver.solve(Position(sfen), nodes=OUR_NODES, published=published)
            results[published] = (r.status, [move_to_usi(m) for m in r.pv])
        rows.append((sfen, results))
    return rows


def test_enough_positions_and_mates_are_sampled(solved):
    mates = sum(results[True][0] == "mate" for _, results in solved)
    assert len(solved) >= 250 and mates >= 10


def test_every_mating_line_is_a_mate_by_cshogi(solved):
    bad = [(sfen, published, why) for sfen, results in solved
           for published, (status, line) in results.items()
           if status == "mate" and (why := mate_line_fault(sfen, line))]
    assert not bad, bad[:5]


def test_no_nomate_where_cshogi_proves_a_mate(solved):
    bad = [sfen for sfen, results in solved
           if "nomate" in (results[True][0], results[False][0]) and cshogi_proves_mate(sfen)]
    assert not bad, bad[:5]


def test_strict_lines_are_never_shorter_than_published_ones(solved):
    bad = [sfen for sfen, results in solved
           if results[True][0] == results[False][0] == "mate"
           and len(results[False][1]) < len(results[True][1])]
    assert not bad, bad[:5]
