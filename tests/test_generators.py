"""The move-generator subsets, over the positions of the differential games
(tests/test_differential.py: same corpus, same replay) and the sfen/perft.txt suite.

Each generator must be exactly its subset of legal_moves():
captures() = legal moves that capture or promote (every promotion variant),
quiets()   = legal moves that neither capture nor promote (all drops),
evasions() = every legal move when in check, nothing otherwise,
checks()   = legal moves that give check.
Which move captures, promotes or checks is decided with cshogi, not with our code.
is_legal(v) must agree with membership in legal_moves() for every 15-bit value v.
"""
from __future__ import annotations

import functools
import random
from collections import Counter

import pytest

cshogi = pytest.importorskip("cshogi")

from conftest import read_perft_suite  # noqa: E402
from test_differential import (CORPORA, NO_KING, Discrepancies,  # noqa: E402
                               cshogi_gives_check, cshogi_moves, corpus, walk)
from usi_engine import Position, move_to_usi  # noqa: E402

PROMOTE = 1 << 14
ALL_MOVE_VALUES = range(1 << 15)            # to | from << 7 | promote << 14


def suite_positions():
    """[(name, ours, cshogi's)] for each position of sfen/perft.txt."""
    return [(name, Position(sfen), cshogi.Board(sfen)) for name, sfen, _ in read_perft_suite()]


def positions(name):
    """(where, pos, board) for the perft suite and every ply of the named games."""
    for suite_name, pos, board in suite_positions():
        yield f"perft suite {suite_name!r}", pos, board
    for game, ply, pos, board in walk(corpus(name)):
        yield game.where(ply), pos, board


def classified(pos, board):
    """{our move: (captures, promotes)} for the legal moves, as cshogi sees them."""
    theirs = cshogi_moves(board)
    out = {}
    for m in pos.legal_moves():
        cm = theirs.get(move_to_usi(m))
        assert cm is not None, f"{pos.sfen()}: {move_to_usi(m)} is not legal for cshogi"
        out[m] = (cshogi.move_cap(cm) != 0, bool(cshogi.move_is_promotion(cm)))
    return out


def usi(moves):
    return sorted(move_to_usi(m) for m in moves)


# ---- the subsets ----------------------------------------------------------------------------
def assert_generator_is_the_subset(name, generator, wanted, what):
    """generator(pos) yields exactly the legal moves whose (capture, promote) pair
    satisfies wanted, at every position of the corpus."""
    bad = Discrepancies(f"{what} is not the legal moves it should be")
    for where, pos, board in positions(name):
        expected = {m for m, kind in classified(pos, board).items() if wanted(*kind)}
        got = set(generator(pos))
        if got != expected:
            bad.add(f"{where}: {pos.sfen()}\n  extra: {usi(got - expected)}"
                    f"\n  missing: {usi(expected - got)}")
    assert not bad, bad.report()


@pytest.mark.parametrize("name", CORPORA)
def test_captures_are_the_legal_moves_that_capture_or_promote(name):
    assert_generator_is_the_subset(name, lambda pos: pos.captures(),
                                   lambda capture, promote: capture or promote, "captures()")


@pytest.mark.parametrize("name", CORPORA)
def test_quiets_are_the_legal_moves_that_neither_capture_nor_promote(name):
    assert_generator_is_the_subset(name, lambda pos: pos.quiets(),
                                   lambda capture, promote: not capture and not promote,
                                   "quiets()")


@pytest.mark.parametrize("name", CORPORA)
def test_captures_and_quiets_partition_the_legal_moves(name):
    bad = Discrepancies("captures() and quiets() do not partition legal_moves()")
    for where, pos, _ in positions(name):
        captures, quiets, legal = set(pos.captures()), set(pos.quiets()), set(pos.legal_moves())
        if captures & quiets or captures | quiets != legal:
            bad.add(f"{where}: {pos.sfen()} in both: {usi(captures & quiets)}, "
                    f"in neither: {usi(legal - captures - quiets)}, "
                    f"not legal: {usi((captures | quiets) - legal)}")
    assert not bad, bad.report()


