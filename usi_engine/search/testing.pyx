# cython: language_level=3
"""What the tests look at inside the search's C code: static exchange, a searched
table's entry, the staged picker's order.  Kept out of the Searcher so that its module
needs none of them; this module holds its own copy of the attack tables (each
extension does), filled at import.
"""
from libc.stdint cimport uint64_t

from usi_engine.core.position cimport Position, pos_copy, position_key
from usi_engine.core.tt cimport TTEntry, tt_probe
from usi_engine.core.see cimport see_ge, see_value
from usi_engine.core.bitboard cimport init_tables
from usi_engine.search.alphabeta cimport Context, value_from_tt
from usi_engine.search.threads cimport new_context, free_context
from usi_engine.search.history cimport NO_PIECE_TO, quiet_score
from usi_engine.search.move_picker cimport MovePicker, picker_init, next_move, is_quiet, move_key
from usi_engine.search.searcher cimport Searcher

init_tables()


def see_ge_of(Position position, int move, int threshold) -> bool:
    """Whether `move` wins at least `threshold` by static exchange (SEE's own
    values: `see_value_of`).

    >>> from usi_engine.core.position import Position
    >>> see_ge_of(Position(), Position().parse_usi("7g7f"), 0)
    True
    """
    return see_ge(&position.pos, move, threshold)


def see_value_of(int piece_type) -> int:
    """What static exchange counts a piece of this type (core/types.pxd) as."""
    if not 0 <= piece_type < 16:
        raise ValueError("piece type out of range: {}".format(piece_type))
    return see_value(piece_type)


def table_entry(Searcher searcher, Position position):
    """The table's entry for `position` after a search, as (move, value, depth,
    bound) with bound 1 upper, 2 lower, 3 exact; None where there is none.
    Values are as stored at ply 0 (a mate score counts from this position).

    >>> from usi_engine.core.position import Position
    >>> from usi_engine.search.searcher import Searcher
    >>> s = Searcher(); r = s.search(Position(), depth=4)
    >>> table_entry(s, Position())[0] == r.best
    True
    """
    cdef bint found
    cdef TTEntry te
    if searcher.tt.table == NULL:
        return None
    tt_probe(&searcher.tt, position_key(&position.pos), &found, &te)
    if not found:
        return None
    return (te.move, value_from_tt(te.value, 0), te.depth - 1, te.gen_bound & 3)


def picker_sequence(position, int quiet_limit, int seed=1, bint skip_quiets=False):
    """The moves of `position` (not in check) in the order the staged
    picker hands them out at an interior node with no TT move, after a butterfly
    history filled from `seed`, with the history score of each quiet move (None for
    the others).  skip_quiets: as the search sets it once move-count pruning starts,
    before the first move."""
    cdef Position pp = position
    cdef Context* c = new_context()
    cdef MovePicker mp
    cdef int m, side, f, t
    cdef uint64_t x = <uint64_t>seed * 0x9E3779B97F4A7C15ULL + 1
    if c == NULL:
        raise MemoryError()
    try:
        if pos_copy(&c.pos, &pp.pos) != 0:
            raise MemoryError()
        for side in range(2):
            for f in range(88):
                for t in range(81):
                    x ^= x << 13; x ^= x >> 7; x ^= x << 17
                    c.hist.butterfly[side][f][t] = <int>(x % 20001) - 10000
        c.move_keys[0] = NO_PIECE_TO
        picker_init(&mp, c, 0, 1, False, quiet_limit)
        mp.skip_quiets = skip_quiets
        order = []
        while True:
            m = next_move(&mp, c)
            if m == 0:
                break
            order.append((m, quiet_score(&c.hist, c.pos.side, m, move_key(&c.pos, m),
                                         NO_PIECE_TO, NO_PIECE_TO)
                          if is_quiet(&c.pos, m) else None))
        return order
    finally:
        free_context(c)
