"""df-pn tsume solver: exact short mates, verified lines, no false nomate, bounded table."""
import threading
import time

import pytest

from usi_engine.core.position import Position, move_to_usi
from usi_engine.mate.solver import MateSolver
from compositions import FUTAKAMI_11, KOTEN_3

MATE_IN_1 = "4k4/9/4P4/9/9/9/9/9/9 b G 1"


def replay_is_mate(sfen, pv):
    pos = Position(sfen)
    for ply, m in enumerate(pv):
        if ply % 2 == 0:
            assert pos.gives_check(m)
        pos.push(m)
    return pos.is_checkmate() and len(pv) % 2 == 1


def test_mate_in_one_by_drop(solver):
    result = solver.solve(Position(MATE_IN_1))
    assert result.status == "mate" and result.usi() == "checkmate G*5b"


def test_classic_three_ply_has_its_published_length(solver):
    result = solver.solve(Position(KOTEN_3), time_ms=5000)
    assert result.status == "mate" and len(result.pv) == 3
    assert replay_is_mate(KOTEN_3, result.pv)


def test_eleven_ply_composition_has_its_published_length(solver):
    result = solver.solve(Position(FUTAKAMI_11), time_ms=20000)
    assert result.status == "mate" and len(result.pv) == 11
    assert replay_is_mate(FUTAKAMI_11, result.pv)


def test_first_proof_may_be_longer_than_the_shortest(solver):
    # without the length-bounded re-search the first proof found is not the shortest
    longest = solver.solve(Position(FUTAKAMI_11), time_ms=20000, shortest=False)
    assert longest.status == "mate" and len(longest.pv) >= 11


def test_no_check_available_is_nomate(solver):
    assert solver.solve(Position("4k4/9/9/9/9/9/9/9/4K4 b - 1")).usi() == "checkmate nomate"


def test_checks_that_run_out_are_nomate(solver):
    # one gold to drop, the king walks away
    result = solver.solve(Position("4k4/9/9/9/9/9/9/9/9 b G 1"), time_ms=5000)
    assert result.status == "nomate"


def test_pawn_drop_mate_is_not_a_mate(solver):
    # P*1b would mate (1b guarded by the knight, 2a and 2b by the gold) and is therefore
    # illegal (uchifuzume); the gold and knight checks let the king out: no mate at all
    sfen = "8k/6G2/9/7N1/9/9/9/9/9 b P 1"
    assert "P*1b" not in {move_to_usi(m) for m in Position(sfen).legal_moves()}
    assert solver.solve(Position(sfen), time_ms=5000).usi() == "checkmate nomate"


def test_a_mate_next_to_an_illegal_pawn_drop_mate_avoids_the_pawn_drop(solver):
    # P*1b is uchifuzume here (the gold on 2b is pinned), but the bishop mates in 5
    sfen = "8k/6Sg1/9/5B1N1/9/9/9/9/4K4 b P 1"
    result = solver.solve(Position(sfen), time_ms=5000)
    assert result.status == "mate" and len(result.pv) == 5
    assert replay_is_mate(sfen, result.pv) and "P*1b" not in map(move_to_usi, result.pv)


def test_perpetual_check_is_not_a_mate(solver):
    # a lone rook can check forever but never mate: the repetitions are disproved
    result = solver.solve(Position("8k/9/6R2/9/9/9/9/9/K8 b - 1"), time_ms=3000)
    assert result.usi() == "checkmate nomate"


@pytest.mark.timing
def test_time_limit_is_obeyed(solver):
    start = time.perf_counter()
    result = solver.solve(Position("8k/9/9/9/9/9/9/9/9 b R2GSr2b2g3s4n4l18p 1"), time_ms=300)
    assert time.perf_counter() - start < 0.6
    assert result.status in ("mate", "timeout")


@pytest.mark.timing
def test_stop_from_another_thread(solver):
    threading.Timer(0.1, solver.stop).start()
    start = time.perf_counter()
    solver.solve(Position("8k/9/9/9/9/9/9/9/9 b R2GSr2b2g3s4n4l18p 1"))
    assert time.perf_counter() - start < 0.5


def test_tiny_table_keeps_running_when_full():
    s = MateSolver()
    s.set_hash(1)
    hard = "9/9/9/9/9/9/9/6k2/9 b 4G4SNL3P2r2b3n3l15p 1"   # Okamura 38-gyoku: far beyond 1 MB
    result = s.solve(Position(hard), time_ms=1500)
    assert result.status == "timeout" and result.nodes > 100_000
    used, capacity = s.table_usage()
    assert used >= 0.9 * capacity
    result = s.solve(Position(KOTEN_3), time_ms=5000)         # and it still solves
    assert result.status == "mate" and len(result.pv) == 3


def test_solver_does_not_modify_the_position(solver):
    pos = Position(FUTAKAMI_11)
    before = (pos.sfen(), pos.key)
    solver.solve(pos, time_ms=2000)
    assert (pos.sfen(), pos.key) == before