@pytest.mark.parametrize("name", CORPORA)
def test_every_drop_is_a_quiet_move(name):
    bad = Discrepancies("a legal drop is missing from quiets() or present in captures()")
    drops_seen = 0
    for where, pos, _ in positions(name):
        drops = {m for m in pos.legal_moves() if "*" in move_to_usi(m)}
        drops_seen += len(drops)
        if not drops <= set(pos.quiets()) or drops & set(pos.captures()):
            bad.add(f"{where}: {pos.sfen()}")
    assert not bad, bad.report()
    assert drops_seen > 100_000


@pytest.mark.parametrize("name", CORPORA)
def test_evasions_are_all_legal_moves_in_check_and_none_otherwise(name):
    bad = Discrepancies("evasions() is wrong")
    in_check = 0
    for where, pos, board in positions(name):
        got = pos.evasions()
        if board.is_check():
            in_check += 1
            if Counter(got) != Counter(pos.legal_moves()):
                bad.add(f"{where}: in check {pos.sfen()}: evasions {usi(got)}, "
                        f"legal {usi(pos.legal_moves())}")
        elif got:
            bad.add(f"{where}: not in check {pos.sfen()}: evasions {usi(got)}")
    assert not bad, bad.report()
    assert in_check > 1_000


@pytest.mark.parametrize("name", CORPORA)
def test_checks_are_the_legal_moves_after_which_cshogi_sees_check(name):
    bad = Discrepancies("checks() is not {legal moves that give check}")
    for where, pos, board in positions(name):
        theirs = cshogi_moves(board)
        expected = {m for m in pos.legal_moves()
                    if cshogi_gives_check(board, theirs[move_to_usi(m)])}
        got = set(pos.checks())
        if got != expected:
            bad.add(f"{where}: {pos.sfen()}\n  extra: {usi(got - expected)}"
                    f"\n  missing: {usi(expected - got)}")
    assert not bad, bad.report()


@pytest.mark.parametrize("name", CORPORA)
def test_checks_agree_with_gives_check_and_with_cshogi_check_moves(name):
    bad = Discrepancies("checks() disagrees with gives_check() or cshogi's check_moves")
    for where, pos, board in positions(name):
        got = set(pos.checks())
        by_gives_check = {m for m in pos.legal_moves() if pos.gives_check(m)}
        # cshogi's check_moves is garbage when there is no king to check (tsume)
        by_cshogi = ({cshogi.move_to_usi(m) for m in board.check_moves}
                     if board.king_square(board.turn ^ 1) != NO_KING else set())
        if got != by_gives_check or set(usi(got)) != by_cshogi:
            bad.add(f"{where}: {pos.sfen()} checks {usi(got)}, gives_check "
                    f"{usi(by_gives_check)}, cshogi {sorted(by_cshogi)}")
    assert not bad, bad.report()


@pytest.mark.parametrize("name", CORPORA)
def test_no_generator_lists_a_move_twice(name):
    bad = Discrepancies("a generator lists a move twice")
    for where, pos, _ in positions(name):
        for generator in ("legal_moves", "captures", "quiets", "evasions", "checks"):
            moves = getattr(pos, generator)()
            if len(moves) != len(set(moves)):
                twice = usi(m for m, n in Counter(moves).items() if n > 1)
                bad.add(f"{where}: {pos.sfen()} {generator}() twice: {twice}")
    assert not bad, bad.report()


# ---- is_legal -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", CORPORA)
def test_is_legal_accepts_every_generated_move(name):
    bad = Discrepancies("is_legal() rejects a generated move")
    for where, pos, _ in positions(name):
        rejected = [m for m in pos.legal_moves() if not pos.is_legal(m)]
        if rejected:
            bad.add(f"{where}: {pos.sfen()} rejects {usi(rejected)}")
    assert not bad, bad.report()


