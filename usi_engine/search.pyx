# cython: language_level=3
"""Iterative-deepening principal variation search.

The tree search is C code that runs without the GIL.  Through `control` it polls the
stop flag and the deadlines (written by the protocol thread through `stop()` and
`set_deadlines()`) every 1024 nodes, and takes the GIL only to report progress (at
the end of each iteration and about every 500 ms) and, on the main thread, to let
Ctrl-C through.

Techniques: aspiration windows, PVS, a transposition table, null-move pruning,
reverse futility pruning, late-move reductions, check extension, quiescence on
captures and promotions (all evasions when in check), move ordering by TT move,
MVV-LVA, killers and history; mate scores in plies; repetition (draw, or a loss for
the side that checked throughout), the entering-king declaration and a maximum game
length as terminal rules.

    >>> from usi_engine.position import Position
    >>> r = Searcher().search(Position(), depth=4)
    >>> r.depth, r.best != 0
    (4, True)
"""
import threading

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset
from libc.math cimport log

from usi_engine.types cimport *
from usi_engine.bitboard cimport *
from usi_engine.position cimport (Pos, Position, StateInfo, state, in_check, position_key,
                                  is_attacked,
                                  pos_do_move, pos_undo_move, pos_do_null, pos_undo_null,
                                  pos_repetition, pos_declaration_win, pos_copy, pos_free,
                                  pos_reserve, REPETITION_DRAW, REPETITION_WIN,
                                  REPETITION_LOSE)
from usi_engine.movegen cimport GEN_LEGAL, GEN_CAPTURES, generate, gives_check, mate_in_one
from usi_engine.evaluate cimport evaluate, piece_value
from usi_engine.see cimport see_ge, see_value
from usi_engine.history cimport (History, NO_PIECE_TO, piece_to, history_clear, quiet_score,
                                 history_cutoff)
from usi_engine.tt cimport (TT, TTEntry, BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT,
                            HashMemory, WRITER_SEARCH, WRITER_MATE, tt_attach, tt_new_game,
                            tt_new_search, tt_probe, tt_store, tt_hashfull)

from usi_engine.atomics cimport atomic_load_int, atomic_load_i64, atomic_store_i64, monotonic_ns
from usi_engine.control cimport (Control, ctl_count, ctl_stop, ctl_clear_stop, ctl_start,
                                 ctl_deadline_after, ctl_raise_pending, ctl_elapsed_ms)

init_tables()

cdef enum:
    MAX_PLY = 128
    MAX_ROOT_MOVES = MAX_MOVES
    VALUE_INFINITE = 32001
    VALUE_MATE = 32000
    VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY
    VALUE_NONE = 32002
    QSEARCH_MAX_PLIES = 16
    MATE1_MIN_DEPTH = 1      # nodes at least this deep look for a mate in one first
    NO_DEADLINE = 0

# Late-move reductions grow with the log of the depth and of the move number (as in
# Stockfish-family searches): in shogi the quiet tail, drops included, is long.
cdef int LMR_TABLE[64][64]


cdef void _init_reductions() noexcept nogil:
    cdef int d, m
    for d in range(64):
        for m in range(64):
            LMR_TABLE[d][m] = 0 if d == 0 or m == 0 else <int>(0.4 + log(d) * log(m) / 1.9)


_init_reductions()


cdef struct RootMove:
    int move
    int score
    int previous_score
    int seldepth
    int pv_length
    int pv[MAX_PLY]


cdef struct Context:
    Pos pos
    RootMove best_line            # root_moves[0] after the last completed iteration
    int completed_depth
    TT* tt
    int root_sp
    int max_game_ply
    bint entering_king_rule
    int seldepth
    Control ctl                   # nodes, limits, stop, deadlines, Ctrl-C, progress
    int current_depth
    History hist                  # killers, butterfly, counter-move, continuation
    int move_keys[MAX_PLY + 2]    # piece-to of the move made at each ply (NO_PIECE_TO: null)
    int static_evals[MAX_PLY + 2]   # per ply, -VALUE_INFINITE when in check
    int pv[MAX_PLY][MAX_PLY]
    int pv_length[MAX_PLY]
    RootMove* root_moves
    int root_count
    int pv_index


cdef inline int mate_in(int ply) noexcept nogil:
    return VALUE_MATE - ply


cdef inline int mated_in(int ply) noexcept nogil:
    return -VALUE_MATE + ply


cdef inline int value_to_tt(int v, int ply) noexcept nogil:
    """Mate scores are stored relative to the node, not the root."""
    if v >= VALUE_MATE_IN_MAX_PLY:
        return v + ply
    if v <= -VALUE_MATE_IN_MAX_PLY:
        return v - ply
    return v


cdef inline int value_from_tt(int v, int ply) noexcept nogil:
    if v >= VALUE_MATE_IN_MAX_PLY:
        return v - ply
    if v <= -VALUE_MATE_IN_MAX_PLY:
        return v + ply
    return v


cdef void _report_progress(void* owner) noexcept with gil:
    try:
        (<Searcher>owner)._emit_progress()
    except BaseException:
        pass   # a broken callback must not kill the search


cdef inline int captured_type(const Pos* p, int m) noexcept nogil:
    if move_is_drop(m):
        return EMPTY
    return piece_type(p.board[move_to(m)])


cdef inline int moved_type(const Pos* p, int m) noexcept nogil:
    if move_is_drop(m):
        return move_dropped_type(m)
    return piece_type(p.board[move_from(m)])