SHORT_PROBLEMS = [                  # (sfen, published length)
    ("4k4/9/9/9/3+PP4/9/9/9/9 b 4G2r2b4s4n4l16p 1", 9),
    ("8k/7p1/1r7/5bS2/7N1/9/9/9/9 b RSNLb4g2s2n3l17p 1", 7),
    ("4RB1k1/5s3/7n1/5s1LP/9/7r1/9/9/6K2 b b4g2s3n3l17p 1", 13),   # Karolina
    (KOTEN_3, 3),
    (FUTAKAMI_11, 11),
]


@pytest.mark.parametrize("sfen,length", SHORT_PROBLEMS)
def test_short_problems_have_their_published_lengths(solver, sfen, length):
    result = solver.solve(Position(sfen), time_ms=20000)
    assert result.status == "mate" and len(result.pv) == length
    assert replay_is_mate(sfen, result.pv)


@pytest.mark.parametrize("sfen,length", SHORT_PROBLEMS)
def test_generalised_hands_and_heuristics_do_not_change_the_answer(sfen, length):
    from usi_engine.mate import solver as mate
    results = []
    try:
        for settings in [(True, True, True), (False, False, False)]:
            mate._set_heuristics(*settings)
            s = MateSolver()
            s.set_hash(16)
            r = s.solve(Position(sfen), time_ms=20000)
            results.append((r.status, len(r.pv)))
    finally:
        mate._set_heuristics(True, True, True)
    assert results[0] == results[1] == ("mate", length)


@pytest.mark.parametrize("sfen", [
    FUTAKAMI_11, "8k/9/9/9/9/9/9/9/9 b R2GSr2b2g3s4n4l18p 1",
    # (3 s of disproofs: the two boards above cover the default run)
    pytest.param("9/9/9/9/9/9/9/6k2/9 b 4G4SNL3P2r2b3n3l15p 1", marks=pytest.mark.slow)])
def test_no_proof_and_disproof_of_a_board_ever_overlap(sfen):
    # a hand covered by a proof hand and by a disproof hand would make one of them wrong
    s = MateSolver()
    s.set_hash(64)
    s.solve(Position(sfen), time_ms=3000)
    assert s.stats()["contradictions"] == 0
    assert s._contradictions() == 0


def test_zuko_98_is_solved_with_a_verified_line():
    sfen = "8k/9/9/9/9/9/9/9/9 b R2GSr2b2g3s4n4l18p 1"   # a bare king chased 35+ plies
    s = MateSolver()
    s.set_hash(256)
    result = s.solve(Position(sfen), time_ms=15000, shortest=False)
    assert result.status == "mate" and replay_is_mate(sfen, result.pv)


# Game positions where the table's lengths (upper bounds) once gave a wrong answer;
# each length was confirmed by bench/make_tsume_suites.py with a full-width search and
# an explicit proof tree built with cshogi.
GAME_MATES = [
    # A1: the first proof is 25 plies, a mate in 17 exists (G*6b ...)
    ("lnk1s2+R1/2g1+L4/p1pp2+N2/4pp3/1r4P2/1G2PP3/P1PP4P/1BNS1S3/LN2KG3 b BGSL6P 71", 17),
    # B1: after 2a5a the defence G*6a holds out longest; the table's lengths said 13
    ("lnk1s2+R1/3g+L4/p1pp2+N2/4pp3/1r4P2/1G2PP3/P1PP4P/1BNS1S3/LN2KG3 b BSL6Pg 73", 15),
    # B2: after B*6c the defence 4b5b holds out longest (the table said 4a3b, 7 plies)
    ("1+L2bk2+P/1K3g3/psp3nn+P/+rp5n1/4G4/2l1P2P1/1P3PG1+p/4L1S1p/3P+p2G+r b B2SNL5P 173", 11),
]


@pytest.mark.parametrize("sfen,length", GAME_MATES)
def test_game_mates_have_the_shortest_length_against_the_longest_defence(sfen, length):
    s = MateSolver()
    s.set_hash(16)
    result = s.solve(Position(sfen), time_ms=30000)
    assert result.status == "mate" and len(result.pv) == length
    assert replay_is_mate(sfen, result.pv)


def test_a_tiny_table_still_gives_the_shortest_mate():
    # with 4 MB the bounded re-searches once livelocked: two siblings in one full
    # bucket evicted each other's results for ever (A2 of make_tsume_suites)
    sfen = "l3kp1+R+P/3rg4/ppBp4L/2p1p4/5gp2/P8/1P1G1S3/1B4K2/L8 b G2S2NL8Ps2n 137"
    s = MateSolver()
    s.set_hash(4)
    result = s.solve(Position(sfen), time_ms=30000)
    assert result.status == "mate" and len(result.pv) == 13


USELESS_BLOCK = "lns4+r1/1rgk+b4/pppp2+N2/4p4/9/3P5/PPPGPP3/LBNS1K3/1N4+l2 w GPg2sl6p 96"


