# cython: language_level=3
"""The tree search: principal variation search and quiescence on one thread's Context.

Everything here is C without the GIL.  Its helpers inline; the calls into the position,
the move generator, the table and the evaluation cross extensions through Cython's
function pointers, one call each (inlining the most frequent of them saved 0.6% of the
instructions: docs/decisions.md, "Search: speed").
`search` follows the Stockfish-family order of steps:

1. game-rule outcomes (repetition, declaration, move limit) and mate distance pruning;
2. the transposition table's cut-off, then the static score, corrected by what searches
   found for the same pawns, hands, other pieces of each colour and last moves
   (correction history);
3. pruning of the whole node off the PV: reverse futility, the null move (reduced more
   the further the static score stands above beta), ProbCut;
4. internal iterative reduction and a mate-in-one test at nodes the table has not seen;
5. the moves, from the staged picker (search/move_picker.pxd), with pruning near the
   leaves (move count, futility and SEE for quiet moves; futility and SEE for captures
   and checks, moved by their capture history) and late-move reductions (quiet moves,
   quiet checks and losing captures), a reduced move that beats alpha searched again
   deeper or at full depth, a PV node's moves again with the full window;
6. history updates at a cut-off (and for the best move of a PV node, and for the move
   that led to a node where no move reached alpha), the table's store.

`qsearch` searches captures and pawn promotions (after two, only recaptures,
promotions and checking captures; SEE and delta pruning), every evasion in check until
one saves the king and then two quiet ones, and looks for a mate in one where the
table has not seen the position.  `iterate` runs one aspiration-window iteration at the
root; search/threads.pyx holds the contexts' lifetime and the lazy-SMP helpers, and
the Searcher (search/searcher.pyx) drives both.  The margins and reductions (TUNABLES)
are in search/params.pxi, included here, and the sizes kept as YaneuraOu and Stockfish
measured them in search/borrowed.pxd; docs/decisions.md has the matches behind each
technique and value.
"""
cimport cython
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset
from libc.math cimport log

from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport (Pos, Position, in_check, pieces, state, position_key,
                                       pos_do_move, pos_undo_move, pos_key_after,
                                       pos_do_null, pos_undo_null, pos_repetition,
                                       pos_declaration_win, pos_declaration, pos_try_move,
                                       pos_tried, EKR_NONE, EKR_27, EKR_TRY, DECLARE_WIN,
                                       REPETITION_NONE, REPETITION_DRAW, REPETITION_WIN,
                                       REPETITION_LOSE)
from usi_engine.core.movegen cimport (GEN_LEGAL, GEN_CAPTURES, GEN_NO_DOMINATED, generate,
                                      gives_check, gives_check_by)
from usi_engine.core.mate1 cimport mate_in_one_near
from usi_engine.eval.handwritten cimport piece_value, hand_refresh, hand_update, hand_value
from usi_engine.eval.kp cimport KPAcc, kp_refresh, kp_update, kp_copy, kp_value
from usi_engine.core.see cimport see_ge
from usi_engine.search.history cimport (History, NO_PIECE_TO, CORR_BITS, CORR_LIMIT,
                                        quiet_score, history_cutoff, history_cont_bonus,
                                        pawn_history_cutoff, PAWN_HIST_BITS,
                                        capture_history_cutoff, butterfly_bonus,
                                        low_ply_reset, capture_history, correction_update,
                                        correction_nudge)
from usi_engine.core.tt cimport (TT, TTEntry, BOUND_NONE, BOUND_UPPER, BOUND_LOWER,
                                 BOUND_EXACT, tt_probe, tt_store, tt_prefetch, USI_PREFETCH)
from usi_engine.core.control cimport Control, ctl_count
from usi_engine.search.root_moves cimport root_moves_into, record_root_move, sort_root_moves
from usi_engine.search.move_picker cimport (MovePicker, picker_init, picker_set_histories,
                                            next_move, captured_type, moved_type, is_quiet,
                                            move_key, score_moves, pick_best,
                                            QuietRows, quiet_rows_init,
                                            STAGE_GOOD_CAPTURES)
from usi_engine.search.borrowed cimport *

init_tables()

include "params.pxi"


cdef inline void update_pv(Context* c, int ply, int m) noexcept nogil:
    cdef int n = c.pv_length[ply + 1]
    c.pv[ply][0] = m
    if n > 0:
        memcpy(&c.pv[ply][1], &c.pv[ply + 1][0], n * sizeof(int))
    c.pv_length[ply] = n + 1


cdef inline int repetition(const Context* c, int ply) noexcept nogil:
    """pos_repetition over the whole game (the first recurrence, however far back),
    walking back past the root only when the game-board filter says this board may
    have occurred there: most nodes' boards never did, and the walk to the game's
    start was 2% of the search's instructions."""
    cdef const Pos* p = &c.pos
    cdef uint64_t board = state(p).board_key
    cdef int rep = pos_repetition(p, ply)
    if rep == REPETITION_NONE and c.game_boards[(board >> 6) & 63] >> (board & 63) & 1:
        rep = pos_repetition(p, p.sp)
    return rep


cdef void note_game_boards(Context* c) noexcept nogil:
    """Fill the game-board filter from the positions before the root."""
    cdef int i
    cdef uint64_t board
    memset(c.game_boards, 0, sizeof(c.game_boards))
    for i in range(c.root_sp):
        board = c.pos.stack[i].board_key
        c.game_boards[(board >> 6) & 63] |= (<uint64_t>1) << (board & 63)