cdef inline bint is_quiet(const Pos* p, int m) noexcept nogil:
    return captured_type(p, m) == EMPTY and not move_is_promotion(m)


cdef void score_moves(Context* c, const int* moves, int* scores, int n, int tt_move,
                      int ply, bint sort_by_see) noexcept nogil:
    """Order keys: TT move, captures and promotions (most valuable victim, least
    valuable attacker; with sort_by_see, those that lose material after the quiet
    moves), killers, then quiet moves by history."""
    cdef const Pos* p = &c.pos
    cdef int i, m, victim, promo_gain
    cdef int prev1 = c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO
    cdef int prev2 = c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO
    cdef int counter = c.hist.counter[prev1] if prev1 >= 0 else 0
    for i in range(n):
        m = moves[i]
        if m == tt_move:
            scores[i] = 1 << 30
            continue
        victim = captured_type(p, m)
        promo_gain = 0
        if move_is_promotion(m):
            promo_gain = see_value(moved_type(p, m) + PROMOTED) - see_value(moved_type(p, m))
        if victim != EMPTY or promo_gain:
            scores[i] = 16 * (see_value(victim) + promo_gain) - see_value(moved_type(p, m)) // 8
            scores[i] += (1 << 24) if not sort_by_see or see_ge(p, m, 0) else -(1 << 22)
        elif m == c.hist.killers[ply][0]:
            scores[i] = (1 << 23) + 2
        elif m == c.hist.killers[ply][1]:
            scores[i] = (1 << 23) + 1
        elif m == counter:
            scores[i] = 1 << 23
        else:
            scores[i] = quiet_score(&c.hist, p.side, m, move_key(p, m), prev1, prev2)


cdef inline int pick_best(int* moves, int* scores, int start, int n) noexcept nogil:
    """Selection sort step: bring the best remaining move to `start`."""
    cdef int best = start
    cdef int i, t
    for i in range(start + 1, n):
        if scores[i] > scores[best]:
            best = i
    if best != start:
        t = moves[start]; moves[start] = moves[best]; moves[best] = t
        t = scores[start]; scores[start] = scores[best]; scores[best] = t
    return moves[start]


cdef inline void update_pv(Context* c, int ply, int m) noexcept nogil:
    cdef int n = c.pv_length[ply + 1]
    c.pv[ply][0] = m
    if n > 0:
        memcpy(&c.pv[ply][1], &c.pv[ply + 1][0], n * sizeof(int))
    c.pv_length[ply] = n + 1


cdef inline int move_key(const Pos* p, int m) noexcept nogil:
    """The continuation-history index of m: the moved piece as it stands after m, and
    where it goes."""
    cdef int pt = moved_type(p, m)
    if move_is_promotion(m):
        pt += PROMOTED
    return piece_to(pt, move_to(m))


cdef inline int terminal_value(Context* c, int ply, bint* done) noexcept nogil:
    """Game-rule outcomes at an interior node: repetition, declaration, move limit."""
    cdef Pos* p = &c.pos
    cdef int rep = pos_repetition(p, p.sp)
    done[0] = True
    if rep == REPETITION_DRAW:
        return 0
    if rep == REPETITION_WIN:
        return mate_in(ply)
    if rep == REPETITION_LOSE:
        return mated_in(ply)
    if c.entering_king_rule and pos_declaration_win(p):
        return mate_in(ply)
    if c.max_game_ply and p.game_ply > c.max_game_ply:
        return 0
    done[0] = False
    return 0


cdef inline bint _safe_square(const Pos* p, int m) noexcept nogil:
    """The moved or dropped piece does not stand where the opponent can take it."""
    cdef bb_t occ = p.occupied | bb_square(move_to(m))
    if not move_is_drop(m):
        occ ^= bb_square(move_from(m))
    return not is_attacked(p, p.side ^ 1, move_to(m), occ)


cdef int qsearch(Context* c, int alpha, int beta, int ply, int qply) noexcept nogil:
    cdef Pos* p = &c.pos
    cdef int moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int n, i, m, v, best, stand_pat, victim
    cdef bint checked = in_check(p)
    cdef bint found
    cdef TTEntry* e
    cdef TTEntry te
    cdef int tt_move = 0
    cdef int old_alpha = alpha
    cdef int best_move = 0
    cdef uint64_t key = position_key(p)
    ctl_count(&c.ctl)
    c.pv_length[ply] = 0
    if c.ctl.aborted:
        return 0
    if ply > c.seldepth:
        c.seldepth = ply
    if ply >= MAX_PLY - 1:
        return evaluate(p)
    e = tt_probe(c.tt, key, &found, &te)
    if found:
        tt_move = te.move
        v = value_from_tt(te.value, ply)
        if ((te.gen_bound & 3) == BOUND_EXACT or ((te.gen_bound & 3) == BOUND_LOWER and v >= beta)
                or ((te.gen_bound & 3) == BOUND_UPPER and v <= alpha)):
            return v
    if checked:
        n = generate(p, moves, GEN_LEGAL)
        if n == 0:
            return mated_in(ply)
        if qply >= QSEARCH_MAX_PLIES:
            return evaluate(p)
        best = -VALUE_INFINITE
        stand_pat = -VALUE_INFINITE
    else:
        stand_pat = evaluate(p)
        if stand_pat >= beta or qply >= QSEARCH_MAX_PLIES:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best = stand_pat
        n = generate(p, moves, GEN_CAPTURES)
    # quiescence tests SEE only on the moves it gets to (most are cut off first)
    score_moves(c, moves, scores, n, tt_move, ply, False)
    for i in range(n):
        m = pick_best(moves, scores, i, n)
        if not checked:
            victim = captured_type(p, m)
            # quiet promotions: only the pawn's (a silver or a lance gains little, and
            # a bishop or rook promotes at leisure); the rest belong to the main search
            if victim == EMPTY and moved_type(p, m) != PAWN:
                continue
            # delta pruning: even winning the piece cannot lift us to alpha
            if stand_pat + piece_value(victim) + 200 < alpha and not move_is_promotion(m):
                continue
            # a capture that gives up more than it wins
            if not see_ge(p, m, 0):
                continue
        pos_do_move(p, m)
        v = -qsearch(c, -beta, -alpha, ply + 1, qply + 1)
        pos_undo_move(p)
        if c.ctl.aborted:
            return 0
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                best_move = m
                update_pv(c, ply, m)
                if v >= beta:
                    break
    tt_store(c.tt, e, key, value_to_tt(best, ply),
             BOUND_LOWER if best >= beta else (BOUND_EXACT if best > old_alpha else BOUND_UPPER),
             0, best_move, stand_pat if stand_pat > -VALUE_INFINITE else 0)
    return best


