"""The move-generator subsets, over the positions of the differential games
(tests/helpers/differential_corpus.py: same corpus, walked once with the differential checks)
and the sfen/perft.txt suite.

Each generator must be exactly its subset of legal_moves():
captures() = legal moves that capture or promote (every promotion variant),
quiets()   = legal moves that neither capture nor promote (all drops),
evasions() = every legal move when in check, nothing otherwise,
checks()   = legal moves that give check.
Which move captures, promotes or checks is decided with cshogi, not with our code.
is_legal(v) must agree with membership in legal_moves() for every 15-bit value v.
"""
from __future__ import annotations

import random
from collections import Counter

import cshogi                    # in the test extra: a missing cshogi fails, never skips
import pytest

from conftest import read_perft_suite
from differential_corpus import (CORPORA, NO_KING, At, CheckResult, Discrepancies,
                                 checked, corpus_check)
from usi_engine import Position, move_to_usi
from usi_engine.core.mate1 import find_mate_in_one, find_mate_in_one_near

PROMOTE = 1 << 14
ALL_MOVE_VALUES = range(1 << 15)            # to | from << 7 | promote << 14


def suite_positions():
    """[(name, ours, cshogi's)] for each position of sfen/perft.txt."""
    return [(name, Position(sfen), cshogi.Board(sfen)) for name, sfen, _ in read_perft_suite()]


def classified(at: At) -> dict:
    """{our move: (captures, promotes)} for the legal moves, as cshogi sees them."""
    cached = at.__dict__.get("_classified")
    if cached is None:
        cached = {}
        for usi_text, m in at.ours.items():
            cm = at.theirs.get(usi_text)
            assert cm is not None, f"{at.sfen}: {usi_text} is not legal for cshogi"
            cached[m] = (cshogi.move_cap(cm) != 0, bool(cshogi.move_is_promotion(cm)))
        at.__dict__["_classified"] = cached
    return cached


def generated(at: At, generator: str) -> list:
    """pos.<generator>() at this position, computed once."""
    key = "_gen_" + generator
    if key not in at.__dict__:
        at.__dict__[key] = at.legal if generator == "legal_moves" else getattr(at.pos, generator)()
    return at.__dict__[key]


def usi(moves):
    return sorted(move_to_usi(m) for m in moves)


def assert_clean(name: str, check) -> CheckResult:
    result = checked(name, check)
    assert not result.bad, result.bad.report()
    return result


# ---- the subsets ----------------------------------------------------------------------------
def _subset(at: At, r: CheckResult, generator: str, wanted) -> None:
    expected = {m for m, kind in classified(at).items() if wanted(*kind)}
    got = set(generated(at, generator))
    if got != expected:
        r.bad.add(f"{at.where}: {at.sfen}\n  extra: {usi(got - expected)}"
                  f"\n  missing: {usi(expected - got)}")


@corpus_check("captures() is not the legal moves it should be", suite=True)
def captures_subset(at: At, r: CheckResult) -> None:
    _subset(at, r, "captures", lambda capture, promote: capture or promote)


@pytest.mark.parametrize("name", CORPORA)
def test_captures_are_the_legal_moves_that_capture_or_promote(name):
    assert_clean(name, captures_subset)


@corpus_check("quiets() is not the legal moves it should be", suite=True)
def quiets_subset(at: At, r: CheckResult) -> None:
    _subset(at, r, "quiets", lambda capture, promote: not capture and not promote)


@pytest.mark.parametrize("name", CORPORA)
def test_quiets_are_the_legal_moves_that_neither_capture_nor_promote(name):
    assert_clean(name, quiets_subset)


@corpus_check("captures() and quiets() do not partition legal_moves()", suite=True)
def captures_and_quiets_partition(at: At, r: CheckResult) -> None:
    captures, quiets = set(generated(at, "captures")), set(generated(at, "quiets"))
    legal = set(at.legal)
    if captures & quiets or captures | quiets != legal:
        r.bad.add(f"{at.where}: {at.sfen} in both: {usi(captures & quiets)}, "
                  f"in neither: {usi(legal - captures - quiets)}, "
                  f"not legal: {usi((captures | quiets) - legal)}")


@pytest.mark.parametrize("name", CORPORA)
def test_captures_and_quiets_partition_the_legal_moves(name):
    assert_clean(name, captures_and_quiets_partition)


@corpus_check("a legal drop is missing from quiets() or present in captures()", suite=True)
def drops_are_quiet(at: At, r: CheckResult) -> None:
    drops = {m for u, m in at.ours.items() if "*" in u}
    r.counts["drops"] += len(drops)
    if not drops <= set(generated(at, "quiets")) or drops & set(generated(at, "captures")):
        r.bad.add(f"{at.where}: {at.sfen}")