cdef inline int terminal_value(Context* c, int ply, bint* done) noexcept nogil:
    """Game-rule outcomes at an interior node: repetition, declaration, move limit."""
    cdef Pos* p = &c.pos
    cdef int rep = repetition(c, ply)
    done[0] = True
    if rep == REPETITION_DRAW:
        return c.draw_value[p.side]
    if rep == REPETITION_WIN:
        return mate_in(ply)
    if rep == REPETITION_LOSE:
        return mated_in(ply)
    # A declaration is a move (USI's `bestmove win`) that ends the game, like a mating
    # move: it wins at ply + 1, as mate in 1 at the root.
    if c.entering_king_rule == EKR_27:
        if pos_declaration_win(p):
            return mate_in(ply + 1)
    elif c.entering_king_rule == EKR_TRY:
        if pos_tried(p, p.side ^ 1):
            return mated_in(ply)          # the opponent's king has reached our king's square
        if pos_try_move(p):
            return mate_in(ply + 1)       # ours steps onto theirs next
    elif c.entering_king_rule != EKR_NONE and pos_declaration(p, c.entering_king_rule) == DECLARE_WIN:
        return mate_in(ply + 1)
    if c.max_game_ply and p.game_ply > c.max_game_ply:
        return c.draw_value[p.side]
    done[0] = False
    return 0


cdef inline int static_value(Context* c, int ply) noexcept nogil:
    """The static evaluation of the position at ply: learned or hand-written."""
    if c.kp_net != NULL:
        return kp_value(&c.pos, c.kp_net, &c.kp_acc[ply])
    return hand_value(&c.pos, &c.hand_sums[ply])


cdef inline void correction_indices(const Pos* p, int* pawn_index, int* hand_index) noexcept nogil:
    """Where this position's pawn placement and hands fall in the correction tables."""
    cdef bb_t b = pieces(p, BLACK, PAWN)
    cdef bb_t w = pieces(p, WHITE, PAWN)
    cdef uint64_t k = ((((<uint64_t>b) ^ (<uint64_t>(b >> 64))) * 0x9E3779B97F4A7C15ULL)
                       ^ (((<uint64_t>w) ^ (<uint64_t>(w >> 64))) * 0xC2B2AE3D27D4EB4FULL))
    pawn_index[0] = <int>((k * 0xD6E8FEB86659FD93ULL) >> (64 - CORR_BITS))
    hand_index[0] = <int>((p.stack[p.sp].hand_key * 0x9E3779B97F4A7C15ULL) >> (64 - CORR_BITS))


cdef inline int pawn_history_index(const Pos* p) noexcept nogil:
    """This position's row of the pawn history (its pawn placement, hashed)."""
    cdef int pi, hi
    correction_indices(p, &pi, &hi)
    return pi >> (CORR_BITS - PAWN_HIST_BITS)


cdef inline uint64_t _fold(bb_t b) noexcept nogil:
    return (<uint64_t>b) ^ (<uint64_t>(b >> 64))


cdef inline int nonpawn_index(const Pos* p, int colour) noexcept nogil:
    """Where the placement of this colour's pieces other than pawns falls in its
    correction table: the squares they stand on, and which of them are rooks and
    bishops, gold movers and silvers."""
    cdef bb_t own = p.by_color[colour]
    cdef bb_t majors = own & (p.by_type[BISHOP] | p.by_type[ROOK] | p.by_type[HORSE]
                              | p.by_type[DRAGON])
    cdef bb_t golds = own & (p.by_type[GOLD] | p.by_type[PRO_PAWN] | p.by_type[PRO_LANCE]
                             | p.by_type[PRO_KNIGHT] | p.by_type[PRO_SILVER])
    cdef uint64_t k = ((_fold(own & ~p.by_type[PAWN]) * 0x9E3779B97F4A7C15ULL)
                       ^ (_fold(majors) * 0xC2B2AE3D27D4EB4FULL)
                       ^ (_fold(golds) * 0x165667B19E3779F9ULL)
                       ^ (_fold(own & p.by_type[SILVER]) * 0xD6E8FEB86659FD93ULL))
    return <int>((k * 0x94D049BB133111EBULL) >> (64 - CORR_BITS))


cdef inline int _continuation_correction(const History* h, int side, const int* keys,
                                         int ply, int* k1, int* k2, int* k4) noexcept nogil:
    """The piece-to keys of the moves 1, 2 and 4 plies back (NO_PIECE_TO where there is
    none, or a null move), and the continuation correction they make: each table entry
    counts two thirds (YaneuraOu's weight against the pawn table's)."""
    k1[0] = keys[ply - 1] if ply >= 1 else NO_PIECE_TO
    k2[0] = keys[ply - 2] if ply >= 2 else NO_PIECE_TO
    k4[0] = keys[ply - 4] if ply >= 4 else NO_PIECE_TO
    cdef int total = 0
    if k1[0] >= 0:
        if k2[0] >= 0:
            total += h.corr_cont[side][k2[0]][k1[0]] * 2 // 3
        if k4[0] >= 0:
            total += h.corr_cont[side][k4[0]][k1[0]] * 2 // 3
    return total