cdef int search(Context* c, int depth, int alpha, int beta, int ply, bint pv_node,
                bint null_ok) noexcept nogil:
    cdef Pos* p = &c.pos
    cdef int moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int quiets_tried[64]
    cdef int quiet_keys[64]
    cdef int prev1, prev2, mkey
    cdef int n_quiets = 0
    cdef int n, i, m, v, best, best_move = 0, tt_move = 0, tt_value = VALUE_NONE
    cdef int static_eval, new_depth, reduction, searched = 0, bound
    cdef int old_alpha = alpha
    cdef bint checked, found, done, quiet, check_given, improving
    cdef TTEntry* e
    cdef TTEntry te
    cdef uint64_t key

    if depth <= 0:
        return qsearch(c, alpha, beta, ply, 0)
    ctl_count(&c.ctl)
    c.pv_length[ply] = 0
    if c.ctl.aborted:
        return 0
    if ply > c.seldepth:
        c.seldepth = ply
    if ply > 0:
        v = terminal_value(c, ply, &done)
        if done:
            return v
        # mate distance pruning
        if alpha < mated_in(ply):
            alpha = mated_in(ply)
        if beta > mate_in(ply + 1):
            beta = mate_in(ply + 1)
        if alpha >= beta:
            return alpha
    if ply >= MAX_PLY - 1:
        return evaluate(p)

    key = position_key(p)
    e = tt_probe(c.tt, key, &found, &te)
    if found:
        tt_move = te.move
        tt_value = value_from_tt(te.value, ply)
        if not pv_node and te.depth - 1 >= depth:
            bound = te.gen_bound & 3
            if (bound == BOUND_EXACT or (bound == BOUND_LOWER and tt_value >= beta)
                    or (bound == BOUND_UPPER and tt_value <= alpha)):
                return tt_value

    checked = in_check(p)
    static_eval = -VALUE_INFINITE if checked else (te.eval if found else evaluate(p))
    c.static_evals[ply] = static_eval
    # improving: the static score rose since our previous move (or cannot be compared)
    improving = not checked and (ply < 2 or c.static_evals[ply - 2] == -VALUE_INFINITE
                                 or static_eval > c.static_evals[ply - 2])

    if not pv_node and not checked and abs(beta) < VALUE_MATE_IN_MAX_PLY:
        # reverse futility: far above beta near the leaves
        if depth <= 5 and static_eval - 150 * depth >= beta:
            return static_eval
        # null move: if passing still beats beta, a real move will too
        if null_ok and depth >= 3 and static_eval >= beta:
            reduction = 3 + depth // 3 + min((static_eval - beta) // 200, 3)
            c.move_keys[ply] = NO_PIECE_TO
            pos_do_null(p)
            v = -search(c, depth - 1 - reduction, -beta, -beta + 1, ply + 1, False, False)
            pos_undo_null(p)
            if c.ctl.aborted:
                return 0
            if v >= beta:
                return beta if v >= VALUE_MATE_IN_MAX_PLY else v

    if ply and not checked and depth >= MATE1_MIN_DEPTH:
        # a mate in one ends the search of this node with its exact value
        m = mate_in_one(p)
        if m:
            v = mate_in(ply + 1)
            c.pv[ply][0] = m
            c.pv_length[ply] = 1
            tt_store(c.tt, e, key, value_to_tt(v, ply), BOUND_EXACT, depth, m, static_eval)
            return v
    n = generate(p, moves, GEN_LEGAL)
    if n == 0:
        return mated_in(ply)
    prev1 = c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO
    prev2 = c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO
    if ply == 0:
        n = _root_moves_into(c, moves)
    score_moves(c, moves, scores, n, tt_move, ply, True)
    best = -VALUE_INFINITE
    for i in range(n):
        m = pick_best(moves, scores, i, n) if ply else moves[i]
        quiet = is_quiet(p, m)
        check_given = gives_check(p, m)
        if (ply and not pv_node and not checked and not check_given
                and best > -VALUE_MATE_IN_MAX_PLY and _prune_move(c, m, quiet, depth, searched,
                                                                 ply, alpha, static_eval,
                                                                 improving)):
            continue
        new_depth = depth - 1
        reduction = 0
        if depth >= 3 and searched >= 1 + 2 * pv_node and quiet and not checked and not check_given:
            reduction = _late_move_reduction(c, m, depth, searched, ply, pv_node, improving)
            if reduction > new_depth - 1:
                reduction = new_depth - 1
        mkey = move_key(p, m)
        c.move_keys[ply] = mkey
        pos_do_move(p, m)
        if searched == 0:
            v = -search(c, new_depth, -beta, -alpha, ply + 1, pv_node, True)
        else:
            v = -search(c, new_depth - reduction, -alpha - 1, -alpha, ply + 1, False, True)
            if v > alpha and reduction:
                v = -search(c, new_depth, -alpha - 1, -alpha, ply + 1, False, True)
            if v > alpha and pv_node and v < beta:
                v = -search(c, new_depth, -beta, -alpha, ply + 1, True, True)
        pos_undo_move(p)
        if c.ctl.aborted:
            return 0
        searched += 1
        if ply == 0:
            _record_root_move(c, m, v, alpha, searched == 1)
        if v > best:
            best = v
            if v > alpha:
                best_move = m
                alpha = v
                update_pv(c, ply, m)
                if v >= beta:
                    if quiet:
                        history_cutoff(&c.hist, p.side, m, mkey, prev1, prev2, ply, depth,
                                       quiets_tried, quiet_keys, n_quiets)
                    break
        if quiet and n_quiets < 64:
            quiets_tried[n_quiets] = m
            quiet_keys[n_quiets] = mkey
            n_quiets += 1

    if best >= beta:
        bound = BOUND_LOWER
    elif pv_node and best > old_alpha:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    tt_store(c.tt, e, key, value_to_tt(best, ply), bound, depth, best_move,
             static_eval if static_eval > -VALUE_INFINITE else 0)
    return best


