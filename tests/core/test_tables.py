"""One block of table memory (USI_Hash) for the search and the solver, forgotten at no
cost: keys are salted and entries carry a generation, so what another table or an
earlier game left behind is never read."""
from __future__ import annotations

import time

import pytest

from usi_engine.mate.solver import MateSolver
from usi_engine.core.position import Position
from usi_engine.search.searcher import Searcher
from usi_engine.core.tt import HashMemory

OPENING = "lnsgkgsnl/1r5b1/p1ppppppp/1p7/7P1/9/PPPPPPP1P/1B5R1/LNSGKGSNL b - 5"
MATE_IN_3 = "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"
MATE_IN_7 = "lns4+r1/1rgk+b4/pppp2+N2/4p4/9/3P5/PPPGPP3/LBNS1G+p2/1N2K1+l2 w G2sl6p 94"


def nodes_of_search(searcher: Searcher, sfen: str = OPENING, depth: int = 6) -> int:
    return searcher.search(Position(sfen), depth=depth).nodes


def test_hash_memory_has_the_size_asked_for():
    assert HashMemory(3).size == 3 << 20
    with pytest.raises(ValueError):
        HashMemory(0)


def test_new_game_forgets_the_search_table():
    fresh = Searcher()
    fresh.set_hash(16)
    reference = nodes_of_search(fresh)
    searcher = Searcher()
    searcher.set_hash(16)
    nodes_of_search(searcher, "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2")
    assert nodes_of_search(searcher) != reference       # a warm table changes the search
    searcher.new_game()
    assert nodes_of_search(searcher) == reference
    searcher.search(Position(OPENING), nodes=50_000)    # enough entries for hashfull's sample
    assert searcher.hashfull() > 0


@pytest.mark.timing
def test_new_game_costs_nothing_at_any_size():
    # clearing 256 MB would take 10 ms or more; the best of three games is timed, as
    # the first call after the searcher is made pays the page faults of its histories
    searcher = Searcher()
    searcher.set_hash(256)
    took = []
    for _ in range(3):
        nodes_of_search(searcher, depth=4)
        searcher.mate_solver().solve(Position(MATE_IN_3))
        start = time.perf_counter()
        searcher.new_game()
        took.append(time.perf_counter() - start)
        assert searcher.hashfull() == 0
    assert min(took) < 0.005


def test_the_solver_works_inside_the_search_memory():
    searcher = Searcher()
    searcher.set_hash(8)
    solver = searcher.mate_solver()
    assert solver.megabytes == searcher.hash_mb == 8
    assert solver.solve(Position(MATE_IN_3)).usi() == "checkmate 9f5b+ 4a5b S*4b"


def test_the_search_never_reads_what_the_solver_left_in_its_memory():
    fresh = Searcher()
    fresh.set_hash(4)
    reference = nodes_of_search(fresh)
    searcher = Searcher()
    searcher.set_hash(4)
    searcher.mate_solver().solve(Position(MATE_IN_7))
    assert nodes_of_search(searcher) == reference


def test_the_solver_never_reads_what_the_search_left_in_its_memory():
    own = MateSolver()
    own.set_hash(4)
    reference = own.solve(Position(MATE_IN_7), nodes=100000)
    searcher = Searcher()
    searcher.set_hash(4)
    solver = searcher.mate_solver()
    solver.solve(Position(MATE_IN_3))
    nodes_of_search(searcher)
    result = solver.solve(Position(MATE_IN_7), nodes=100000)
    assert (result.usi(), result.nodes) == (reference.usi(), reference.nodes)


def test_clear_forgets_the_solver_table():
    solver = MateSolver()
    solver.set_hash(1)
    first = solver.solve(Position(MATE_IN_7))
    assert solver.table_usage()[0] > 0
    solver.clear()
    assert solver.table_usage()[0] == 0 and solver.hashfull() == 0
    again = solver.solve(Position(MATE_IN_7))
    assert (again.usi(), again.nodes) == (first.usi(), first.nodes)


def test_the_mate_probe_keeps_to_its_slice_of_the_memory():
    # the probe before each search writes only in the last eighth: the search's
    # table is not forgotten by it
    searcher = Searcher()
    searcher.set_hash(8)
    nodes_of_search(searcher)
    warm = searcher.search(Position(OPENING), depth=6, mate_probe_ms=50).nodes
    plain = Searcher()
    plain.set_hash(8)
    nodes_of_search(plain)
    assert warm == nodes_of_search(plain)
