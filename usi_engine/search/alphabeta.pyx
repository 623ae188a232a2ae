# cython: language_level=3
"""The tree search: principal variation search and quiescence on one thread's Context.

Everything here is C without the GIL, in one module so that the hot calls inline:
move ordering (the staged picker of search/move_picker.pxd, quiet moves sorted once), pruning
(reverse futility, null move reduced more the further the static score stands above
beta, move-count, futility and SEE pruning of moves near the leaves, at PV nodes
too, captures and checks by YaneuraOu's margins with their capture history), a ply
less for a PV or cut node without a table move (internal iterative reduction),
late-move reductions from a log table (quiet moves, checks and losing captures), a
mate-in-one test at interior nodes the table has not seen and at quiescence nodes
whose stand-pat score is below beta, a static score corrected by what searches found
for the same pawns and hands (correction history), quiescence on captures and pawn
promotions with SEE pruning (after two, recaptures and promotions only; in check
every evasion until one saves the king, then two quiet ones), mate scores in plies,
and the game rules (repetition, declaration, move limit) as terminal values.
`iterate` runs one aspiration-window iteration at the root; search/threads.pyx holds the
contexts' lifetime and the lazy-SMP helpers' iterative deepening, and the Searcher
(search/searcher.pyx) drives both.  The tuned parameters (TUNABLES) are in
search/params.pxi, included here.
"""
cimport cython
from libc.stdint cimport uint64_t
from libc.string cimport memcpy
from libc.math cimport log

from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport (Pos, Position, in_check, pieces, state, position_key,
                                  pos_do_move, pos_undo_move, pos_key_after,
                                  pos_do_null, pos_undo_null, pos_repetition,
                                  pos_declaration_win,
                                  REPETITION_DRAW, REPETITION_WIN, REPETITION_LOSE,
                                  REPETITION_SUPERIOR, REPETITION_INFERIOR)
from usi_engine.core.movegen cimport (GEN_LEGAL, GEN_CAPTURES, GEN_CHECKS, generate, gives_check,
                                 drop_dominated, drop_unpromoted,
                                 is_legal, mate_in_one)
from usi_engine.eval.handwritten cimport piece_value, hand_refresh, hand_update, hand_value
from usi_engine.eval.kp cimport KPAcc, kp_refresh, kp_update, kp_value
from usi_engine.core.see cimport see_ge, see_value
from usi_engine.search.history cimport (History, NO_PIECE_TO, CORR_BITS, CORR_LIMIT, piece_to,
                                 quiet_score, history_cutoff, history_cont_bonus,
                                 pawn_history_cutoff, PAWN_HIST_BITS, capture_history_cutoff,
                                 butterfly_bonus, low_ply_reset, capture_history,
                                 correction_update)
from usi_engine.core.tt cimport (TT, TTEntry, BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT,
                            tt_probe, tt_store, tt_prefetch)
from usi_engine.core.control cimport Control, ctl_count
from usi_engine.search.root_moves cimport root_moves_into, record_root_move, sort_root_moves
from usi_engine.search.move_picker cimport (MovePicker, picker_init, next_move, captured_type, moved_type,
                                     is_quiet, move_key, score_moves, pick_best,
                                     quiet_checks, previous_key)

init_tables()

include "params.pxi"


cdef inline int victim_value(int victim) noexcept nogil:
    """What futility counts capturing a piece of this type as worth (CaptureGain)."""
    return see_value(victim) if CAPTURE_GAIN else piece_value(victim)


cdef inline void update_pv(Context* c, int ply, int m) noexcept nogil:
    cdef int n = c.pv_length[ply + 1]
    c.pv[ply][0] = m
    if n > 0:
        memcpy(&c.pv[ply][1], &c.pv[ply + 1][0], n * sizeof(int))
    c.pv_length[ply] = n + 1


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
    if REPETITION_HAND and rep == REPETITION_SUPERIOR:
        return REPETITION_HAND
    if REPETITION_HAND and rep == REPETITION_INFERIOR:
        return -REPETITION_HAND
    if c.entering_king_rule and pos_declaration_win(p):
        return mate_in(ply)
    if c.max_game_ply and p.game_ply > c.max_game_ply:
        return 0
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


cdef inline int corrected_value(Context* c, int raw) noexcept nogil:
    """The static score less what searches of positions with the same pawns and hands
    have found it to be off by (correction history, as in Stockfish)."""
    cdef int pi, hi, v
    if not CORR_HIST:
        return raw
    correction_indices(&c.pos, &pi, &hi)
    v = raw + (c.hist.corr_pawn[c.pos.side][pi] + c.hist.corr_hand[c.pos.side][hi]) // 16
    if v >= VALUE_MATE_IN_MAX_PLY:
        return VALUE_MATE_IN_MAX_PLY - 1
    if v <= -VALUE_MATE_IN_MAX_PLY:
        return -VALUE_MATE_IN_MAX_PLY + 1
    return v


cdef inline void correct_static_value(Context* c, int best, int static_eval,
                                      int depth) noexcept nogil:
    cdef int pi, hi
    cdef int bonus = (best - static_eval) * depth // 8
    if bonus > CORR_LIMIT // 4:
        bonus = CORR_LIMIT // 4
    elif bonus < -CORR_LIMIT // 4:
        bonus = -CORR_LIMIT // 4
    correction_indices(&c.pos, &pi, &hi)
    correction_update(&c.hist, c.pos.side, pi, hi, bonus)


cdef inline void play_move(Context* c, int m, int ply) noexcept nogil:
    """Play m at ply and bring the evaluation's sums (learned or hand-written) to ply + 1."""
    pos_do_move(&c.pos, m)
    tt_prefetch(c.tt, position_key(&c.pos))
    if c.kp_net != NULL:
        kp_update(&c.pos, c.kp_net, &c.kp_acc[ply], &c.kp_acc[ply + 1])
    else:
        hand_update(&c.pos, &c.hand_sums[ply], &c.hand_sums[ply + 1])


cdef inline void play_null(Context* c, int ply) noexcept nogil:
    pos_do_null(&c.pos)
    tt_prefetch(c.tt, position_key(&c.pos))
    c.kp_acc[ply + 1] = c.kp_acc[ply]
    c.hand_sums[ply + 1] = c.hand_sums[ply]