@functools.lru_cache(maxsize=None)
def _sweep_sfens(per_kind):
    rng = random.Random(2024)
    pools = {"in check": [], "big hand": [], "promotion": [], "other": []}
    for game, ply, pos, board in walk(corpus("default")):
        if ply % 5:
            continue
        hand = pos.sfen().split()[2]
        kind = ("in check" if board.is_check() else
                "big hand" if sum(c.isalpha() for c in hand) >= 8 else
                "promotion" if any(m & PROMOTE for m in pos.legal_moves()) else "other")
        pools[kind].append((f"{game.where(ply)} ({kind})", pos.sfen()))
    return [row for pool in pools.values() for row in rng.sample(pool, per_kind)]


def sweep_positions(per_kind=60):
    """Positions for the exhaustive is_legal sweep: the perft suite (pawn-drop mate, nifu,
    dead squares, pins, double check, 593 moves) and per_kind positions from the games of
    each kind: in check, big hands, promotions available, other."""
    chosen = [(f"perft suite {name!r}", pos) for name, pos, _ in suite_positions()]
    return chosen + [(where, Position(sfen)) for where, sfen in _sweep_sfens(per_kind)]


def test_is_legal_agrees_with_legal_moves_on_every_15_bit_value():
    bad = Discrepancies("is_legal(v) != (v in legal_moves())")
    positions_swept = sweep_positions()
    assert len(positions_swept) >= 60
    for where, pos in positions_swept:
        legal = set(pos.legal_moves())
        wrong = [v for v in ALL_MOVE_VALUES if pos.is_legal(v) != (v in legal)]
        if wrong:
            shown = [(v, move_to_usi(v) if v in legal else "illegal") for v in wrong[:10]]
            bad.add(f"{where}: {pos.sfen()}: {len(wrong)} values, e.g. "
                    f"(value, usi): {shown}")
    assert not bad, bad.report()


def test_is_legal_is_false_for_values_beyond_15_bits():
    for where, pos in sweep_positions(2):
        for m in pos.legal_moves()[:20]:
            for v in (m | 1 << 15, m + (1 << 16), m + (1 << 32), m + (1 << 64), -m):
                assert pos.is_legal(v) is False, (where, pos.sfen(), move_to_usi(m), v)
        for v in (0, -1, 1 << 15, 2**31 - 1, -2**31, 2**63, -2**63, 2**100):
            assert pos.is_legal(v) is False, (where, pos.sfen(), v)


def test_push_rejects_illegal_values_and_leaves_the_position_unchanged():
    rng = random.Random(7)
    for where, pos in sweep_positions(2):
        legal = set(pos.legal_moves())
        before = (pos.sfen(), pos.key, pos.history_length)
        for v in rng.sample([v for v in ALL_MOVE_VALUES if v not in legal], 300):
            with pytest.raises(ValueError):
                pos.push(v)
            assert (pos.sfen(), pos.key, pos.history_length) == before, (where, v)


@pytest.mark.parametrize("name", CORPORA)
def test_usi_text_of_every_legal_move_parses_back_to_it(name):
    bad = Discrepancies("parse_usi(move_to_usi(m)) != m")
    for i, (where, pos, _) in enumerate(positions(name)):
        if i % 5:                       # every fifth position is plenty here
            continue
        wrong = [m for m in pos.legal_moves() if pos.parse_usi(move_to_usi(m)) != m]
        if wrong:
            bad.add(f"{where}: {pos.sfen()} {usi(wrong)}")
    assert not bad, bad.report()


def test_has_evasion_agrees_with_the_legal_move_list():
    checked = 0
    for _game, _ply, pos, _board in walk(corpus("default")):
        if pos.is_check():
            assert pos.has_evasion() == bool(pos.legal_moves()), pos.sfen()
            checked += 1
    assert checked > 10_000


def test_mate_in_one_finds_a_mate_exactly_when_one_exists():
    tried = found = 0
    for _game, ply, pos, _board in walk(corpus("default")):
        if ply % 7 or pos.is_check():
            continue
        tried += 1
        mating = [m for m in pos.checks() if _mates(pos, m)]
        m = pos.mate_in_one()
        if mating:
            found += 1
            assert m in mating, pos.sfen()
        else:
            assert m == 0, pos.sfen()
    assert tried > 5_000 and found > 100


def _mates(pos, m):
    pos.push(m)
    mate = pos.is_checkmate()
    pos.pop()
    return mate