cdef inline bint _prune_move(Context* c, int m, bint quiet, int depth, int searched, int ply,
                             int alpha, int static_eval, bint improving) noexcept nogil:
    """Moves not worth searching near the leaves of a non-PV node (not in check, not
    giving check, once a move has kept us from being mated): late quiet moves, quiet
    moves that cannot lift the static score to alpha, that lose material on their
    square or that have a bad history, and captures that lose clearly."""
    cdef const Pos* p = &c.pos
    cdef int lmr_depth
    if not quiet:
        return depth <= 6 and not see_ge(p, m, -150 * depth)
    # drops make the quiet tail of the list very long
    if depth <= 7 and searched >= (3 + depth * depth) * (1 + improving):
        return True
    lmr_depth = depth - 1 - LMR_TABLE[depth if depth < 64 else 63][searched + 1 if searched < 63 else 63]
    if lmr_depth < 0:
        lmr_depth = 0
    if lmr_depth <= 6 and static_eval + 150 + 120 * lmr_depth <= alpha:
        return True
    if lmr_depth <= 2 and quiet_score(&c.hist, p.side, m, move_key(p, m),
                                      c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO,
                                      c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO) < -4000 * depth:
        return True
    return lmr_depth <= 6 and not see_ge(p, m, -40 * lmr_depth * lmr_depth)


cdef inline int _late_move_reduction(Context* c, int m, int depth, int searched, int ply,
                                     bint pv_node, bint improving) noexcept nogil:
    """Plies taken off a late quiet move: more the later and deeper, less in PV nodes,
    for killers and for moves with a good history; never negative."""
    cdef int r = LMR_TABLE[depth if depth < 64 else 63][searched + 1 if searched < 63 else 63]
    r += (not improving) - pv_node
    if m == c.hist.killers[ply][0] or m == c.hist.killers[ply][1]:
        r -= 1
    r -= quiet_score(&c.hist, c.pos.side, m, move_key(&c.pos, m),
                     c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO,
                     c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO) // 10000
    return r if r > 0 else 0


cdef void iterate(Context* c, int depth, int multipv) noexcept nogil:
    """One iteration of iterative deepening, every MultiPV line, with aspiration."""
    cdef int k, v, alpha, beta, delta, prev
    for k in range(c.root_count):
        c.root_moves[k].previous_score = c.root_moves[k].score
    for k in range(multipv):
        c.pv_index = k
        prev = c.root_moves[k].previous_score
        delta = 40
        if depth >= 4 and abs(prev) < VALUE_MATE_IN_MAX_PLY:
            alpha = max(prev - delta, -VALUE_INFINITE)
            beta = min(prev + delta, VALUE_INFINITE)
        else:
            alpha = -VALUE_INFINITE
            beta = VALUE_INFINITE
        while True:
            c.seldepth = 0
            v = search(c, depth, alpha, beta, 0, True, False)
            _sort_root_moves(c, k)
            if c.ctl.aborted:
                return
            if v <= alpha:
                beta = (alpha + beta) // 2
                alpha = max(v - delta, -VALUE_INFINITE)
            elif v >= beta:
                beta = min(v + delta, VALUE_INFINITE)
            else:
                break
            delta += delta // 2 + 20
        _sort_root_moves(c, 0)


# Lazy SMP: helper threads search the same root on their own position, history and
# stack, sharing only the transposition table; they skip some depths (so that threads
# spread over depths) and are stopped when the main thread is done.
cdef int SKIP_SIZE[20]
cdef int SKIP_PHASE[20]
SKIP_SIZE[:] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]
SKIP_PHASE[:] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7]