cdef int qsearch(Context* c, int alpha, int beta, int ply, int qply) noexcept nogil:
    cdef Pos* p = &c.pos
    cdef int moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int n, i, m, v, best, stand_pat, victim, last, prev_sq
    cdef int tried = 0, quiet_evasions = 0, checks_tried = 0
    cdef int raw_eval = 0
    cdef bint checked = in_check(p)
    cdef bint found, check_capture
    cdef TTEntry* e
    cdef TTEntry te
    cdef int tt_move = 0, tt_value = VALUE_NONE, futility_base = 0
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
        tt_value = v
    if checked:
        n = generate(p, moves, GEN_LEGAL)
        if n == 0:
            return mated_in(ply)
        if SKIP_DOMINATED:
            n = drop_dominated(p, moves, n)
        if qply >= QSEARCH_MAX_PLIES:
            return static_value(c, ply)
        best = -VALUE_INFINITE
        stand_pat = -VALUE_INFINITE
    else:
        raw_eval = static_value(c, ply)
        stand_pat = corrected_value(c, raw_eval)
        futility_base = stand_pat + 328
        if (QS_SHAPE & 2 and tt_value != VALUE_NONE and is_mate_score(tt_value) == 0
                and te.gen_bound & (BOUND_LOWER if tt_value > stand_pat else BOUND_UPPER)):
            stand_pat = tt_value    # a searched bound on the right side of the static score
        if QS_MATE1_AFTER_STAND_PAT and (stand_pat >= beta or qply >= QSEARCH_MAX_PLIES):
            # (a mate would fail high too: no need to look)
            return _qs_stand(stand_pat, beta)
        if not found and qply < QS_MATE1_PLIES:
            # a mate in one, which standing pat would not see (drops mate often); a
            # table hit has been through this test already.  Kept: +12 Elo [-35, +60]
            # in 200 games at 100 ms byoyomi, though it costs 35% more time to depth 10.
            # Only at the first quiescence ply (QsMate1Plies 1): 1.8x less CPU to depth
            # 10 on middle-game positions, but -10 [-58, +37] in 200 games: every ply
            m = mate_in_one(p)
            if m:
                v = mate_in(ply + 1)
                c.pv[ply][0] = m
                c.pv_length[ply] = 1
                # (with the static score: the main search takes it from the table)
                tt_store(c.tt, e, key, value_to_tt(v, ply), BOUND_EXACT, 0, m, raw_eval)
                return v
        if stand_pat >= beta or qply >= QSEARCH_MAX_PLIES:
            return _qs_stand(stand_pat, beta)
        if stand_pat > alpha:
            alpha = stand_pat
        best = stand_pat
        n = generate(p, moves, GEN_CAPTURES)
        if QS_PROMOTE_ONLY:
            n = drop_unpromoted(p, moves, n)
        if QS_CHECKS and qply == 0:
            n += quiet_checks(p, moves + n)
        if SKIP_DOMINATED:
            n = drop_dominated(p, moves, n)
    # quiescence tests SEE only on the moves it gets to (most are cut off first)
    score_moves(c, moves, scores, n, tt_move, ply, False)
    last = state(p).move
    prev_sq = move_to(last) if last != MOVE_NONE else -1
    for i in range(n):
        m = pick_best(moves, scores, i, n)
        if checked:
            if QS_EVASION_LIMIT and is_quiet(p, m) and best > -VALUE_MATE_IN_MAX_PLY:
                if quiet_evasions >= QS_EVASION_LIMIT:
                    continue
                quiet_evasions += 1
        elif QS_CHECKS and is_quiet(p, m):
            # a quiet check (they follow the captures): not delta-pruned, as the attack
            # may win more than a piece, but never one that loses material
            if checks_tried >= QS_CHECKS or not see_ge(p, m, 0):
                continue
            checks_tried += 1
        else:
            check_capture = QS_CHECK_EXEMPT and gives_check(p, m)
            if move_to(m) != prev_sq and not check_capture:
                if QS_RECAPTURE_PLY and qply >= QS_RECAPTURE_PLY:
                    continue
                if QS_MOVE_COUNT and tried >= QS_MOVE_COUNT and not move_is_promotion(m):
                    continue
            victim = captured_type(p, m)
            # quiet promotions: only the pawn's (a silver or a lance gains little, and
            # a bishop or rook promotes at leisure); the rest belong to the main search
            if victim == EMPTY and moved_type(p, m) != PAWN:
                continue
            if QS_SHAPE & 4:
                if move_to(m) != prev_sq and not check_capture:
                    # YaneuraOu's futility: the bound a pruned capture stands for
                    # raises the best score (fail-soft)
                    v = futility_base + victim_value(victim)
                    if v <= alpha:
                        if v > best:
                            best = v
                        continue
                    if not see_ge(p, m, alpha - futility_base):
                        v = alpha if alpha < futility_base else futility_base
                        if v > best:
                            best = v
                        continue
                tt_prefetch(c.tt, pos_key_after(p, m))
                if not see_ge(p, m, -73):
                    continue
            else:
                # delta pruning: even winning the piece cannot lift us to alpha
                if (stand_pat + victim_value(victim) + QS_DELTA_MARGIN < alpha
                        and not move_is_promotion(m) and not check_capture):
                    continue
                # (the child's table bucket loads while SEE runs)
                tt_prefetch(c.tt, pos_key_after(p, m))
                # a capture that gives up more than it wins
                if not see_ge(p, m, 0):
                    continue
        tried += 1
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
    if QS_SHAPE & 2 and best > beta and is_mate_score(best) == 0:
        best = (best + beta) // 2
    tt_store(c.tt, e, key, value_to_tt(best, ply),
             BOUND_LOWER if best >= beta else (
                 BOUND_EXACT if best > old_alpha and not QS_SHAPE & 1 else BOUND_UPPER),
             0, best_move, raw_eval)
    return best


cdef inline int _qs_stand(int stand_pat, int beta) noexcept nogil:
    """Quiescence's value when it stands pat at or above beta: pulled halfway to beta
    with QsShape bit 2 (YaneuraOu's and Stockfish's fail-soft blend), else itself."""
    if QS_SHAPE & 2 and stand_pat >= beta and is_mate_score(stand_pat) == 0:
        return (stand_pat + beta) // 2
    return stand_pat