@pytest.mark.parametrize("name", CORPORA)
def test_every_drop_is_a_quiet_move(name):
    assert assert_clean(name, drops_are_quiet).counts["drops"] > 100_000


@corpus_check("evasions() is wrong", suite=True)
def evasions_when_in_check(at: At, r: CheckResult) -> None:
    got = generated(at, "evasions")
    if at.in_check:
        r.counts["in check"] += 1
        if Counter(got) != Counter(at.legal):
            r.bad.add(f"{at.where}: in check {at.sfen}: evasions {usi(got)}, "
                      f"legal {usi(at.legal)}")
    elif got:
        r.bad.add(f"{at.where}: not in check {at.sfen}: evasions {usi(got)}")


@pytest.mark.parametrize("name", CORPORA)
def test_evasions_are_all_legal_moves_in_check_and_none_otherwise(name):
    assert assert_clean(name, evasions_when_in_check).counts["in check"] > 1_000


@corpus_check("checks() is not {legal moves that give check}", suite=True)
def checks_subset(at: At, r: CheckResult) -> None:
    expected = {m for u, m in at.ours.items() if u in at.checking}
    got = set(generated(at, "checks"))
    if got != expected:
        r.bad.add(f"{at.where}: {at.sfen}\n  extra: {usi(got - expected)}"
                  f"\n  missing: {usi(expected - got)}")


@pytest.mark.parametrize("name", CORPORA)
def test_checks_are_the_legal_moves_after_which_cshogi_sees_check(name):
    assert_clean(name, checks_subset)


@corpus_check("checks() disagrees with gives_check() or cshogi's check_moves", suite=True)
def checks_agree(at: At, r: CheckResult) -> None:
    got = set(generated(at, "checks"))
    by_gives_check = {m for m in at.legal if at.pos.gives_check(m)}
    # cshogi's check_moves is garbage when there is no king to check (tsume)
    board = at.board
    by_cshogi = ({cshogi.move_to_usi(m) for m in board.check_moves}
                 if board.king_square(board.turn ^ 1) != NO_KING else set())
    if got != by_gives_check or set(usi(got)) != by_cshogi:
        r.bad.add(f"{at.where}: {at.sfen} checks {usi(got)}, gives_check "
                  f"{usi(by_gives_check)}, cshogi {sorted(by_cshogi)}")


@pytest.mark.parametrize("name", CORPORA)
def test_checks_agree_with_gives_check_and_with_cshogi_check_moves(name):
    assert_clean(name, checks_agree)


@corpus_check("a generator lists a move twice", suite=True)
def no_generator_lists_twice(at: At, r: CheckResult) -> None:
    for generator in ("legal_moves", "captures", "quiets", "evasions", "checks"):
        moves = generated(at, generator)
        if len(moves) != len(set(moves)):
            twice = usi(m for m, n in Counter(moves).items() if n > 1)
            r.bad.add(f"{at.where}: {at.sfen} {generator}() twice: {twice}")


@pytest.mark.parametrize("name", CORPORA)
def test_no_generator_lists_a_move_twice(name):
    assert_clean(name, no_generator_lists_twice)


# ---- is_legal -------------------------------------------------------------------------------
@corpus_check("is_legal() rejects a generated move", suite=True)
def is_legal_accepts_generated(at: At, r: CheckResult) -> None:
    rejected = [m for m in at.legal if not at.pos.is_legal(m)]
    if rejected:
        r.bad.add(f"{at.where}: {at.sfen} rejects {usi(rejected)}")


@pytest.mark.parametrize("name", CORPORA)
def test_is_legal_accepts_every_generated_move(name):
    assert_clean(name, is_legal_accepts_generated)


@corpus_check("(never: collects positions for the is_legal sweep)")
def sweep_pools(at: At, r: CheckResult) -> None:
    if at.ply % 5:
        return
    hand = at.sfen.split()[2]
    kind = ("in check" if at.in_check else
            "big hand" if sum(c.isalpha() for c in hand) >= 8 else
            "promotion" if any(m & PROMOTE for m in at.legal) else "other")
    r.state.setdefault(kind, []).append((f"{at.where} ({kind})", at.sfen))


def _sweep_sfens(per_kind):
    rng = random.Random(2024)
    pools = checked("default", sweep_pools).state
    kinds = ("in check", "big hand", "promotion", "other")
    return [row for kind in kinds for row in rng.sample(pools[kind], per_kind)]


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