cdef inline int correction_of(Context* c, int ply) noexcept nogil:
    """What searches of positions sharing this one's pawns, hands, other pieces of each
    colour and last moves found the static score to be off by, in 16ths of a unit."""
    cdef int pi, hi, k1, k2, k4
    cdef int side = c.pos.side
    correction_indices(&c.pos, &pi, &hi)
    return (c.hist.corr_pawn[side][pi] + c.hist.corr_hand[side][hi]
            + c.hist.corr_nonpawn[side][BLACK][nonpawn_index(&c.pos, BLACK)]
            + c.hist.corr_nonpawn[side][WHITE][nonpawn_index(&c.pos, WHITE)]
            + _continuation_correction(&c.hist, side, c.move_keys, ply, &k1, &k2, &k4))


cdef inline int corrected_value(Context* c, int raw, int ply) noexcept nogil:
    """The static score less what searches of similar positions have found it to be off
    by (correction history, as in Stockfish and YaneuraOu)."""
    cdef int v = raw + correction_of(c, ply) // 16
    if v >= VALUE_MATE_IN_MAX_PLY:
        return VALUE_MATE_IN_MAX_PLY - 1
    if v <= -VALUE_MATE_IN_MAX_PLY:
        return -VALUE_MATE_IN_MAX_PLY + 1
    return v


