# The root-move list of a Context: the moves the root searches (searchmoves, MultiPV
# exclusions), each with its last score and principal variation.  Inline helpers for
# search/alphabeta.pyx (they run once per root move, so they need no module of their own).
from libc.string cimport memcpy
from usi_engine.search.alphabeta cimport Context, RootMove, VALUE_INFINITE


cdef inline int root_moves_into(Context* c, int* moves) noexcept nogil:
    """At the root, search the root-move list (searchmoves, MultiPV exclusions) in
    its current order instead of the generated list."""
    cdef int i, k = 0
    for i in range(c.pv_index, c.root_count):
        moves[k] = c.root_moves[i].move
        k += 1
    return k


cdef inline void record_root_move(Context* c, int m, int v, int alpha, bint first) noexcept nogil:
    cdef int i
    cdef RootMove* rm
    for i in range(c.pv_index, c.root_count):
        rm = &c.root_moves[i]
        if rm.move != m:
            continue
        if first or v > alpha:
            rm.score = v
            rm.seldepth = c.seldepth
            rm.pv[0] = m
            rm.pv_length = 1
            if c.pv_length[1] > 0:
                memcpy(&rm.pv[1], &c.pv[1][0], c.pv_length[1] * sizeof(int))
                rm.pv_length = 1 + c.pv_length[1]
        else:
            rm.score = -VALUE_INFINITE
        return


cdef inline void sort_root_moves(Context* c, int start) noexcept nogil:
    """Stable insertion sort by score, best first."""
    cdef int i, j
    cdef RootMove tmp
    for i in range(start + 1, c.root_count):
        if c.root_moves[i].score <= c.root_moves[i - 1].score:
            continue
        memcpy(&tmp, &c.root_moves[i], sizeof(RootMove))
        j = i
        while j > start and c.root_moves[j - 1].score < tmp.score:
            memcpy(&c.root_moves[j], &c.root_moves[j - 1], sizeof(RootMove))
            j -= 1
        memcpy(&c.root_moves[j], &tmp, sizeof(RootMove))
