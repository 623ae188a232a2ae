# cython: language_level=3
"""Search contexts and lazy SMP: a context's allocation, the helpers' preparation from
the main context, and the iterative deepening over alphabeta.iterate that every search
thread runs, the main one and the helpers."""
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy

from usi_engine.core.types cimport *
from usi_engine.core.position cimport pos_copy, pos_free, pos_reserve
from usi_engine.core.control cimport ctl_clear_stop, ctl_start
from usi_engine.search.history cimport history_clear
from usi_engine.search.alphabeta cimport (Context, RootMove, MAX_PLY, MAX_ROOT_MOVES,
                                          VALUE_INFINITE, iterate, is_mate_score, mate_plies,
                                          default_params)


# Lazy SMP: helper threads search the same root on their own position, history and
# stack, sharing only the transposition table; they skip some depths (so that threads
# spread over depths) and are stopped when the main thread is done.
cdef int SKIP_SIZE[20]
cdef int SKIP_PHASE[20]
SKIP_SIZE[:] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]
SKIP_PHASE[:] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7]


cdef int deepen(Context* c, int thread_index, int max_depth, int multipv,
                IterationHook after, void* owner) noexcept nogil:
    """Iterative deepening of one search thread until it is stopped, reaches max_depth,
    or `after` says so; returns the last completed depth.

    The main thread (thread_index 0) searches every depth and calls `after` (with the
    GIL) after each iteration, or with ITERATION_CUT when the stop came in the middle
    of one: the Searcher reports, decides on time and keeps what the cut-off iteration
    proved.  A lazy-SMP helper (thread_index 1..) skips some depths, so that threads
    spread over depths, reports nothing and ends at a mate its iteration proved."""
    cdef int d, previous_best
    cdef int k = (thread_index - 1) % 20
    c.completed_depth = 0
    for d in range(1, max_depth + 1):
        if thread_index and d > 1 and ((d + SKIP_PHASE[k]) // SKIP_SIZE[k]) % 2:
            continue
        c.current_depth = d
        previous_best = c.root_moves[0].move
        iterate(c, d, multipv)
        # (the main thread keeps a first iteration cut off: it still names a move)
        if c.ctl.aborted and (d > 1 or after == NULL):
            if after != NULL:
                after(owner, d, ITERATION_CUT, previous_best)
            break
        c.completed_depth = d
        memcpy(&c.best_line, &c.root_moves[0], sizeof(RootMove))
        if after != NULL:
            if after(owner, d, ITERATION_DONE, previous_best):
                break
        elif is_mate_score(c.best_line.score) and mate_plies(c.best_line.score) <= d:
            break
    return c.completed_depth


cdef Context* new_context() noexcept nogil:
    cdef Context* c = <Context*>calloc(1, sizeof(Context))
    if c == NULL:
        return NULL
    c.root_moves = <RootMove*>calloc(MAX_ROOT_MOVES, sizeof(RootMove))
    if c.root_moves == NULL:
        free(c)
        return NULL
    default_params(c)
    return c


cdef void free_context(Context* c) noexcept nogil:
    if c != NULL:
        pos_free(&c.pos)
        free(c.root_moves)
        free(c)


cdef void forget_history(Context* c) noexcept nogil:
    history_clear(&c.hist)


cdef int prepare_helper(Context* h, const Context* main) noexcept nogil:
    """Give helper h the main context's root, root moves, table, evaluation, search
    parameters and rules; its own
    stop flag (cleared), no deadline (the main thread stops it), no reports."""
    if pos_copy(&h.pos, &main.pos) != 0 or not pos_reserve(&h.pos, MAX_PLY + 16):
        return -1
    h.root_count = main.root_count
    memcpy(h.root_moves, main.root_moves, main.root_count * sizeof(RootMove))
    h.tt = main.tt
    h.kp_net = main.kp_net
    memcpy(h.param, main.param, sizeof(h.param))
    memcpy(h.lmr_table, main.lmr_table, sizeof(h.lmr_table))
    h.root_sp = main.root_sp
    memcpy(h.game_boards, main.game_boards, sizeof(h.game_boards))
    h.max_game_ply = main.max_game_ply
    h.entering_king_rule = main.entering_king_rule
    h.draw_value[0] = main.draw_value[0]
    h.draw_value[1] = main.draw_value[1]
    h.report_bounds = False
    h.bound = 0
    h.seldepth = 0
    h.pv_index = 0
    h.completed_depth = 0
    h.best_line.score = -VALUE_INFINITE
    h.ctl.report = NULL
    h.ctl.owner = NULL
    h.ctl.hard_deadline = 0
    h.ctl.soft_deadline = 0
    ctl_clear_stop(&h.ctl)
    ctl_start(&h.ctl, 0, False)
    return 0