# (Techniques tried and not kept, with their match results: README.md, "Figures".)
cdef int search(Context* c, int depth, int alpha, int beta, int ply, bint pv_node,
                bint null_ok, bint cut_node, int excluded) noexcept nogil:
    # excluded: a move left out (the singular-extension test searches the node without
    # its table move); such a search neither prunes the node early nor stores it
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
    cdef int static_eval, raw_eval, new_depth, reduction, searched = 0, bound, node_eval
    cdef int extension, singular_beta, reduced_depth, pruned, weighed = 0, move_number
    cdef int old_alpha = alpha
    cdef int r_base = 0, r_yo = 0, us
    cdef bint checked, found, done, quiet, check_given, improving, reducible, tt_capture
    cdef bint was_pv, tt_deep, yo_tt_capture
    cdef TTEntry* e
    cdef TTEntry te
    cdef uint64_t key

    if depth <= 0:
        return qsearch(c, alpha, beta, ply, 0)
    ctl_count(&c.ctl)
    c.pv_length[ply] = 0
    c.cutoff_cnt[ply + 2] = 0
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
        return static_value(c, ply)

    key = position_key(p)
    e = tt_probe(c.tt, key, &found, &te)
    if found:
        tt_move = te.move
        tt_value = value_from_tt(te.value, ply)
        if not pv_node and not excluded and te.depth - 1 >= depth:
            bound = te.gen_bound & 3
            if (bound == BOUND_EXACT or (bound == BOUND_LOWER and tt_value >= beta)
                    or (bound == BOUND_UPPER and tt_value <= alpha)):
                return tt_value

    checked = in_check(p)
    raw_eval = -VALUE_INFINITE if checked else (te.eval if found else static_value(c, ply))
    static_eval = raw_eval if checked else corrected_value(c, raw_eval)
    c.static_evals[ply] = static_eval
    # improving: the static score rose since our previous move (or cannot be compared)
    improving = not checked and (ply < 2 or c.static_evals[ply - 2] == -VALUE_INFINITE
                                 or static_eval > c.static_evals[ply - 2])
    # a node on a principal variation now or when the table's exact entry was stored
    # (Stockfish's ttPv, read from the bound instead of a flag of its own)
    was_pv = pv_node or (found and (te.gen_bound & 3) == BOUND_EXACT)
    if HISTORY_EXTRAS & 1 and not excluded:
        _learn_from_eval_change(c, ply, static_eval)
    node_eval = static_eval
    if TT_EVAL and found and not checked and tt_value != VALUE_NONE and (
            te.gen_bound & (BOUND_LOWER if tt_value > static_eval else BOUND_UPPER)):
        node_eval = tt_value

    if NODE_SHAPE and not pv_node and not checked and not excluded and is_mate_score(beta) == 0:
        v = _yo_node_prune(c, depth, alpha, beta, ply, node_eval, static_eval, improving,
                           found, was_pv, tt_move, null_ok, cut_node)
        if v != VALUE_NONE:
            return v
    elif not pv_node and not checked and not excluded and is_mate_score(beta) == 0:
        # razoring: far below alpha near the leaves, only a capture could help
        if (RAZOR_MARGIN and depth <= 3 and ply
                and node_eval + RAZOR_MARGIN * depth * depth < alpha):
            v = qsearch(c, alpha, alpha + 1, ply, 0)
            if v <= alpha:
                return v
        # reverse futility: far above beta near the leaves (to depth 8 instead of 5:
        # 1.6x less CPU to depth 10 on middle-game positions, -11 [-72, +50] in 127
        # games at 100 ms, stopped; not kept)
        if (depth <= RFP_DEPTH and node_eval - RFP_MARGIN * (
                depth - (<int>improving if RFP_IMPROVING else 0)) >= beta
                and (RFP_QUIET_TT_MOVE or tt_move == 0 or not is_quiet(p, tt_move))):
            return node_eval
        # null move: if passing still beats beta, a real move will too
        if (null_ok and depth >= NULL_MIN_DEPTH and node_eval >= beta
                and (cut_node or not NULL_CUT_ONLY)
                and (NULL_MARGIN_BASE == 0
                     or static_eval >= beta + NULL_MARGIN_BASE - NULL_MARGIN_DEPTH * depth)):
            reduction = NULL_BASE + depth // NULL_DEPTH_DIVISOR
            if NULL_EVAL_DIVISOR:
                # more the further the static score stands above beta
                reduction += min((node_eval - beta) // NULL_EVAL_DIVISOR, 3)
            c.move_keys[ply] = NO_PIECE_TO
            play_null(c, ply)
            v = -search(c, depth - 1 - reduction, -beta, -beta + 1, ply + 1, False, False, False,
                        0)
            pos_undo_null(p)
            if c.ctl.aborted:
                return 0
            if v >= beta:
                return beta if v >= VALUE_MATE_IN_MAX_PLY else v

        # ProbCut: a capture whose shallow search beats beta by a margin would very
        # probably beat beta at full depth too
        if PROBCUT_MARGIN and depth >= 5:
            v = _probcut(c, depth, beta, static_eval, raw_eval, found, &te, e, key, ply)
            if v != VALUE_NONE:
                return v

    if NODE_SHAPE:
        if depth >= 6 and tt_move == 0 and (pv_node or cut_node):
            depth -= 1  # (YaneuraOu's internal iterative reduction)
    elif IIR_DEPTH and depth >= IIR_DEPTH and tt_move == 0 and (pv_node or cut_node):
        depth -= 1      # no table move: a cheaper search first (internal iterative reduction)
    if ply and not checked and depth >= MATE1_MIN_DEPTH and not found:
        # a mate in one ends the search of this node with its exact value (a table hit
        # has been through this test already: 11% less time to depth 10 on the bench)
        m = mate_in_one(p)
        if m:
            v = mate_in(ply + 1)
            c.pv[ply][0] = m
            c.pv_length[ply] = 1
            tt_store(c.tt, e, key, value_to_tt(v, ply), BOUND_EXACT, depth, m, raw_eval)
            return v
    prev1 = c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO
    prev2 = c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO
    picker_init(&mp, c, tt_move, ply, ply == 0 or checked, -QUIET_SORT_LIMIT * depth,
                QUIET_SORT_LIMIT > 0, THREAT_ORDER, QUIET_CHECK_BONUS, SKIP_DOMINATED)
    if ply == 0:
        mp.n = root_moves_into(c, mp.moves)
        mp.root_by_key = ROOT_ORDER
    if PAWN_HISTORY:
        mp.pawn_index = pawn_history_index(p)
    # a capture as the table move: the quiet alternatives are less likely to matter
    tt_capture = TT_CAPTURE_REDUCTION and mp.tt_move != 0 and not is_quiet(p, mp.tt_move)
    tt_deep = found and te.depth - 1 >= depth
    yo_tt_capture = LMR_SHAPE and mp.tt_move != 0 and not is_quiet(p, mp.tt_move)
    us = p.side
    best = -VALUE_INFINITE
    handed_out = 0
    while True:
        m = next_move(&mp, c)
        if m == 0:
            break
        if m == excluded:
            continue
        handed_out += 1
        quiet = is_quiet(p, m)
        check_given = gives_check(p, m)
        if mp.skip_quiets and quiet and not check_given:
            continue
        # the moves before this one that move-count pruning and LMR count: those
        # searched, or with CountPruned every one weighed, pruned or not (as in
        # YaneuraOu's, whose pruned moves still bring the later ones' pruning nearer)
        move_number = weighed if COUNT_PRUNED else searched
        weighed += 1
        # (the child's table bucket loads while the move is weighed)
        tt_prefetch(c.tt, pos_key_after(p, m))
        if LMR_SHAPE:
            r_base = _yo_reduction(c, improving, depth, weighed, beta - alpha)
            if ply and not checked and best > -VALUE_MATE_IN_MAX_PLY:
                pruned = _prune_move_yo(c, m, quiet, check_given, depth, weighed, alpha,
                                        static_eval, improving, r_base + 1013 * was_pv,
                                        best_move == 0, ply)
                if pruned:
                    if pruned == PRUNE_REST:
                        mp.skip_quiets = True
                    continue
        elif (ply and (PRUNE_PV or not pv_node) and not checked
                and (PRUNE_CHECKS & 6 or CAPTURE_PRUNE or not check_given)
                and best > -VALUE_MATE_IN_MAX_PLY):
            pruned = _prune_move(c, m, quiet, check_given, depth, move_number, alpha,
                                 static_eval, improving, ply, pv_node)
            if pruned:
                # move-count and futility pruning of quiet moves only grow stricter as
                # the node goes on (more moves searched, alpha higher): once one quiet
                # move that gives no check is pruned so, all the rest are
                if pruned == PRUNE_REST:
                    mp.skip_quiets = True
                continue
        elif (EVASION_PRUNE & 1 and checked and ply and quiet and not check_given
                and best > -VALUE_MATE_IN_MAX_PLY
                and _losing_evasion(c, m, depth, move_number)):
            continue
        extension = 0
        if (SINGULAR_DEPTH and m == mp.tt_move and ply and not excluded
                and depth >= SINGULAR_DEPTH and found and te.depth - 1 >= depth - 3
                and te.gen_bound & BOUND_LOWER and is_mate_score(tt_value) == 0
                and ply < 2 * c.current_depth):
            extension = _singular_extension(c, m, depth, beta, tt_value, ply, pv_node,
                                            cut_node, &singular_beta)
            if c.ctl.aborted:
                return 0
            if extension == MULTI_CUT:
                return singular_beta
        new_depth = depth - 1 + extension
        reduction = 0
        if LMR_SHAPE:
            r_yo = _yo_lmr(c, m, r_base, quiet, depth, weighed, alpha, ply, pv_node, cut_node,
                           was_pv, tt_deep, tt_value, mp.tt_move, yo_tt_capture)
        # quiet checks and losing captures are reduced too, a ply less than other quiet
        # moves (PruneChecks 1): fewer nodes on middle-game positions (3x to depth 9 when
        # measured; 0.69x at depth 10 with today's ordering, tests/test_tuning.py), +102
        # Elo [+54, +154] in 200 games at 100 ms.  Not kept, as they searched more nodes
        # to depth 9: reducing good captures too, reducing evasions, reducing from depth
        # 2.  (Pruning quiet moves whose SEE loses 50 x (reduced depth)^2 searched more
        # nodes too, yet at 25 x it won games: QuietSeePrune.)
        if (not LMR_SHAPE and depth >= LMR_MIN_DEPTH and searched >= 1 + 2 * pv_node
                and (not checked or EVASION_PRUNE & 2) and (ply or ROOT_LMR)):
            reducible = quiet and not check_given
            if PRUNE_CHECKS & 1 and not reducible:
                reducible = quiet or not see_ge(p, m, 0)    # (SEE only for late moves)
            if reducible:
                # (a check whose reduction would be 0 gets -1: its null-window search
                # is a ply deeper, an extension measured only as part of PruneChecks 1)
                reduction = _late_move_reduction(c, m, depth, move_number, ply, pv_node,
                                                 improving)
                if was_pv and TT_PV_LMR:
                    reduction = reduction - TT_PV_LMR if reduction > TT_PV_LMR else 0
                reduction += (- check_given + cut_node * CUT_NODE_REDUCTION
                             + (TT_CAPTURE_REDUCTION if tt_capture and quiet else 0))
                if reduction > new_depth - 1:
                    reduction = new_depth - 1
        mkey = move_key(p, m)
        c.move_keys[ply] = mkey
        play_move(c, m, ply)
        if LMR_SHAPE:
            v = _yo_search_move(c, m, mkey, us, depth, new_depth, r_yo, alpha, beta, best, ply,
                                pv_node, cut_node, searched == 0, mp.tt_move == 0)
        elif searched == 0:
            v = -search(c, new_depth, -beta, -alpha, ply + 1, pv_node, True,
                        not pv_node and not cut_node, 0)
        else:
            reduced_depth = new_depth - reduction
            v = -search(c, reduced_depth, -alpha - 1, -alpha, ply + 1, False, True,
                        reduction > 0 or not cut_node, 0)
            # (an aborted search returns 0, which must not trigger a re-search: the
            # node limit would be passed by one node)
            if v > alpha and reduction and not c.ctl.aborted:
                if LMR_DEEPER:
                    # how far the reduced search beat the best so far says how deep
                    # to look again (as in Stockfish-family searches)
                    new_depth += ((v > best + LMR_DEEPER + 2 * new_depth
                                   and (DEEPER_ROOM == 0
                                        or ply + depth < c.current_depth + DEEPER_ROOM))
                                  - (v < best + 9))
                if not LMR_DEEPER or new_depth > reduced_depth:
                    v = -search(c, new_depth, -alpha - 1, -alpha, ply + 1, False, True,
                                not cut_node, 0)
            # (PvResearch 1: after any fail high, as Stockfish-family searches: a
            # null-window result comes from a search that prunes as at non-PV nodes)
            if (v > alpha and pv_node and (v < beta or PV_RESEARCH) and not c.ctl.aborted):
                v = -search(c, new_depth, -beta, -alpha, ply + 1, True, True, False, 0)
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
                    c.cutoff_cnt[ply] += extension < 2 or pv_node
                    if quiet:
                        history_cutoff(&c.hist, p.side, m, mkey, prev1, prev2, ply, depth,
                                       quiets_tried, quiet_keys, n_quiets, HISTORY_BONUS_SCALE,
                                       previous_key(c, ply, 3), previous_key(c, ply, 4),
                                       previous_key(c, ply, 6))
                        if mp.pawn_index >= 0:
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

    if handed_out == 0:
        # no legal move: lost, in check or not (or, without the excluded move, none
        # other: that move is singular)
        return alpha if excluded else mated_in(ply)
    if excluded:
        return best
    if HISTORY_EXTRAS & 2 and best_move == 0 and ply:
        _reward_prior_quiet(c, ply, depth, best, static_eval, checked)
    if HISTORY_EXTRAS & 4 and best_move and best < beta:
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
        if CORR_HIST:
            correct_static_value(c, best, static_eval, depth)
    tt_store(c.tt, e, key, value_to_tt(best, ply), bound, depth, best_move,
             raw_eval if raw_eval > -VALUE_INFINITE else 0)
    return best


cdef inline bint _prior_quiet(Context* c, int ply) noexcept nogil:
    # the move that led here was a real move (no null move) that took nothing
    cdef int last = state(&c.pos).move
    return (ply >= 1 and c.move_keys[ply - 1] != NO_PIECE_TO and last != MOVE_NONE
            and state(&c.pos).captured == EMPTY)


cdef inline void _learn_from_eval_change(Context* c, int ply, int static_eval) noexcept nogil:
    """HistoryExtras bit 1: the quiet move that led here, from a position not in check,
    rises in its side's butterfly as far as it improved the static score for that side
    (YaneuraOu's and Stockfish's sizes: (clamp(-(before + now), -214, 171) + 60) x 10)."""
    cdef int before, diff
    if static_eval == -VALUE_INFINITE or not _prior_quiet(c, ply):
        return
    before = c.static_evals[ply - 1]
    if before == -VALUE_INFINITE:
        return
    diff = -(before + static_eval)
    diff = (-214 if diff < -214 else (171 if diff > 171 else diff)) + 60
    butterfly_bonus(&c.hist, 1 - c.pos.side, state(&c.pos).move, diff * 10)


cdef inline void _reward_prior_quiet(Context* c, int ply, int depth, int best, int static_eval,
                                     bint checked) noexcept nogil:
    """HistoryExtras bit 2: no move here reached alpha, so the opponent's quiet move
    that led here was a good one: it rises in its continuation histories and butterfly,
    more the deeper the node and the further below the static scores the search fell
    (YaneuraOu's bonus, without its terms for the previous node's history and move
    count)."""
    cdef int scale, bonus, before
    if not _prior_quiet(c, ply):
        return
    scale = -232 + min(59 * depth, 454)
    if not checked and best <= static_eval - 110:
        scale += 145
    before = c.static_evals[ply - 1]
    if before != -VALUE_INFINITE and best <= -before - 73:
        scale += 154
    if scale <= 0:
        return
    bonus = min(135 * depth - 80, 1400) * scale
    history_cont_bonus(&c.hist, 1 - c.pos.side, c.move_keys[ply - 1],
                       c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO,
                       c.move_keys[ply - 3] if ply >= 3 else NO_PIECE_TO,
                       bonus * 221 // 16384)
    butterfly_bonus(&c.hist, 1 - c.pos.side, state(&c.pos).move,
                    bonus * 235 // 32768)


cdef void _reward_best(Context* c, int m, int ply, int depth, int prev1, int prev2,
                       int* quiets, int* quiet_keys, int n_quiets, int* capture_keys,
                       int* capture_victims, int n_captures) noexcept nogil:
    """HistoryExtras bit 4: the histories' update of a cut-off, for the best move of a
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
                       quiet_keys, n, HISTORY_BONUS_SCALE, previous_key(c, ply, 3),
                       previous_key(c, ply, 4), previous_key(c, ply, 6))
    else:
        for i in range(n_captures):
            if capture_keys[i] != mkey or capture_victims[i] != victim:
                capture_keys[n] = capture_keys[i]
                capture_victims[n] = capture_victims[i]
                n += 1
        n_captures = n
    capture_history_cutoff(&c.hist, p.side, mkey, victim, not quiet, capture_keys,
                           capture_victims, n_captures, depth)


# ProbCut (ProbCutMargin 200, the default since 2026-11-26): at first -53 Elo [-123, +12]
# in 105 games at 100 ms byoyomi, while SEE chose its captures wrongly; after the SEE fix
# +21 [-12, +54] in 400 games (the opening file and its rotation, hand-set evaluation).
cdef int _probcut(Context* c, int depth, int beta, int static_eval, int raw_eval, bint found,
                  const TTEntry* te, TTEntry* e, uint64_t key, int ply) noexcept nogil:
    """The value to return when a capture refutes this node at reduced depth with a
    margin to spare (then stored as a lower bound), else VALUE_NONE."""
    cdef Pos* p = &c.pos
    cdef int moves[MAX_MOVES]
    cdef int scores[MAX_MOVES]
    cdef int pc_beta = beta + PROBCUT_MARGIN
    cdef int n, i, m, v
    if found and te.depth - 1 >= depth - 3 and value_from_tt(te.value, ply) < pc_beta:
        return VALUE_NONE
    n = generate(p, moves, GEN_CAPTURES)
    if SKIP_DOMINATED:
        n = drop_dominated(p, moves, n)
    score_moves(c, moves, scores, n, te.move if found else 0, ply, False)
    for i in range(n):
        m = pick_best(moves, scores, i, n)
        if captured_type(p, m) == EMPTY or not see_ge(p, m, pc_beta - static_eval):
            continue
        c.move_keys[ply] = move_key(p, m)
        play_move(c, m, ply)
        v = -qsearch(c, -pc_beta, -pc_beta + 1, ply + 1, 0)
        if v >= pc_beta and not c.ctl.aborted:
            v = -search(c, depth - 4, -pc_beta, -pc_beta + 1, ply + 1, False, True, False, 0)
        pos_undo_move(p)
        if c.ctl.aborted:
            return 0
        if v >= pc_beta:
            tt_store(c.tt, e, key, value_to_tt(v, ply), BOUND_LOWER, depth - 3, m, raw_eval)
            return v - PROBCUT_MARGIN if is_mate_score(v) == 0 else v
    return VALUE_NONE


cdef enum:
    MULTI_CUT = 100             # _singular_extension: return singular_beta from the node


cdef int _singular_extension(Context* c, int m, int depth, int beta, int tt_value, int ply,
                             bint pv_node, bint cut_node, int* singular_beta) noexcept nogil:
    """Plies to add to the table move m's search (as in Stockfish-family searches): one
    when every other move fails low against its table value less a margin at half depth
    (m is singular); MULTI_CUT when even that lowered bound beats beta at a non-PV node
    (several moves refute the node); fewer plies (-2 or -1) when other moves come as
    close and the table value already beats beta, the node is an expected cut node, or
    the others' search reached the table value."""
    cdef int s_beta = tt_value - SINGULAR_MARGIN * depth // 8
    cdef int v = search(c, (depth - 1) // 2, s_beta - 1, s_beta, ply, False, False, cut_node, m)
    cdef bint quiet_tt
    singular_beta[0] = s_beta
    if v < s_beta:
        if SINGULAR_MULTI:
            # as YaneuraOu's and Stockfish's: two or three plies where the other moves
            # fall far enough short (a quiet table move at a non-PV node: always three)
            quiet_tt = is_quiet(&c.pos, m)
            return (1 + (v < s_beta - 212 * pv_node + 182 * quiet_tt)
                    + (v < s_beta - 73 - 320 * pv_node + 218 * quiet_tt))
        return 1
    if not pv_node and s_beta >= beta:
        return MULTI_CUT
    if tt_value >= beta or cut_node:
        return -2
    if tt_value <= v:
        return -1
    return 0


cdef enum:
    PRUNE_THIS = 1              # _prune_move: skip this move
    PRUNE_REST = 2              # ... and every quiet move after it


cdef inline int _table_reduced_depth(int depth, int searched) noexcept nogil:
    """The depth a late move would be searched at after the plain table reduction
    (LMR_TABLE, by depth and move number; no history), which the pruning rules weigh."""
    return depth - 1 - LMR_TABLE[depth if depth < 64 else 63][
        searched + 1 if searched < 63 else 63]


cdef inline int _prune_move(Context* c, int m, bint quiet, bint check_given, int depth,
                            int searched, int alpha, int static_eval, bint improving,
                            int ply, bint pv_node) noexcept nogil:
    """Whether a move is not worth searching near the leaves of a node (a PV node too
    unless PrunePv is 0; not in check, once a move has kept us from being mated):
    PRUNE_REST for late quiet moves that give no check, after (3 + depth^2) / 2 moves to
    depth McpDepth (7), twice as many while the static score improves (drops make the
    quiet tail of the list very long), and for those that cannot lift the static score
    to alpha on the depth left after their late-move reduction (to a reduced depth of
    FutilityLmrDepth, 6); PRUNE_THIS for a quiet move that loses more than QuietSeePrune
    x (reduced depth)^2 by SEE (0: never).  Captures are pruned only with
    CaptureFutility.

    PruneChecks bits 2 and 4 add quiet checks to the move-count rule and SEE-prune
    checks and captures losing over 200 per ply to depth 8 (bit 4 only with
    CapturePrune 0: that rule decides captures and checks first; README.md has the
    matches behind each rule)."""
    cdef int lmr_depth
    if (quiet and depth <= MCP_DEPTH and searched >= (3 + depth * depth) // (2 - improving)
            and (not check_given or PRUNE_CHECKS & 2)):
        return PRUNE_REST if not check_given else PRUNE_THIS
    if (CAPTURE_FUTILITY and not quiet and not check_given and depth <= 6
            and static_eval + CAPTURE_FUTILITY * (depth + 1)
            + victim_value(captured_type(&c.pos, m)) <= alpha):
        return PRUNE_THIS   # even winning its victim leaves this capture far below alpha
    if (not quiet or check_given) and CAPTURE_PRUNE:
        return _prune_capture(c, m, quiet, check_given, depth, searched, alpha, static_eval)
    if not quiet or check_given:
        # (with PruneChecks) a capture or check that loses material beyond a margin
        return (PRUNE_THIS if PRUNE_CHECKS & 4 and depth <= 8
                and not see_ge(&c.pos, m, -SEE_PRUNE_MARGIN * depth) else 0)
    # futility on the depth the move would be searched at after its reduction
    if FUTILITY_HISTORY:
        lmr_depth = depth - 1 - _late_move_reduction(c, m, depth, searched, ply, pv_node,
                                                     improving)
    else:
        lmr_depth = _table_reduced_depth(depth, searched)
    if lmr_depth < 0:
        lmr_depth = 0
    if (lmr_depth <= FUTILITY_LMR_DEPTH
            and static_eval + FUTILITY_BASE + FUTILITY_PER_DEPTH * lmr_depth <= alpha):
        return PRUNE_REST
    if QUIET_SEE_PRUNE and not see_ge(&c.pos, m, -QUIET_SEE_PRUNE * lmr_depth * lmr_depth):
        return PRUNE_THIS
    return 0


cdef int _prune_capture(Context* c, int m, bint quiet, bint check_given, int depth,
                        int searched, int alpha, int static_eval) noexcept nogil:
    """CapturePrune 1, YaneuraOu's pruning of captures and checks near the leaves: a
    capture (no check) whose victim, with a margin of 218 + 223 per ply of reduced depth
    and its capture history, cannot lift the static score to alpha, and any capture or
    check that loses more than 167 per ply (less with a good capture history) by SEE
    while alpha is not below a draw (CapturePrune 2: whatever alpha is)."""
    cdef Pos* p = &c.pos
    cdef int victim = captured_type(p, m)
    cdef int hist = capture_history(&c.hist, p.side, move_key(p, m), victim)
    cdef int lmr_depth = _table_reduced_depth(depth, searched)
    cdef int margin
    # (a promotion that captures nothing is not judged by its victim: a bishop that
    # promotes onto a fork was pruned so, after its capture history had sunk)
    if (not quiet and not check_given and lmr_depth < 7 and victim != EMPTY
            and static_eval + 218 + 223 * lmr_depth + victim_value(victim)
            + 131 * hist // 1024 <= alpha):
        return PRUNE_THIS
    margin = 167 * depth + hist * 34 // 1024
    if margin < 0:
        margin = 0
    # (alpha >= 0: YaneuraOu's reading of Stockfish's guard for a stalemate sacrifice,
    # which shogi does not have; CapturePrune 2 prunes as Stockfish does, at any alpha)
    if (alpha >= 0 or CAPTURE_PRUNE == 2) and not see_ge(p, m, -margin):
        return PRUNE_THIS
    return 0


cdef inline bint _losing_evasion(Context* c, int m, int depth, int searched) noexcept nogil:
    """EvasionPrune bit 1: a quiet evasion (an interposition that the checker takes, a
    king step into an exchange) that loses more than QuietSeePrune x (reduced depth)^2
    by SEE, as the quiet moves of a node not in check."""
    cdef int lmr_depth = _table_reduced_depth(depth, searched)
    if lmr_depth < 0:
        lmr_depth = 0
    return QUIET_SEE_PRUNE and not see_ge(&c.pos, m, -QUIET_SEE_PRUNE * lmr_depth * lmr_depth)


cdef inline int _late_move_reduction(Context* c, int m, int depth, int searched, int ply,
                                     bint pv_node, bint improving) noexcept nogil:
    """Plies taken off a late quiet move: more the later and deeper, less in PV nodes,
    for killers and for moves with a good history; never negative."""
    cdef int r = LMR_TABLE[depth if depth < 64 else 63][searched + 1 if searched < 63 else 63]
    r += (not improving) - pv_node * PV_LMR
    if m == c.hist.killers[ply][0] or m == c.hist.killers[ply][1]:
        r -= 1
    r -= quiet_score(&c.hist, c.pos.side, m, move_key(&c.pos, m),
                     c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO,
                     c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO) // LMR_HISTORY_DIVISOR
    return r if r > 0 else 0


@cython.cdivision(True)     # (C division, as YaneuraOu's; no divisor is 0)
cdef int _yo_node_prune(Context* c, int depth, int alpha, int beta, int ply, int node_eval,
                        int static_eval, bint improving, bint found, bint tt_pv, int tt_move,
                        bint null_ok, bint cut_node) noexcept nogil:
    """NodeShape 1: YaneuraOu's pruning of a whole non-PV node, not in check: razoring
    (far below alpha: quiescence's value), reverse futility to depth 14 off the PV
    (returning (2 beta + eval) / 3) when the table move is none or a capture, and the
    null move at expected cut nodes only, where the static score is within
    378 - 16 x depth of beta, reduced 7 + depth / 3 plies.  VALUE_NONE: no cut."""
    cdef Pos* p = &c.pos
    cdef int margin_per_ply, v
    if node_eval < alpha - 502 - 306 * depth * depth:
        return qsearch(c, alpha, alpha + 1, ply, 0)
    margin_per_ply = 76 - 21 * (not found)
    if (not tt_pv and depth < 15 and node_eval >= beta
            and node_eval - (margin_per_ply * depth - improving * 2686 * margin_per_ply // 1024)
            >= beta
            and (tt_move == 0 or not is_quiet(p, tt_move))
            and node_eval < VALUE_MATE_IN_MAX_PLY):
        return (2 * beta + node_eval) // 3
    if (null_ok and cut_node and static_eval >= beta - 16 * depth - 53 * improving + 378
            and depth >= 2):
        c.move_keys[ply] = NO_PIECE_TO
        play_null(c, ply)
        v = -search(c, depth - 7 - depth // 3, -beta, -beta + 1, ply + 1, False, False, False, 0)
        pos_undo_null(p)
        if c.ctl.aborted:
            return 0
        if v >= beta and v < VALUE_MATE_IN_MAX_PLY:
            return v
    return VALUE_NONE


@cython.cdivision(True)     # (C division, as YaneuraOu's; no divisor is 0)
cdef int _yo_reduction(const Context* c, bint improving, int depth, int move_count,
                       int delta) noexcept nogil:
    """LmrShape 1: YaneuraOu's base reduction in 1024ths of a ply, by depth and move
    number, less where the window is wide against the root's, more when not improving."""
    cdef int scale = (YO_REDUCTIONS[depth if depth < 256 else 255]
                      * YO_REDUCTIONS[move_count if move_count < 256 else 255])
    return (scale - delta * 585 // (c.root_delta if c.root_delta > 0 else 1)
            + (not improving) * scale * 206 // 512 + 1133)


@cython.cdivision(True)     # (C division, as YaneuraOu's; no divisor is 0)
cdef inline int _yo_lmr(Context* c, int m, int r, bint quiet, int depth, int move_count,
                        int alpha, int ply, bint pv_node, bint cut_node, bint was_pv,
                        bint tt_deep, int tt_value, int tt_move,
                        bint tt_capture) noexcept nogil:
    """LmrShape 1: YaneuraOu's reduction of move m in 1024ths of a ply: much less at a
    node that is or was on a PV, much more at an expected cut node, less for the table
    move and for moves with a good history (captures: by their victim), more when the
    table move captures or the next ply keeps failing high, scaled up at all nodes."""
    cdef const Pos* p = &c.pos
    cdef bint all_node = not pv_node and not cut_node
    cdef int stat
    if was_pv:
        r -= (1806 + pv_node * 973 + (tt_value != VALUE_NONE and tt_value > alpha) * 905
              + tt_deep * (935 + cut_node * 959))
    r += 691 - move_count * 65
    if cut_node:
        r += 3611 + 985 * (tt_move == 0)
    if tt_capture:
        r += 1054
    if c.cutoff_cnt[ply + 1] > 1:
        r += 251 + 1124 * (c.cutoff_cnt[ply + 1] > 2) + 1042 * all_node
    if m == tt_move:
        r -= 2239
    if quiet:
        stat = quiet_score(&c.hist, p.side, m, move_key(p, m),
                           c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO,
                           c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO)
    else:
        stat = 863 * piece_value(captured_type(p, m)) // 128
    r -= stat * 428 // 4096
    if all_node:
        r += r * 273 // (256 * depth + 260)
    return r


@cython.cdivision(True)     # (C division, as YaneuraOu's; no divisor is 0)
cdef int _yo_search_move(Context* c, int m, int mkey, int us, int depth, int new_depth, int r,
                         int alpha, int beta, int best, int ply, bint pv_node, bint cut_node,
                         bint first, bint no_tt_move) noexcept nogil:
    """LmrShape 1: the value of move m (just played) searched as YaneuraOu's does: a late
    move at depth 2 or more at the reduced depth (up to 2 plies deeper when r is
    negative, a ply more at PV nodes), again at a depth set by how far it beat the best
    so far when it beats alpha; other moves but a PV node's first with a null window
    up to 2 plies shallower when r is large; at a PV node the first move and any that
    beat alpha with the full window."""
    cdef int v = 0, d
    if depth >= 2 and not first:
        d = new_depth - r // 1024
        if d > new_depth + 2:
            d = new_depth + 2
        if d < 1:
            d = 1
        d += pv_node
        v = -search(c, d, -alpha - 1, -alpha, ply + 1, False, True, True, 0)
        if v > alpha and not c.ctl.aborted:
            new_depth += (d < new_depth and v > best + 48) - (v < best + 9)
            if new_depth > d:
                v = -search(c, new_depth, -alpha - 1, -alpha, ply + 1, False, True,
                            not cut_node, 0)
            if not c.ctl.aborted:
                history_cont_bonus(&c.hist, us, mkey,
                                   c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO,
                                   c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO, 1426)
    elif not pv_node or not first:
        if no_tt_move:
            r += 1057
        v = -search(c, new_depth - (r > 4628) - (r > 5772 and new_depth > 2), -alpha - 1,
                    -alpha, ply + 1, False, True, not cut_node, 0)
    if pv_node and (first or v > alpha) and not c.ctl.aborted:
        v = -search(c, new_depth, -beta, -alpha, ply + 1, True, True, False, 0)
    return v


@cython.cdivision(True)     # (C division, as YaneuraOu's; no divisor is 0)
cdef inline int _prune_move_yo(Context* c, int m, bint quiet, bint check_given, int depth,
                               int move_count, int alpha, int static_eval, bint improving,
                               int r, bint no_best_move, int ply) noexcept nogil:
    """LmrShape 1: YaneuraOu's pruning of moves near the leaves (r: the move's base
    reduction, 1024ths): quiet moves after (3 + depth^2) / (2 - improving) moves; a
    capture whose victim cannot lift the static score to alpha, or (alpha at least
    even) that loses more than 167 x depth by SEE, and so a check; a quiet move with a
    very bad continuation history, or below alpha by futility at its reduced depth
    moved by history, or losing more than 25 x (that depth)^2 by SEE."""
    cdef const Pos* p = &c.pos
    cdef int lmr_depth = depth - 1 - r // 1024
    cdef int history, key, prev1, prev2
    if (quiet and not check_given
            and move_count >= (3 + depth * depth) // (2 - improving)):
        return PRUNE_REST
    if not quiet or check_given:
        if (not check_given and lmr_depth < 7
                and static_eval + 218 + 223 * lmr_depth
                + victim_value(captured_type(p, m)) <= alpha):
            return PRUNE_THIS
        if alpha >= 0 and not see_ge(p, m, -(167 * depth)):
            return PRUNE_THIS
        return 0
    key = move_key(p, m)
    prev1 = c.move_keys[ply - 1] if ply >= 1 else NO_PIECE_TO
    prev2 = c.move_keys[ply - 2] if ply >= 2 else NO_PIECE_TO
    history = ((c.hist.cont[p.side][prev1][key] if prev1 >= 0 else 0)
               + (c.hist.cont[p.side][prev2][key] if prev2 >= 0 else 0))
    if history < -4097 * depth:
        return PRUNE_THIS
    history += 71 * c.hist.butterfly[p.side][move_from(m)][move_to(m)] // 32
    lmr_depth += history // 3220
    if (lmr_depth < 13 and static_eval + 42 + 151 * no_best_move + 120 * lmr_depth
            + 86 * (static_eval > alpha) <= alpha):
        return PRUNE_THIS
    if lmr_depth < 0:
        lmr_depth = 0
    if not see_ge(p, m, -25 * lmr_depth * lmr_depth):
        return PRUNE_THIS
    return 0


cdef bint skips_dominated() noexcept nogil:
    """Whether searches leave out dominated non-promotions (SkipDominated), the root's
    list included."""
    return SKIP_DOMINATED != 0


cdef void iterate(Context* c, int depth, int multipv) noexcept nogil:
    """One iteration of iterative deepening, every MultiPV line, with aspiration."""
    cdef int k, v, alpha, beta, delta, prev
    c.hist.shape = HISTORY_SHAPE
    c.hist.cont_plies = CONT_PLIES
    c.hist.capt_hist = CAPTURE_HISTORY
    if depth == 1:
        c.hist.low_ply_on = LOW_PLY_HISTORY
        if LOW_PLY_HISTORY:
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
        delta = ASPIRATION_DELTA
        if depth >= 4 and is_mate_score(prev) == 0:
            alpha = max(prev - delta, -VALUE_INFINITE)
            beta = min(prev + delta, VALUE_INFINITE)
        else:
            alpha = -VALUE_INFINITE
            beta = VALUE_INFINITE
        while True:
            c.seldepth = 0
            c.root_delta = beta - alpha
            v = search(c, depth, alpha, beta, 0, True, False, False, 0)
            sort_root_moves(c, k)
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
        sort_root_moves(c, 0)