cdef inline void correct_static_value(Context* c, int best, int static_eval,
                                      int depth, int ply) noexcept nogil:
    """Move every correction entry of this position toward what the search found; the
    non-pawn and continuation tables by their shares of the step (YaneuraOu's
    proportions: borrowed.pxd)."""
    cdef int pi, hi, k1, k2, k4
    cdef int side = c.pos.side
    cdef int bonus = (best - static_eval) * depth // 8
    if bonus > CORR_LIMIT // 4:
        bonus = CORR_LIMIT // 4
    elif bonus < -CORR_LIMIT // 4:
        bonus = -CORR_LIMIT // 4
    correction_indices(&c.pos, &pi, &hi)
    correction_update(&c.hist, side, pi, hi, bonus)
    correction_nudge(&c.hist.corr_nonpawn[side][BLACK][nonpawn_index(&c.pos, BLACK)],
                     bonus * CORR_NONPAWN_SHARE_128 // 128)
    correction_nudge(&c.hist.corr_nonpawn[side][WHITE][nonpawn_index(&c.pos, WHITE)],
                     bonus * CORR_NONPAWN_SHARE_128 // 128)
    _continuation_correction(&c.hist, side, c.move_keys, ply, &k1, &k2, &k4)
    if k1 >= 0:
        if k2 >= 0:
            correction_nudge(&c.hist.corr_cont[side][k2][k1], bonus * CORR_CONT2_SHARE_128 // 128)
        if k4 >= 0:
            correction_nudge(&c.hist.corr_cont[side][k4][k1], bonus * CORR_CONT4_SHARE_128 // 128)


cdef inline void _prefetch_continuation_correction(Context* c, int ply) noexcept nogil:
    """Start loading the continuation-correction entries that the node at ply will
    read (the table is megabytes: each read would otherwise miss the cache)."""
    cdef int k1 = c.move_keys[ply - 1]
    cdef int side = c.pos.side
    if k1 < 0:
        return
    if ply >= 2 and c.move_keys[ply - 2] >= 0:
        USI_PREFETCH(&c.hist.corr_cont[side][c.move_keys[ply - 2]][k1])
    if ply >= 4 and c.move_keys[ply - 4] >= 0:
        USI_PREFETCH(&c.hist.corr_cont[side][c.move_keys[ply - 4]][k1])


cdef inline void play_move(Context* c, int m, int ply) noexcept nogil:
    """Play m at ply and bring the evaluation's sums (learned or hand-written) to ply + 1."""
    pos_do_move(&c.pos, m)
    tt_prefetch(c.tt, position_key(&c.pos))
    _prefetch_continuation_correction(c, ply + 1)
    if c.kp_net != NULL:
        kp_update(&c.pos, c.kp_net, &c.kp_acc[ply], &c.kp_acc[ply + 1])
    else:
        hand_update(&c.pos, &c.hand_sums[ply], &c.hand_sums[ply + 1])


cdef inline void play_null(Context* c, int ply) noexcept nogil:
    pos_do_null(&c.pos)
    tt_prefetch(c.tt, position_key(&c.pos))
    if c.kp_net != NULL:
        kp_copy(c.kp_net, &c.kp_acc[ply], &c.kp_acc[ply + 1])
    c.hand_sums[ply + 1] = c.hand_sums[ply]


cdef int qsearch(Context* c, int alpha, int beta, int ply, int qply) noexcept nogil:
    cdef Pos* p = &c.pos
    cdef int moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int n, i, m, v, best, stand_pat, victim, last, prev_sq
    cdef int tried = 0, quiet_evasions = 0
    cdef QuietRows rows
    cdef int raw_eval = 0
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
        return static_value(c, ply)
    e = tt_probe(c.tt, key, &found, &te)
    if found:
        tt_move = te.move
        v = value_from_tt(te.value, ply)
        if ((te.gen_bound & 3) == BOUND_EXACT or ((te.gen_bound & 3) == BOUND_LOWER and v >= beta)
                or ((te.gen_bound & 3) == BOUND_UPPER and v <= alpha)):
            return v
    if checked:
        n = generate(p, moves, GEN_LEGAL | GEN_NO_DOMINATED)
        if n == 0:
            return mated_in(ply)
        if qply >= QSEARCH_MAX_PLIES:
            return static_value(c, ply)
        best = -VALUE_INFINITE
        stand_pat = -VALUE_INFINITE
    else:
        raw_eval = static_value(c, ply)
        stand_pat = corrected_value(c, raw_eval, ply)
        if stand_pat >= beta or qply >= QSEARCH_MAX_PLIES:
            return stand_pat    # (a mate would fail high too: no need to look for one)
        if not found:
            # a mate in one, which standing pat would not see (drops mate often); a
            # table hit has been through this test already.  At every quiescence ply:
            # at the first alone it cost games (docs/decisions.md, "QsMate1Plies")
            m = mate_in_one_near(p)
            if m:
                v = mate_in(ply + 1)
                c.pv[ply][0] = m
                c.pv_length[ply] = 1
                # (with the static score: the main search takes it from the table)
                tt_store(c.tt, e, key, value_to_tt(v, ply), BOUND_EXACT, 0, m, raw_eval)
                return v
        if stand_pat > alpha:
            alpha = stand_pat
        best = stand_pat
        n = generate(p, moves, GEN_CAPTURES | GEN_NO_DOMINATED)
    # quiescence tests SEE only on the moves it gets to (most are cut off first)
    if checked:
        quiet_rows_init(&rows, c, ply, pawn_history_index(p), c.param[THREAT_ORDER])
    score_moves(c, moves, scores, n, tt_move, ply, False, &rows if checked else NULL)
    last = state(p).move
    prev_sq = move_to(last) if last != MOVE_NONE else -1
    for i in range(n):
        m = pick_best(moves, scores, i, n)
        if checked:
            if is_quiet(p, m) and best > -VALUE_MATE_IN_MAX_PLY:
                if quiet_evasions >= c.param[QS_EVASION_LIMIT]:
                    continue
                quiet_evasions += 1
        else:
            victim = captured_type(p, m)
            # quiet promotions: only the pawn's (a silver or a lance gains little, and
            # a bishop or rook promotes at leisure); the rest belong to the main search
            if victim == EMPTY and moved_type(p, m) != PAWN:
                continue
            # a late capture (after QsMoveCount, not a recapture), or one that cannot
            # lift us to alpha even winning the piece (delta pruning), is skipped unless
            # it gives check (tested only then: most captures are neither)
            if not move_is_promotion(m) and (
                    (move_to(m) != prev_sq and tried >= c.param[QS_MOVE_COUNT])
                    or stand_pat + piece_value(victim) + c.param[QS_DELTA_MARGIN] < alpha):
                if not gives_check(p, m):
                    continue
            # (the child's table bucket loads while SEE runs)
            tt_prefetch(c.tt, pos_key_after(p, m))
            # a capture that gives up more than it wins
            if not see_ge(p, m, 0):
                continue
        tried += 1
        c.move_keys[ply] = move_key(p, m)     # (for the continuation correction)
        play_move(c, m, ply)
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
             BOUND_LOWER if best >= beta else (
                 BOUND_EXACT if best > old_alpha else BOUND_UPPER),
             0, best_move, raw_eval)
    return best


cdef int search(Context* c, int depth, int alpha, int beta, int ply, bint pv_node,
                bint null_ok, bint cut_node) noexcept nogil:
    cdef Pos* p = &c.pos
    cdef MovePicker mp
    cdef int quiets_tried[64]
    cdef int quiet_keys[64]
    cdef int capture_keys[32]
    cdef int capture_victims[32]
    cdef int n_captures = 0
    cdef int prev1, prev2, mkey
    cdef int n_quiets = 0
    cdef int m, v, best, best_move = 0, tt_move = 0, tt_value = VALUE_NONE, handed_out
    cdef int static_eval, raw_eval, new_depth, reduction, searched = 0, bound
    cdef int reduced_depth, pruned, mcp_limit
    cdef int old_alpha = alpha
    cdef bint checked, found, done, quiet, check_given, improving, reducible
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
    # Step 1. Game rules and mate distance pruning
    if ply > 0:
        v = terminal_value(c, ply, &done)
        if done:
            return v
        if alpha < mated_in(ply):
            alpha = mated_in(ply)
        if beta > mate_in(ply + 1):
            beta = mate_in(ply + 1)
        if alpha >= beta:
            return alpha
    if ply >= MAX_PLY - 1:
        return static_value(c, ply)

    # Step 2. The table, and the static score
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
    raw_eval = -VALUE_INFINITE if checked else (te.eval if found else static_value(c, ply))
    static_eval = raw_eval if checked else corrected_value(c, raw_eval, ply)
    c.static_evals[ply] = static_eval
    # improving: the static score rose since our previous move (or cannot be compared)
    improving = not checked and (ply < 2 or c.static_evals[ply - 2] == -VALUE_INFINITE
                                 or static_eval > c.static_evals[ply - 2])

    # Step 3. Pruning of the whole node
    if not pv_node and not checked and is_mate_score(beta) == 0:
        v = _prune_node(c, depth, beta, ply, static_eval, raw_eval, null_ok, found, &te, e,
                        key)
        if v != VALUE_NONE:
            return v

    # Step 4. Internal iterative reduction; a mate in one
    if depth >= c.param[IIR_DEPTH] and tt_move == 0 and (pv_node or cut_node):
        depth -= 1      # no table move: a cheaper search first
    if ply and not checked and depth >= MATE1_MIN_DEPTH and not found:
        # a mate in one ends the search of this node with its exact value (a table hit
        # has been through this test already: 11% less time to depth 10 on the bench)
        m = mate_in_one_near(p)
        if m:
            v = mate_in(ply + 1)
            c.pv[ply][0] = m
            c.pv_length[ply] = 1
            tt_store(c.tt, e, key, value_to_tt(v, ply), BOUND_EXACT, depth, m, raw_eval)
            return v

    # Step 5. The moves
    prev1 = c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO
    prev2 = c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO
    picker_init(&mp, c, tt_move, ply, ply == 0 or checked, -c.param[QUIET_SORT_LIMIT] * depth,
                c.param[THREAT_ORDER])
    if ply == 0:
        mp.n = root_moves_into(c, mp.moves)
    picker_set_histories(&mp, c, pawn_history_index(p))
    mcp_limit = _move_count_limit(c, depth, improving)
    best = -VALUE_INFINITE
    handed_out = 0
    while True:
        m = next_move(&mp, c)
        if m == 0:
            break
        handed_out += 1
        quiet = is_quiet(p, m)
        check_given = (gives_check_by(p, &mp.check_info, m) if mp.has_check_info
                       else gives_check(p, m))
        if mp.skip_quiets and quiet and not check_given:
            continue
        if ply and not checked and best > -VALUE_MATE_IN_MAX_PLY:
            pruned = _prune_move(c, &mp, m, quiet, check_given, depth, searched, alpha,
                                 static_eval, mcp_limit, best_move)
            if pruned:
                # move-count pruning only grows stricter as the node goes on: once one
                # quiet move that gives no check is pruned so, all the rest are
                if pruned == PRUNE_REST:
                    mp.skip_quiets = True
                continue
        # (the child's table bucket loads while the reduction is worked out)
        tt_prefetch(c.tt, pos_key_after(p, m))
        new_depth = depth - 1
        reduction = 0
        if depth >= c.param[LMR_MIN_DEPTH] and searched >= 1 + 2 * pv_node and not checked:
            # late quiet moves, and quiet checks and losing captures too (a check a ply
            # less: its reduction may be -1, a ply deeper)
            reducible = quiet or not see_ge(p, m, 0)    # (SEE only for late moves)
            if reducible:
                reduction = (_late_move_reduction(c, m, depth, searched, ply, pv_node,
                                                  improving) - check_given)
                if reduction > new_depth - 1:
                    reduction = new_depth - 1
        mkey = move_key(p, m)
        c.move_keys[ply] = mkey
        play_move(c, m, ply)
        if searched == 0:
            v = -search(c, new_depth, -beta, -alpha, ply + 1, pv_node, True,
                        not pv_node and not cut_node)
        else:
            reduced_depth = new_depth - reduction
            v = -search(c, reduced_depth, -alpha - 1, -alpha, ply + 1, False, True,
                        reduction > 0 or not cut_node)
            # (an aborted search returns 0, which must not trigger a re-search: the
            # node limit would be passed by one node)
            if v > alpha and reduction and not c.ctl.aborted:
                # how far the reduced search beat the best so far says how deep to
                # look again (as in Stockfish-family searches)
                new_depth += ((v > best + c.param[LMR_DEEPER] + 2 * new_depth)
                              - (v < best + 9))
                if new_depth > reduced_depth:
                    v = -search(c, new_depth, -alpha - 1, -alpha, ply + 1, False, True,
                                not cut_node)
            # a PV node searches again with the full window after any fail high (the
            # null-window result comes from a search that prunes as at non-PV nodes)
            if v > alpha and pv_node and not c.ctl.aborted:
                v = -search(c, new_depth, -beta, -alpha, ply + 1, True, True, False)
        pos_undo_move(p)
        if c.ctl.aborted:
            return 0
        searched += 1
        if ply == 0:
            record_root_move(c, m, v, alpha, searched == 1)
        if v > best:
            best = v
            if v > alpha:
                best_move = m
                alpha = v
                update_pv(c, ply, m)
                if v >= beta:
                    # Step 6. A cut-off: the histories learn it
                    if quiet:
                        history_cutoff(&c.hist, p.side, m, mkey, prev1, prev2, ply, depth,
                                       quiets_tried, quiet_keys, n_quiets)
                        pawn_history_cutoff(&c.hist, p.side, mp.pawn_index, mkey,
                                            quiet_keys, n_quiets, depth)
                    capture_history_cutoff(&c.hist, p.side, mkey, captured_type(p, m),
                                           not quiet, capture_keys, capture_victims,
                                           n_captures, depth)
                    break
        if quiet and n_quiets < 64:
            quiets_tried[n_quiets] = m
            quiet_keys[n_quiets] = mkey
            n_quiets += 1
        elif not quiet and n_captures < 32:
            capture_keys[n_captures] = mkey
            capture_victims[n_captures] = captured_type(p, m)
            n_captures += 1
        if (not mp.skip_quiets and ply and not checked and best > -VALUE_MATE_IN_MAX_PLY
                and searched >= mcp_limit):
            # every quiet move that gives no check would be pruned from here on: the
            # picker then generates only the quiet checks
            mp.skip_quiets = True

    if handed_out == 0:
        return mated_in(ply)    # no legal move: lost, in check or not
    if best_move == 0 and ply:
        _reward_prior_quiet(c, ply, depth, best, static_eval, checked)
    if best_move and best < beta:
        # a best move that raised alpha without a cut-off (at a PV node) is rewarded
        # as a refutation, the other moves tried punished (Stockfish's update_all_stats)
        _reward_best(c, best_move, ply, depth, prev1, prev2, quiets_tried, quiet_keys,
                     n_quiets, capture_keys, capture_victims, n_captures)
    if best >= beta:
        bound = BOUND_LOWER
    elif pv_node and best > old_alpha:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    # the static score's error, learnt where the search settled a quiet position
    if (not checked and (best_move == 0 or is_quiet(p, best_move))
            and is_mate_score(best) == 0
            and ((best < static_eval and best < beta) or (best > static_eval and best_move))):
        correct_static_value(c, best, static_eval, depth, ply)
    tt_store(c.tt, e, key, value_to_tt(best, ply), bound, depth, best_move,
             raw_eval if raw_eval > -VALUE_INFINITE else 0)
    return best


cdef inline int _prune_node(Context* c, int depth, int beta, int ply, int static_eval,
                            int raw_eval, bint null_ok, bint found, const TTEntry* te,
                            TTEntry* e, uint64_t key) noexcept nogil:
    """The value that settles a non-PV node not in check before its moves are searched,
    else VALUE_NONE: reverse futility (the static score far above beta near the
    leaves), the null move (if passing still beats beta, a real move will too), ProbCut
    (a capture whose shallow search beats beta by a margin)."""
    cdef int reduction, v
    if depth <= c.param[RFP_DEPTH] and static_eval - c.param[RFP_MARGIN] * depth >= beta:
        return static_eval
    if null_ok and depth >= c.param[NULL_MIN_DEPTH] and static_eval >= beta:
        # reduced more the further the static score stands above beta
        reduction = (c.param[NULL_BASE] + depth // c.param[NULL_DEPTH_DIVISOR]
                     + min((static_eval - beta) // c.param[NULL_EVAL_DIVISOR], 3))
        c.move_keys[ply] = NO_PIECE_TO
        play_null(c, ply)
        v = -search(c, depth - 1 - reduction, -beta, -beta + 1, ply + 1, False, False, False)
        pos_undo_null(&c.pos)
        if c.ctl.aborted:
            return 0
        if v >= beta:
            return beta if v >= VALUE_MATE_IN_MAX_PLY else v
    if depth >= 5:
        return _probcut(c, depth, beta, static_eval, raw_eval, found, te, e, key, ply)
    return VALUE_NONE


cdef inline bint _prior_quiet(Context* c, int ply) noexcept nogil:
    # the move that led here was a real move (no null move) that took nothing
    cdef int last = state(&c.pos).move
    return (ply >= 1 and c.move_keys[ply - 1] != NO_PIECE_TO and last != MOVE_NONE
            and state(&c.pos).captured == EMPTY)


cdef inline void _reward_prior_quiet(Context* c, int ply, int depth, int best, int static_eval,
                                     bint checked) noexcept nogil:
    """No move here reached alpha, so the opponent's quiet move
    that led here was a good one: it rises in its continuation histories and butterfly,
    more the deeper the node and the further below the static scores the search fell
    (YaneuraOu's bonus, without its terms for the previous node's history and move
    count)."""
    cdef int scale, bonus, before
    if not _prior_quiet(c, ply):
        return
    scale = PRIOR_SCALE_BASE + min(PRIOR_SCALE_PER_DEPTH * depth, PRIOR_SCALE_MAX)
    if not checked and best <= static_eval - PRIOR_EVAL_MARGIN:
        scale += PRIOR_EVAL_BONUS
    before = c.static_evals[ply - 1]
    if before != -VALUE_INFINITE and best <= -before - PRIOR_PARENT_MARGIN:
        scale += PRIOR_PARENT_BONUS
    if scale <= 0:
        return
    bonus = min(PRIOR_BONUS_MUL * depth - PRIOR_BONUS_SUB, PRIOR_BONUS_MAX) * scale
    history_cont_bonus(&c.hist, 1 - c.pos.side, c.move_keys[ply - 1],
                       c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO,
                       c.move_keys[ply - 3] if ply >= 3 else NO_PIECE_TO,
                       bonus * PRIOR_CONT_SHARE_16384 // 16384)
    butterfly_bonus(&c.hist, 1 - c.pos.side, state(&c.pos).move,
                    bonus * PRIOR_BUTTERFLY_SHARE_32768 // 32768)


cdef void _reward_best(Context* c, int m, int ply, int depth, int prev1, int prev2,
                       int* quiets, int* quiet_keys, int n_quiets, int* capture_keys,
                       int* capture_victims, int n_captures) noexcept nogil:
    """The histories' update of a cut-off, for the best move of a
    node that ended between alpha and beta; the tried lists lose the move itself."""
    cdef Pos* p = &c.pos
    cdef int mkey = move_key(p, m), victim = captured_type(p, m)
    cdef bint quiet = is_quiet(p, m)
    cdef int i, n = 0
    if quiet:
        for i in range(n_quiets):
            if quiets[i] != m:
                quiets[n] = quiets[i]
                quiet_keys[n] = quiet_keys[i]
                n += 1
        history_cutoff(&c.hist, p.side, m, mkey, prev1, prev2, ply, depth, quiets,
                       quiet_keys, n)
    else:
        for i in range(n_captures):
            if capture_keys[i] != mkey or capture_victims[i] != victim:
                capture_keys[n] = capture_keys[i]
                capture_victims[n] = capture_victims[i]
                n += 1
        n_captures = n
    capture_history_cutoff(&c.hist, p.side, mkey, victim, not quiet, capture_keys,
                           capture_victims, n_captures, depth)


cdef int _probcut(Context* c, int depth, int beta, int static_eval, int raw_eval, bint found,
                  const TTEntry* te, TTEntry* e, uint64_t key, int ply) noexcept nogil:
    """The value to return when a capture refutes this node at reduced depth with a
    margin to spare (then stored as a lower bound), else VALUE_NONE."""
    cdef Pos* p = &c.pos
    cdef int moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int margin = c.param[PROB_CUT_MARGIN]
    cdef int pc_beta = beta + margin
    cdef int n, i, m, v
    if found and te.depth - 1 >= depth - 3 and value_from_tt(te.value, ply) < pc_beta:
        return VALUE_NONE
    n = generate(p, moves, GEN_CAPTURES | GEN_NO_DOMINATED)
    score_moves(c, moves, scores, n, te.move if found else 0, ply, False, NULL)
    for i in range(n):
        m = pick_best(moves, scores, i, n)
        if captured_type(p, m) == EMPTY or not see_ge(p, m, pc_beta - static_eval):
            continue
        c.move_keys[ply] = move_key(p, m)
        play_move(c, m, ply)
        v = -qsearch(c, -pc_beta, -pc_beta + 1, ply + 1, 0)
        if v >= pc_beta and not c.ctl.aborted:
            v = -search(c, depth - 4, -pc_beta, -pc_beta + 1, ply + 1, False, True, False)
        pos_undo_move(p)
        if c.ctl.aborted:
            return 0
        if v >= pc_beta:
            tt_store(c.tt, e, key, value_to_tt(v, ply), BOUND_LOWER, depth - 3, m, raw_eval)
            return v - margin if is_mate_score(v) == 0 else v
    return VALUE_NONE


cdef enum:
    PRUNE_THIS = 1              # _prune_move: skip this move
    PRUNE_REST = 2              # ... and every quiet move after it


cdef inline int _table_reduced_depth(const Context* c, int depth, int searched) noexcept nogil:
    """The depth a late move would be searched at after the plain table reduction
    (lmr_table, by depth and move number; no history), which the pruning rules weigh."""
    return depth - 1 - c.lmr_table[depth if depth < 64 else 63][
        searched + 1 if searched < 63 else 63]


cdef inline int _prune_move(Context* c, const MovePicker* mp, int m, bint quiet,
                            bint check_given, int depth, int searched, int alpha,
                            int static_eval, int mcp_limit, int best_move) noexcept nogil:
    """Whether a move is not worth searching near the leaves of a node (not in check,
    once a move has kept us from being mated): PRUNE_REST for late quiet moves that
    give no check, from move mcp_limit on (_move_count_limit); PRUNE_THIS for a quiet
    move (no check) whose histories say it fails, or that cannot lift the static score
    to alpha or loses by SEE on its reduced depth (_prune_quiet), and for the captures
    and checks of _prune_capture."""
    if not quiet or check_given:
        return _prune_capture(c, m, quiet, check_given, depth, searched, alpha, static_eval,
                              mp.stage == STAGE_GOOD_CAPTURES)
    if searched >= mcp_limit:
        return PRUNE_REST
    return _prune_quiet(c, mp, m, depth, searched, alpha, static_eval, best_move)


cdef inline int _move_count_limit(const Context* c, int depth, bint improving) noexcept nogil:
    """How many moves a node searches before move-count pruning prunes every later
    quiet move that gives no check: (3 + depth^2) / 2 to depth McpDepth, twice as many
    while the static score improves (drops make the quiet tail of the list very long);
    beyond McpDepth, no limit."""
    if depth > c.param[MCP_DEPTH]:
        return MAX_MOVES + 1
    return (3 + depth * depth) // (2 - improving)


cdef inline int _prune_quiet(Context* c, const MovePicker* mp, int m, int depth,
                             int searched, int alpha, int static_eval,
                             int best_move) noexcept nogil:
    """PRUNE_THIS for a quiet move that gives no check when (as in YaneuraOu, each move
    judged on its own) its continuation and pawn histories sum below
    -QUIET_HISTORY_PRUNE a ply; or, on its reduced depth (the table's, a ply more or
    less for each LMR_HISTORY_PER_PLY of its histories with the butterfly's weighted
    in), the static score with a margin (FutilityBase, FUTILITY_NO_BEST more while no
    move has raised alpha, FUTILITY_ABOVE_ALPHA more when the static score is above
    alpha, FutilityPerDepth a ply, to reduced depth FutilityLmrDepth) stays at or below
    alpha,
    or it loses more than QuietSeePrune x (reduced depth)^2 by SEE.  (Pruning all the
    quiet moves at once after the first that failed futility, as before, scored 0.370
    against YaneuraOu at 200,000 nodes where this scored 0.533, 200 games each:
    docs/decisions.md, "YaneuraOu's per-move quiet pruning".)"""
    cdef Pos* p = &c.pos
    cdef int key = move_key(p, m)
    cdef int history = 0, lmr_depth
    if mp.rows.cont1 != NULL:
        history += mp.rows.cont1[key]
    if mp.rows.cont2 != NULL:
        history += mp.rows.cont2[key]
    if mp.rows.pawn_row != NULL:
        history += mp.rows.pawn_row[key]
    if history < -QUIET_HISTORY_PRUNE * depth:
        return PRUNE_THIS
    history += (LMR_BUTTERFLY_WEIGHT_32 * c.hist.butterfly[p.side][move_from(m)][move_to(m)]
                // 32)
    lmr_depth = _table_reduced_depth(c, depth, searched) + history // LMR_HISTORY_PER_PLY
    if (lmr_depth <= c.param[FUTILITY_LMR_DEPTH]
            and static_eval + c.param[FUTILITY_BASE] + FUTILITY_NO_BEST * (best_move == 0)
            + FUTILITY_ABOVE_ALPHA * (static_eval > alpha)
            + c.param[FUTILITY_PER_DEPTH] * lmr_depth <= alpha):
        return PRUNE_THIS
    if lmr_depth < 0:
        lmr_depth = 0
    if not see_ge(p, m, -c.param[QUIET_SEE_PRUNE] * lmr_depth * lmr_depth):
        return PRUNE_THIS
    return 0


cdef int _prune_capture(Context* c, int m, bint quiet, bint check_given, int depth,
                        int searched, int alpha, int static_eval,
                        bint wins_exchange) noexcept nogil:
    """The pruning of captures and checks near the leaves (YaneuraOu's margins): a
    capture (no check) whose victim, with a margin (CAPTURE_FUTILITY_BASE and _PER_DEPTH
    a ply of reduced depth) and its capture history, cannot lift the static score to
    alpha, and any capture or check that loses more than CHECK_SEE_PER_DEPTH a ply
    (less with a good capture history) by SEE
    while alpha is not below a draw.  wins_exchange: the picker found SEE >= 0 already
    (its good captures), so the SEE test holds without asking."""
    cdef Pos* p = &c.pos
    cdef int victim = captured_type(p, m)
    cdef int hist = capture_history(&c.hist, p.side, move_key(p, m), victim)
    cdef int lmr_depth = _table_reduced_depth(c, depth, searched)
    cdef int margin
    # (a promotion that captures nothing is not judged by its victim: a bishop that
    # promotes onto a fork was pruned so, after its capture history had sunk)
    if (not quiet and not check_given and lmr_depth < CAPTURE_FUTILITY_DEPTH
            and victim != EMPTY
            and static_eval + CAPTURE_FUTILITY_BASE + CAPTURE_FUTILITY_PER_DEPTH * lmr_depth
            + piece_value(victim) + CAPTURE_FUTILITY_HISTORY * hist // 1024 <= alpha):
        return PRUNE_THIS
    margin = CHECK_SEE_PER_DEPTH * depth + hist * CHECK_SEE_HISTORY // 1024
    if margin < 0:
        margin = 0
    # (alpha >= 0: YaneuraOu's reading of Stockfish's guard for a stalemate sacrifice;
    # pruning at any alpha, as Stockfish does, lost games: docs/decisions.md, "CapturePrune")
    if alpha >= 0 and not wins_exchange and not see_ge(p, m, -margin):
        return PRUNE_THIS
    return 0


cdef inline int _late_move_reduction(Context* c, int m, int depth, int searched, int ply,
                                     bint pv_node, bint improving) noexcept nogil:
    """Plies taken off a late quiet move: more the later and deeper, less in PV nodes,
    for killers and for moves with a good history; never negative."""
    cdef int r = c.lmr_table[depth if depth < 64 else 63][searched + 1 if searched < 63 else 63]
    r += (not improving) - pv_node * c.param[PV_LMR]
    if m == c.hist.killers[ply][0] or m == c.hist.killers[ply][1]:
        r -= 1
    r -= quiet_score(&c.hist, c.pos.side, m, move_key(&c.pos, m),
                     c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO,
                     c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO) // c.param[LMR_HISTORY_DIVISOR]
    return r if r > 0 else 0


cdef void iterate(Context* c, int depth, int multipv) noexcept nogil:
    """One iteration of iterative deepening, every MultiPV line, with aspiration."""
    cdef int k, v, alpha, beta, delta, prev
    if depth == 1:
        low_ply_reset(&c.hist)
    if c.kp_net != NULL:
        kp_refresh(&c.pos, c.kp_net, &c.kp_acc[0])
    else:
        hand_refresh(&c.pos, &c.hand_sums[0])
    for k in range(c.root_count):
        c.root_moves[k].previous_score = c.root_moves[k].score
    for k in range(multipv):
        c.pv_index = k
        prev = c.root_moves[k].previous_score
        delta = c.param[ASPIRATION_DELTA]
        if depth >= 4 and is_mate_score(prev) == 0:
            alpha = max(prev - delta, -VALUE_INFINITE)
            beta = min(prev + delta, VALUE_INFINITE)
        else:
            alpha = -VALUE_INFINITE
            beta = VALUE_INFINITE
        while True:
            c.seldepth = 0
            v = search(c, depth, alpha, beta, 0, True, False, False)
            sort_root_moves(c, k)
            if c.ctl.aborted:
                return
            if c.report_bounds and (v <= alpha or v >= beta) and c.ctl.report != NULL:
                # (the Searcher decides whether the line is printed: OutputFailLHPV)
                c.bound = -1 if v <= alpha else 1
                c.bound_value = v
                c.ctl.report(c.ctl.owner)
                c.bound = 0
            if v <= alpha:
                beta = (alpha + beta) // 2
                alpha = max(v - delta, -VALUE_INFINITE)
            elif v >= beta:
                beta = min(v + delta, VALUE_INFINITE)
            else:
                break
            delta += delta // 2 + 20
        sort_root_moves(c, 0)