def test_a_useless_interposition_is_not_counted(solver):
    # after 2a2h the block at 3h is simply taken and the mate goes on without the
    # piece: published lengths count the king's escape, 4h5i, instead
    result = solver.solve(Position(USELESS_BLOCK), time_ms=10000)
    assert result.usi() == "checkmate 2a2h 4h5i S*5h"


def test_strict_lengths_count_every_defence(solver):
    result = solver.solve(Position(USELESS_BLOCK), time_ms=10000, published=False)
    assert result.status == "mate" and len(result.pv) == 5
    assert replay_is_mate(USELESS_BLOCK, result.pv)


# Zuko 98 after 20 plies, two rooks against the king: 7d8d mates in 17 plies counted
# strictly, 1c1b in more, but of them 8 are blocks on the rook's rank that it takes
# and mates without (P*2b 1b2b, P*3b 2b3b, ...): 11 as published, the composer's line
TWO_ROOKS = "9/1k7/8R/2R6/9/9/9/9/9 b 2b4g4s4n4l18p 21"


def test_the_attacker_chooses_the_mate_shortest_as_published_through_nested_blocks(solver):
    result = solver.solve(Position(TWO_ROOKS), time_ms=30000)
    assert result.shortest and len(result.pv) == 11
    assert move_to_usi(result.pv[0]).startswith("1c1b")
    assert replay_is_mate(TWO_ROOKS, result.pv)


def test_strict_lengths_choose_the_mate_of_fewest_plies(solver):
    result = solver.solve(Position(TWO_ROOKS), time_ms=30000, published=False)
    assert result.shortest and len(result.pv) == 17
    assert move_to_usi(result.pv[0]) == "7d8d"


def test_a_solve_after_one_counted_the_other_way_reads_no_lengths_of_it(solver):
    solver.solve(Position(TWO_ROOKS), time_ms=30000)
    result = solver.solve(Position(TWO_ROOKS), time_ms=30000, published=False)
    assert result.shortest and len(result.pv) == 17


LONG_COMPOSITIONS = [         # (sfen, published length): solved well within 60 s here
    ("1l+PG1+P3/b1P1n4/9/1l1B1P2S/L2P2P2/3+pN2l1/3+ppp1kN/pP+psS4/3+rPg+p1+R b 2P2gsnp 1", 467),
    ("g3p3+r/3lPG3/1s4ppp/1l1B4P/L2b1kPl1/3+p3+R+p/3+p2+s1S/+NP+p1gS3/1g+p2P3 b 4P3n 1", 611),
    ("7g1/4Pgl+b1/2nn1s2+P/1+p+pS1+p1PP/+p+p+p2lk1+P/1+ppPpp3/ssPp4N/2NR1L3/2G3rLG b b 1", 587),
]


@pytest.mark.slow
@pytest.mark.parametrize("sfen,length", LONG_COMPOSITIONS)
def test_long_compositions_are_solved_with_a_verified_line(sfen, length):
    # Hashimoto 587 once stalled silently: proof-number sums saturated at INF
    s = MateSolver()
    s.set_hash(1024)
    result = s.solve(Position(sfen), time_ms=60000)
    assert result.status == "mate" and replay_is_mate(sfen, result.pv)
    assert abs(len(result.pv) - length) <= 4


def test_solve_accepts_every_keyword_of_its_type_stub(solver):
    import ast
    from pathlib import Path
    import usi_engine
    stub = ast.parse((Path(usi_engine.__file__).parent / "mate/solver.pyi").read_text())
    solve = next(node for node in ast.walk(stub)
                 if isinstance(node, ast.FunctionDef) and node.name == "solve")
    names = [a.arg for a in solve.args.args[2:]]
    defaults = {"time_ms": 1000, "nodes": 0, "on_info": None, "shortest": True,
                "clear_stop": True, "published": True, "upper_bound": False,
                "defender_first": False}
    assert names == list(defaults)
    result = solver.solve(Position(MATE_IN_1), **defaults)
    assert result.usi() == "checkmate G*5b"


# a mate first proved in 17 plies, then in 15, published 13
SHORTENED = "1l3B1k1/4+Rg1pn/pp1p1p3/2p1p3r/1N7/4P2SP/PP1P1PP2/3SN1G1L/L2GKG3 b BSN4Psl 107"


def test_the_solver_says_each_shorter_mate_it_proves_and_when_it_settles_the_defence(solver):
    notes = []
    result = solver.solve(Position(SHORTENED), time_ms=30000,
                          on_info=lambda info: notes.append(info["string"])
                          if "string" in info else None)
    found = [note for note in notes if note.endswith("found; looking for a shorter one")]
    assert result.status == "mate" and len(found) >= 2
    lengths = [int(note.split()[2]) for note in found]
    assert lengths == sorted(lengths, reverse=True) and lengths[0] > len(result.pv)
    assert notes[-1].startswith("settling the longest defence against the mate in")