@corpus_check("parse_usi(move_to_usi(m)) != m", suite=True)
def usi_text_parses_back(at: At, r: CheckResult) -> None:
    r.counts["seen"] += 1
    if (r.counts["seen"] - 1) % 5:          # every fifth position is plenty here
        return
    wrong = [m for u, m in at.ours.items() if at.pos.parse_usi(u) != m]
    if wrong:
        r.bad.add(f"{at.where}: {at.sfen} {usi(wrong)}")


@pytest.mark.parametrize("name", CORPORA)
def test_usi_text_of_every_legal_move_parses_back_to_it(name):
    assert_clean(name, usi_text_parses_back)


@corpus_check("has_evasion() differs from bool(legal_moves())")
def has_evasion_agrees(at: At, r: CheckResult) -> None:
    if at.pos.is_check():
        r.counts["checked"] += 1
        if at.pos.has_evasion() != bool(at.legal):
            r.bad.add(f"{at.where}: {at.sfen}")


def test_has_evasion_agrees_with_the_legal_move_list():
    assert assert_clean("default", has_evasion_agrees).counts["checked"] > 5_000


@corpus_check("mate_in_one() misses a mate or returns a move that does not mate")
def mate_in_one_exact(at: At, r: CheckResult) -> None:
    if at.ply % 7 or at.pos.is_check():
        return
    pos = at.pos
    r.counts["tried"] += 1
    mating = [m for m in generated(at, "checks") if _mates(pos, m)]
    _judge_mate_finder(at, r, "mate_in_one", find_mate_in_one(pos), mating, mating)


def test_mate_in_one_finds_a_mate_exactly_when_one_exists():
    counts = assert_clean("default", mate_in_one_exact).counts
    assert counts["tried"] > 5_000 and counts["found"] > 100


# The checks from next to the king or a knight's jump away: (file, rank) steps from
# the checking piece's square to the king's, for black (white's ranks mirrored), by the
# type after the move.  A slider that close checks as a step would.
_GOLD = {(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (0, 1)}
_EIGHT = {(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1)} - {(0, 0)}
_NEAR_CHECK_STEPS = {
    1: {(0, -1)}, 2: {(0, -1)}, 3: {(1, -2), (-1, -2)},
    4: {(-1, -1), (0, -1), (1, -1), (-1, 1), (1, 1)}, 5: {(1, 1), (1, -1), (-1, 1), (-1, -1)},
    6: {(0, 1), (0, -1), (1, 0), (-1, 0)}, 7: _GOLD, 9: _GOLD, 10: _GOLD, 11: _GOLD, 12: _GOLD,
    13: _EIGHT, 14: _EIGHT,
}


def _checks_from_near(pos: Position, m: int) -> bool:
    """Does m check the king directly from next to it or from a knight's jump?"""
    to = m & 0x7F
    frm = (m >> 7) & 0x7F
    pt = frm - 80 if frm > 80 else pos.piece_at(frm) & 15
    if m & PROMOTE:
        pt += 8
    ek = pos.king_square(pos.turn ^ 1)
    df, dr = ek // 9 - to // 9, ek % 9 - to % 9
    return (df, dr if pos.turn == 0 else -dr) in _NEAR_CHECK_STEPS.get(pt, ())


@corpus_check("mate_in_one_near() misses a mate from near the king or returns no mate")
def mate_in_one_near_exact(at: At, r: CheckResult) -> None:
    if at.ply % 7 or at.pos.is_check() or at.pos.king_square(at.pos.turn ^ 1) < 0:
        return
    pos = at.pos
    r.counts["tried"] += 1
    mating = [m for m in generated(at, "checks") if _mates(pos, m)]
    near = [m for m in mating if _checks_from_near(pos, m)]
    _judge_mate_finder(at, r, "mate_in_one_near", find_mate_in_one_near(pos), mating, near)


def test_mate_in_one_near_finds_a_mate_exactly_when_a_near_one_exists():
    counts = assert_clean("default", mate_in_one_near_exact).counts
    assert counts["tried"] > 5_000 and counts["found"] > 100


def _judge_mate_finder(at: At, r: CheckResult, name: str, m: int, mating: list,
                       must_find: list) -> None:
    """m, what the mate finder returned, must be one of the mating moves when there is
    a mate it must find (must_find), and 0 otherwise (nor any move that fails to mate)."""
    if must_find:
        r.counts["found"] += 1
    if (m not in mating) if must_find else (m != 0):
        r.bad.add(f"{at.where}: {at.sfen} {name} {m}, must find one of {usi(must_find)}")


def _mates(pos, m):
    pos.push(m)
    mate = pos.is_checkmate()
    pos.pop()
    return mate