cdef void helper_search(Context* c, int index, int max_depth) noexcept nogil:
    """Iterative deepening of helper thread `index` (1..) until stopped or max_depth."""
    cdef int d, k = (index - 1) % 20
    c.completed_depth = 0
    for d in range(1, max_depth + 1):
        if d > 1 and ((d + SKIP_PHASE[k]) // SKIP_SIZE[k]) % 2:
            continue
        c.current_depth = d
        iterate(c, d, 1)
        if c.ctl.aborted:
            return
        c.completed_depth = d
        memcpy(&c.best_line, &c.root_moves[0], sizeof(RootMove))
        if abs(c.best_line.score) >= VALUE_MATE_IN_MAX_PLY and VALUE_MATE - abs(c.best_line.score) <= d:
            return


cdef Context* _new_context() noexcept nogil:
    cdef Context* c = <Context*>calloc(1, sizeof(Context))
    if c == NULL:
        return NULL
    c.root_moves = <RootMove*>calloc(MAX_ROOT_MOVES, sizeof(RootMove))
    if c.root_moves == NULL:
        free(c)
        return NULL
    return c


cdef void _free_context(Context* c) noexcept nogil:
    if c != NULL:
        pos_free(&c.pos)
        free(c.root_moves)
        free(c)


cdef void _forget_history(Context* c) noexcept nogil:
    history_clear(&c.hist)


cdef int _prepare_helper(Context* h, const Context* main) noexcept nogil:
    """Give helper h the main context's root, root moves, table and rules; its own
    stop flag (cleared), no deadline (the main thread stops it), no reports."""
    if pos_copy(&h.pos, &main.pos) != 0 or not pos_reserve(&h.pos, MAX_PLY + 16):
        return -1
    h.root_count = main.root_count
    memcpy(h.root_moves, main.root_moves, main.root_count * sizeof(RootMove))
    h.tt = main.tt
    h.root_sp = main.root_sp
    h.max_game_ply = main.max_game_ply
    h.entering_king_rule = main.entering_king_rule
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


cdef int _root_moves_into(Context* c, int* moves) noexcept nogil:
    """At the root, search the root-move list (searchmoves, MultiPV exclusions) in
    its current order instead of the generated list."""
    cdef int i, k = 0
    for i in range(c.pv_index, c.root_count):
        moves[k] = c.root_moves[i].move
        k += 1
    return k


cdef void _record_root_move(Context* c, int m, int v, int alpha, bint first) noexcept nogil:
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


cdef void _sort_root_moves(Context* c, int start) noexcept nogil:
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


class SearchResult:
    """Outcome of `Searcher.search`: best and ponder moves (0 when none), score from the
    side to move's view (score_mate in plies when a mate was found, else None), depth
    reached, node count, time, principal variation."""
    __slots__ = ("best", "ponder", "score_cp", "score_mate", "depth", "seldepth", "nodes",
                 "time_ms", "pv")

    def __init__(self, best=0, ponder=0, score_cp=0, score_mate=None, depth=0, seldepth=0,
                 nodes=0, time_ms=0, pv=()):
        self.best, self.ponder, self.score_cp, self.score_mate = best, ponder, score_cp, score_mate
        self.depth, self.seldepth, self.nodes, self.time_ms = depth, seldepth, nodes, time_ms
        self.pv = list(pv)

    def __repr__(self):
        return ("SearchResult(best={0.best}, score_cp={0.score_cp}, score_mate={0.score_mate}, "
                "depth={0.depth}, nodes={0.nodes})".format(self))


def _score_fields(int v) -> dict:
    if v >= VALUE_MATE_IN_MAX_PLY:
        return {"score_mate": VALUE_MATE - v}
    if v <= -VALUE_MATE_IN_MAX_PLY:
        return {"score_mate": -(VALUE_MATE + v)}
    return {"score_cp": v}


cdef class Searcher:
    """Owns the table memory (USI_Hash), the transposition table and histories; runs
    one search at a time.

    `search` blocks the calling thread (with the GIL released inside); `stop` and
    `set_deadlines` may be called from any other thread meanwhile; Ctrl-C on the main
    thread interrupts it (KeyboardInterrupt).  The memory is one block: the table
    uses it all but a slice (1/8, at most 16 MB) kept for the mate probe, and the
    tsume solver of `mate_solver()` (`go mate`) works inside the whole of it.
    """
    cdef TT tt
    cdef HashMemory memory
    cdef Context* ctx
    cdef Context** helpers        # threads - 1 helper contexts (lazy SMP)
    cdef int n_helpers
    cdef list helper_threads      # the running helpers' Python threads
    cdef int active_helpers       # helpers that took part in the last search
    cdef object on_info
    cdef int multipv
    cdef bint searching
    cdef list completed_lines     # [(move, score, seldepth, pv)] of the last whole iteration
    cdef object solver            # the df-pn solver inside this memory, built on first use
    cdef bint probing             # the solver is running the root mate probe

    def __cinit__(self):
        memset(&self.tt, 0, sizeof(TT))
        self.ctx = _new_context()
        if self.ctx == NULL:
            raise MemoryError()
        self.ctx.ctl.owner = <void*>self
        self.ctx.ctl.report = _report_progress
        self.helper_threads = []

    def __dealloc__(self):
        _free_context(self.ctx)
        self._free_helpers()

    cdef void _free_helpers(self):
        cdef int i
        if self.helpers != NULL:
            for i in range(self.n_helpers):
                _free_context(self.helpers[i])
            free(self.helpers)
        self.helpers = NULL
        self.n_helpers = 0

    @property
    def threads(self) -> int:
        """Search threads: the main one and threads - 1 helpers (lazy SMP)."""
        return 1 + self.n_helpers

    def set_threads(self, int threads) -> None:
        """Use `threads` search threads (1..256) from the next search on; 1 searches
        deterministically.  Not during a search."""
        cdef int i
        if not 1 <= threads <= 256:
            raise ValueError(f"threads must be in 1..256, not {threads}")
        if threads - 1 == self.n_helpers:
            return
        self._free_helpers()
        if threads == 1:
            return
        self.helpers = <Context**>calloc(threads - 1, sizeof(Context*))
        if self.helpers == NULL:
            raise MemoryError()
        for i in range(threads - 1):
            self.helpers[i] = _new_context()
            if self.helpers[i] == NULL:
                self.n_helpers = i
                self._free_helpers()
                raise MemoryError()
            self.n_helpers = i + 1

    def set_hash(self, int megabytes) -> None:
        """Size the table memory: allocated and every page touched here, never during a
        search (MemoryError keeps the old memory)."""
        if megabytes < 1:
            raise ValueError("hash size must be at least 1 MB")
        if self.memory is not None and self.memory.size == (<size_t>megabytes << 20):
            return
        self.use_memory(HashMemory(megabytes))

    def use_memory(self, HashMemory memory not None) -> None:
        """Use a block allocated elsewhere (e.g. by another thread, as `isready` does) as
        the table memory.  Not during a search."""
        if tt_attach(&self.tt, memory.base, memory.probe_offset()) != 0:
            raise ValueError("memory too small for the hash table")
        self.memory = memory
        if self.solver is not None:
            self.solver.use_memory(memory)

    @property
    def hash_mb(self) -> int:
        """The size of the table memory in MB (0 before set_hash or use_memory)."""
        return self.memory.megabytes if self.memory is not None else 0

    def release_memory(self) -> None:
        """Drop the table memory (so that a new block can be allocated without holding
        both); the next search allocates 16 MB if nothing is given before it."""
        self.memory = None
        memset(&self.tt, 0, sizeof(TT))
        if self.solver is not None:
            self.solver = None

    def mate_solver(self):
        """The tsume solver working inside this searcher's memory (the whole block)."""
        from usi_engine.mate import MateSolver
        if self.memory is None:
            self.set_hash(16)
        if self.solver is None:
            self.solver = MateSolver()
        self.solver.use_memory(self.memory)
        return self.solver

    def new_game(self) -> None:
        """Forget everything learnt: TT, killers, history, the solver's table; at no cost
        (nothing is cleared: the tables take a new salt and generation)."""
        if self.tt.table != NULL:
            tt_new_game(&self.tt)
        if self.solver is not None:
            self.solver.clear()
        _forget_history(self.ctx)
        for i in range(self.n_helpers):
            _forget_history(self.helpers[i])

    def hashfull(self) -> int:
        return tt_hashfull(&self.tt) if self.tt.table != NULL else 0

    def stop(self) -> None:
        """Ask the running search to return as soon as possible (thread-safe)."""
        cdef int i
        ctl_stop(&self.ctx.ctl)
        for i in range(self.n_helpers):
            ctl_stop(&self.helpers[i].ctl)
        if self.probing and self.solver is not None:
            self.solver.stop()

    def clear_stop(self) -> None:
        """Forget an earlier stop().  A caller that starts the search in another thread
        calls this first and then search(clear_stop=False), so that a stop() arriving
        in between is not lost."""
        ctl_clear_stop(&self.ctx.ctl)

    def set_deadlines(self, soft_ms, hard_ms) -> None:
        """Replace the time limits, in ms from now; None means no limit (thread-safe)."""
        atomic_store_i64(&self.ctx.ctl.soft_deadline, ctl_deadline_after(soft_ms))
        atomic_store_i64(&self.ctx.ctl.hard_deadline, ctl_deadline_after(hard_ms))

    def search(self, Position position not None, *, int depth=0, long long nodes=0,
               soft_ms=None, hard_ms=None, int multipv=1, searchmoves=None,
               int max_game_ply=0, bint entering_king_rule=True, on_info=None,
               bint clear_stop=True, int mate_probe_ms=0):
        """Search position (which is not modified) and return a SearchResult."""
        try:
            return self._search(position, depth, nodes, soft_ms, hard_ms, multipv,
                                searchmoves, max_game_ply, entering_king_rule, on_info,
                                clear_stop, mate_probe_ms)
        finally:
            self.on_info = None
            ctl_raise_pending(&self.ctx.ctl)

    def _search(self, Position position, int depth, long long nodes, soft_ms, hard_ms,
                int multipv, searchmoves, int max_game_ply, bint entering_king_rule, on_info,
                bint clear_stop, int mate_probe_ms):
        cdef Context* c = self.ctx
        cdef int moves[MAX_MOVES]
        cdef int n, i, d, max_depth
        cdef set allowed
        if self.memory is None:
            self.set_hash(16)
        if self.memory.last_writer == WRITER_MATE:
            tt_new_game(&self.tt)       # the solver has written over the table
        self.memory.last_writer = WRITER_SEARCH
        if pos_copy(&c.pos, &position.pos) != 0 or not pos_reserve(&c.pos, MAX_PLY + 16):
            raise MemoryError()
        n = generate(&c.pos, moves, GEN_LEGAL)
        if searchmoves:
            allowed = set(searchmoves)
            n = _filter_moves(moves, n, allowed)
        c.root_count = n
        for i in range(n):
            memset(&c.root_moves[i], 0, sizeof(RootMove))
            c.root_moves[i].move = moves[i]
            c.root_moves[i].score = -VALUE_INFINITE
            c.root_moves[i].previous_score = -VALUE_INFINITE
            c.root_moves[i].pv[0] = moves[i]
            c.root_moves[i].pv_length = 1
        self.active_helpers = 0
        if n == 0:
            return SearchResult()
        if clear_stop:
            ctl_clear_stop(&c.ctl)
        self.set_deadlines(soft_ms, hard_ms)
        c.tt = &self.tt
        c.root_sp = c.pos.sp
        ctl_start(&c.ctl, nodes if nodes > 0 else 0,
                  threading.current_thread() is threading.main_thread())
        c.max_game_ply = max_game_ply
        c.entering_king_rule = entering_king_rule
        c.seldepth = 0
        self.on_info = on_info
        self.multipv = max(1, min(multipv, n))
        if mate_probe_ms > 0 and self.multipv == 1:
            found = self._mate_probe(position, mate_probe_ms, searchmoves)
            if found is not None:
                return found
        max_depth = depth if 0 < depth < MAX_PLY - 8 else MAX_PLY - 8
        tt_new_search(&self.tt)
        completed = 0
        self.completed_lines = []
        # node-limited searches stay on one thread: `go nodes` is then reproducible
        helpers = self.n_helpers if nodes <= 0 else 0
        try:
            self._start_helpers(helpers, max_depth)
            completed = self._main_search(max_depth)
        finally:
            self._stop_helpers()
        if helpers and self.multipv == 1:
            self._adopt_best_helper(completed)
        return self._result(completed)

    cdef int _main_search(self, int max_depth) except -1:
        """The main thread's iterative deepening; returns the last completed depth."""
        cdef Context* c = self.ctx
        cdef int d, completed = 0, previous_best, previous_score
        for d in range(1, max_depth + 1):
            c.current_depth = d
            previous_best = c.root_moves[0].move
            previous_score = c.root_moves[0].score
            with nogil:
                iterate(c, d, self.multipv)
            if c.ctl.aborted and d > 1:
                # an iteration cut off mid-way may hold aspiration bounds, not scores;
                # but a move that beat the previous best in it was searched in full
                self._adopt_partial_best(previous_best)
                break
            completed = d
            self._snapshot_lines()
            self._emit_iteration(d)
            if c.ctl.aborted or self._mate_settled(d):
                break
            if self._next_iteration_would_overrun(previous_best, previous_score):
                break
        return completed

    def _start_helpers(self, int count, int max_depth) -> None:
        cdef Context* h
        cdef int i
        self.active_helpers = count
        for i in range(count):
            h = self.helpers[i]
            if _prepare_helper(h, self.ctx) != 0:
                raise MemoryError()
            t = threading.Thread(target=self._run_helper, args=(i, max_depth),
                                 name=f"usi_engine-helper-{i + 1}", daemon=True)
            self.helper_threads.append(t)
            t.start()

    def _run_helper(self, int i, int max_depth) -> None:
        cdef Context* h = self.helpers[i]
        with nogil:
            helper_search(h, i + 1, max_depth)

    def _stop_helpers(self) -> None:
        cdef int i
        for i in range(self.n_helpers):
            ctl_stop(&self.helpers[i].ctl)
        for t in self.helper_threads:
            t.join()
        self.helper_threads = []

    cdef void _adopt_best_helper(self, int completed):
        """A helper that completed a deeper iteration with a better score than the main
        thread's gives the move (the lazy-SMP vote of Stockfish-family engines)."""
        cdef Context* h
        cdef RootMove* best = NULL
        cdef int i, depth = completed
        cdef int score = self.completed_lines[0][1] if self.completed_lines else -VALUE_INFINITE
        for i in range(self.n_helpers):
            h = self.helpers[i]
            if h.completed_depth > depth and h.best_line.score > score:
                best, depth, score = &h.best_line, h.completed_depth, h.best_line.score
        if best != NULL:
            self.completed_lines = [(best.move, best.score, best.seldepth,
                                     [best.pv[k] for k in range(best.pv_length)])]

    @property
    def thread_nodes(self) -> list:
        """Nodes searched by each thread in the last search, the main thread first."""
        return [self.ctx.ctl.nodes] + [self.helpers[i].ctl.nodes
                                       for i in range(self.active_helpers)]

    cdef uint64_t _total_nodes(self):
        cdef uint64_t n = self.ctx.ctl.nodes
        cdef int i
        for i in range(self.active_helpers):
            n += self.helpers[i].ctl.nodes
        return n

    cdef void _adopt_partial_best(self, int previous_best):
        """After a cut-off iteration: a root move other than the previous best that
        holds a score was searched completely and beat the previous best's score at
        the new depth, so it is the better move; report it in place of the old line."""
        cdef RootMove* rm = &self.ctx.root_moves[0]
        if (self.multipv != 1 or rm.move == previous_best or rm.score == -VALUE_INFINITE
                or not self.completed_lines):
            return
        self.completed_lines = [(rm.move, rm.score, rm.seldepth,
                                 [rm.pv[i] for i in range(rm.pv_length)])]

    cdef bint _next_iteration_would_overrun(self, int previous_best, int previous_score):
        """Past the soft deadline, or past the share of it after which the next
        iteration is unlikely to finish: 60% of the soft budget, the whole of it while
        the best move changes or its score falls."""
        cdef int64_t soft = atomic_load_i64(&self.ctx.ctl.soft_deadline)
        cdef int64_t hard = atomic_load_i64(&self.ctx.ctl.hard_deadline)
        cdef int64_t now = monotonic_ns()
        cdef RootMove* rm = &self.ctx.root_moves[0]
        cdef bint unstable
        if soft == NO_DEADLINE:
            return False
        if now >= soft:
            return True
        if hard != NO_DEADLINE and soft >= hard:
            # byoyomi: the time cannot be saved, and a cut-off iteration still
            # contributes its completed better moves
            return False
        unstable = (rm.move != previous_best
                    or (previous_score != -VALUE_INFINITE and rm.score < previous_score - 30))
        if unstable:
            return False
        return now - self.ctx.ctl.start_ns >= (soft - self.ctx.ctl.start_ns) * 6 // 10

    def _mate_probe(self, Position position, int time_ms, searchmoves):
        """A short df-pn run before the tree search, in the memory's probe slice: a
        proved mate is played at once, with its exact distance (alpha-beta would need
        the full depth to see it)."""
        from usi_engine.mate import MateSolver
        if self.solver is None:
            self.solver = MateSolver()
        solver = self.solver
        solver.use_memory(self.memory, probe=True)
        solver.clear_stop()
        self.probing = True
        try:
            if atomic_load_int(&self.ctx.ctl.stop):
                return None
            result = solver.solve(position, time_ms=time_ms, clear_stop=False)
        finally:
            self.probing = False
        if result.status != "mate" or (searchmoves and result.pv[0] not in searchmoves):
            return None
        pv = result.pv
        info = {"depth": len(pv), "seldepth": len(pv), "nodes": result.nodes,
                "nps": result.nodes * 1000 // max(result.time_ms, 1), "time_ms": result.time_ms,
                "hashfull": solver.hashfull(), "multipv": 1, "pv": list(pv),
                "bound": None, "score_mate": len(pv)}
        if self.on_info is not None:
            self.on_info(info)
        return SearchResult(best=pv[0], ponder=pv[1] if len(pv) > 1 else 0, score_cp=0,
                            score_mate=len(pv), depth=len(pv), seldepth=len(pv),
                            nodes=result.nodes, time_ms=result.time_ms, pv=pv)

    cdef bint _mate_settled(self, int depth):
        # a mate found with every reply searched needs no deeper iteration
        cdef int v = self.ctx.root_moves[0].score
        return (abs(v) >= VALUE_MATE_IN_MAX_PLY and self.multipv == 1
                and VALUE_MATE - abs(v) <= depth)

    def _elapsed_ms(self) -> int:
        return ctl_elapsed_ms(&self.ctx.ctl)

    def _snapshot_lines(self) -> None:
        cdef Context* c = self.ctx
        cdef RootMove* rm
        cdef int k, v
        lines = []
        for k in range(self.multipv):
            rm = &c.root_moves[k]
            v = rm.score if rm.score != -VALUE_INFINITE else rm.previous_score
            lines.append((rm.move, v, rm.seldepth, [rm.pv[i] for i in range(rm.pv_length)]))
        self.completed_lines = lines

    def _line_info(self, int index, int depth) -> dict:
        """Report line `index` of the last completed iteration."""
        cdef Context* c = self.ctx
        move, v, seldepth, pv = self.completed_lines[index]
        elapsed = max(self._elapsed_ms(), 0)
        nodes = self._total_nodes()
        info = {"depth": depth, "seldepth": max(seldepth, depth), "nodes": nodes,
                "nps": nodes * 1000 // elapsed if elapsed > 0 else nodes * 1000,
                "time_ms": elapsed, "hashfull": self.hashfull(), "multipv": index + 1,
                "pv": list(pv), "bound": None}
        if v == -VALUE_INFINITE:
            info["score_cp"] = 0
        else:
            info.update(_score_fields(v))
        return info

    def _emit_iteration(self, int depth) -> None:
        if self.on_info is None:
            return
        for k in range(self.multipv):
            self.on_info(self._line_info(k, depth))

    def _emit_progress(self) -> None:
        if self.on_info is None or not self.completed_lines:
            return
        info = self._line_info(0, self.ctx.current_depth - 1)
        info["seldepth"] = max(self.ctx.seldepth, info["depth"])
        self.on_info(info)

    def _result(self, int completed) -> SearchResult:
        """The last completed iteration's best line (at depth 1, even a partial one: a
        move is owed however soon the search is stopped)."""
        cdef Context* c = self.ctx
        cdef RootMove* rm = &c.root_moves[0]
        if self.completed_lines:
            move, v, seldepth, pv = self.completed_lines[0]
        else:
            move, seldepth = rm.move, rm.seldepth
            v = rm.score if rm.score != -VALUE_INFINITE else rm.previous_score
            pv = [rm.pv[i] for i in range(rm.pv_length)]
        fields = _score_fields(v) if v != -VALUE_INFINITE else {"score_cp": 0}
        return SearchResult(best=move, ponder=pv[1] if len(pv) > 1 else 0,
                            score_cp=fields.get("score_cp", 0),
                            score_mate=fields.get("score_mate"), depth=completed,
                            seldepth=max(seldepth, completed), nodes=self._total_nodes(),
                            time_ms=self._elapsed_ms(), pv=pv)


cdef int _filter_moves(int* moves, int n, set allowed):
    cdef int i, k = 0
    for i in range(n):
        if moves[i] in allowed:
            moves[k] = moves[i]
            k += 1
    return k
