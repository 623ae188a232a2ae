# Move ordering: the order keys of moves and the staged move picker of one node.
#
# At an interior node not in check the picker hands out, one at a time: the TT move
# (before anything is generated: it often ends the node by itself), captures and
# promotions that do not lose material (most valuable victim first, moved by the capture
# history), the killers and the counter move, the quiet moves by history (butterfly,
# continuation and, near the root, the low-ply history of this search), and last
# the captures that lose material.  Quiet moves (drops: most of a shogi move list) are
# generated only when no capture or killer has cut the node off.  At the root and in
# check every legal move is generated and sorted at once, in the same order.
from libc.stdint cimport int16_t, int64_t, uint32_t
from usi_engine.core.types cimport *
from usi_engine.core.position cimport Pos, pieces, gold_movers
from usi_engine.core.bitboard cimport *
from usi_engine.core.movegen cimport (GEN_LEGAL, GEN_CAPTURES, GEN_QUIETS, GEN_CHECKS,
                                      GEN_NO_DOMINATED, CheckInfo, check_info_init,
                                      gives_check_by,
                                      generate, drop_dominated, is_legal)
from usi_engine.core.see cimport see_ge, see_value
from usi_engine.search.history cimport (History, NO_PIECE_TO, piece_to, quiet_score,
                                        quiet_score_rows, capture_history, low_ply_score)
from usi_engine.search.alphabeta cimport Context

cdef enum:
    STAGE_TT = 0
    STAGE_CAPTURES_INIT = 1
    STAGE_GOOD_CAPTURES = 2
    STAGE_KILLERS = 3
    STAGE_QUIETS_INIT = 4
    STAGE_QUIETS = 5
    STAGE_BAD_CAPTURES = 6
    STAGE_ALL_INIT = 7          # root / in check: everything at once
    STAGE_ALL = 8
    STAGE_DONE = 9
    KEY_TT = 1 << 30
    KEY_GOOD_CAPTURE = 1 << 24
    KEY_KILLER = 1 << 23
    KEY_BAD_CAPTURE = -(1 << 22)


cdef struct QuietRows:
    # What a node's quiet moves are ordered by, for the side to move (one formula for
    # the staged picker, the root, in check and quiescence evasions: quiet_key)
    const int16_t* cont1        # the continuation-history rows of the moves 1 and 2
    const int16_t* cont2        # plies back and the pawn-history row of the position
    const int16_t* pawn_row     # (NULL: none), indexed by piece-to
    int threat_bonus            # ordering bonus of a quiet move that takes a piece out of
                                # a cheaper piece's attack (malus: into it); 0: none
    int ply                     # (the low-ply history's)


cdef struct MovePicker:
    int moves[MAX_MOVES]        # captures in [0, n_captures), then the quiet moves
    int scores[MAX_MOVES]
    int stage
    int cur                     # next index to pick from
    int n                       # moves generated so far
    int n_captures
    int bad_start               # first losing capture (they are picked after the quiets)
    int tt_move                 # legal TT move, or 0
    int special[3]              # killers and counter move, once handed out
    int n_special
    int ply
    bint all_at_once
    int quiet_limit             # quiets scoring below this are left unsorted
    int pawn_index              # the position's pawn-history row, or -1: none used
    QuietRows rows              # what the quiet moves are ordered by
    bint skip_quiets            # quiet moves that do not give check are pruned from here
                                # on (the search says so once it prunes one): the quiet
                                # stage then generates only the quiet checks
    bint has_check_info         # check_info is filled (from the quiet stage on: the
    CheckInfo check_info        # search asks gives_check of each quiet move)


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


cdef inline int move_key(const Pos* p, int m) noexcept nogil:
    """The continuation-history index of m: the moved piece as it stands after m, and
    where it goes."""
    cdef int pt = moved_type(p, m)
    if move_is_promotion(m):
        pt += PROMOTED
    return piece_to(pt, move_to(m))


cdef inline int capture_key(const Pos* p, int m, bint by_see) noexcept nogil:
    """Order key of a capture or promotion: most valuable victim (and promotion gain),
    least valuable attacker; with by_see, those that lose material below every quiet
    move."""
    cdef int victim = captured_type(p, m)
    cdef int mover = moved_type(p, m)
    cdef int gain = see_value(victim)
    if move_is_promotion(m):
        gain += see_value(mover + PROMOTED) - see_value(mover)
    return (16 * gain - see_value(mover) // 8
            + (KEY_GOOD_CAPTURE if not by_see or see_ge(p, m, 0) else KEY_BAD_CAPTURE))


cdef inline int previous_key(const Context* c, int ply, int back) noexcept nogil:
    return c.move_keys[ply - back] if ply >= back else NO_PIECE_TO


cdef inline void threat_maps(const Pos* p, bb_t* by_pawn, bb_t* by_minor) noexcept nogil:
    """Squares the opponent attacks with pawns, and with pieces worth less than a
    bishop or rook (pawns, lances, knights, silvers, golds and their like)."""
    cdef int opp = p.side ^ 1
    cdef int sq
    cdef bb_t pawn_attacks = 0, minor_attacks
    cdef bb_t b = pieces(p, opp, PAWN)
    while b:
        sq = bb_pop(&b)
        pawn_attacks |= step_attacks(make_piece(opp, PAWN), sq)
    minor_attacks = pawn_attacks
    b = p.by_color[opp] & (p.by_type[LANCE] | p.by_type[KNIGHT] | p.by_type[SILVER]
                           | gold_movers(p))
    while b:
        sq = bb_pop(&b)
        minor_attacks |= piece_attacks(p.board[sq], sq, p.occupied)
    by_pawn[0] = pawn_attacks
    by_minor[0] = minor_attacks


cdef inline int threat_term(const Pos* p, int m, bb_t by_pawn, bb_t by_minor,
                            int bonus) noexcept nogil:
    """The threat part of a quiet board move's order key (as in Stockfish): a bishop
    or rook (promoted or not) leaving a square that a cheaper piece attacks gains
    bonus, entering one loses it; a lance, knight, silver or gold, half as much, with
    pawns' attacks.  Drops, pawns and the king: 0."""
    cdef int pt, from_sq, to_sq
    cdef bb_t danger
    if move_is_drop(m):
        return 0
    from_sq = move_from(m)
    to_sq = move_to(m)
    pt = piece_type(p.board[from_sq])
    if pt == BISHOP or pt == ROOK or pt == HORSE or pt == DRAGON:
        danger = by_minor
    elif pt == PAWN or pt == KING:
        return 0
    else:
        danger = by_pawn
        bonus //= 2
    if bb_test(danger, from_sq):
        return 0 if bb_test(danger, to_sq) else bonus
    return -bonus if bb_test(danger, to_sq) else 0


cdef inline void quiet_rows_init(QuietRows* rows, const Context* c, int ply, int pawn_index,
                                 int threat_bonus) noexcept nogil:
    """The rows of this node (pawn_index: the pawn-history row, or -1 for none)."""
    cdef int side = c.pos.side
    cdef int prev1 = previous_key(c, ply, 1)
    cdef int prev2 = previous_key(c, ply, 2)
    rows.cont1 = &c.hist.cont[side][prev1][0] if prev1 >= 0 else NULL
    rows.cont2 = &c.hist.cont[side][prev2][0] if prev2 >= 0 else NULL
    rows.pawn_row = &c.hist.pawn_hist[side][pawn_index][0] if pawn_index >= 0 else NULL
    rows.threat_bonus = threat_bonus
    rows.ply = ply


cdef inline int quiet_key(const QuietRows* rows, const Context* c, int m, bb_t by_pawn,
                          bb_t by_minor) noexcept nogil:
    """The order key of quiet move m: butterfly (twice) and continuation histories,
    the low-ply history near the root, the pawn history (twice) and the threat term
    (by_pawn, by_minor: threat_maps of the position, where rows.threat_bonus)."""
    cdef const Pos* p = &c.pos
    cdef int key = move_key(p, m)
    cdef int score = (quiet_score_rows(&c.hist, p.side, m, key, rows.cont1, rows.cont2)
                      + low_ply_score(&c.hist, rows.ply, m))
    if rows.pawn_row != NULL:
        score += 2 * rows.pawn_row[key]
    if rows.threat_bonus:
        score += threat_term(p, m, by_pawn, by_minor, rows.threat_bonus)
    return score


cdef inline void score_moves(Context* c, const int* moves, int* scores, int n, int tt_move,
                             int ply, bint sort_by_see, const QuietRows* rows) noexcept nogil:
    """Order keys of a whole move list: TT move, captures and promotions, killers,
    counter move, then quiet moves by quiet_key (losing captures last with
    sort_by_see).  rows: the node's (NULL where the list holds no quiet move)."""
    cdef const Pos* p = &c.pos
    cdef int i, m
    cdef int prev1 = previous_key(c, ply, 1)
    cdef int counter = c.hist.counter[p.side][prev1] if prev1 >= 0 else 0
    cdef bb_t by_pawn = 0, by_minor = 0
    if rows != NULL and rows.threat_bonus:
        threat_maps(p, &by_pawn, &by_minor)
    for i in range(n):
        m = moves[i]
        if m == tt_move:
            scores[i] = KEY_TT
        elif not is_quiet(p, m):
            scores[i] = capture_key(p, m, sort_by_see) + capture_history(
                &c.hist, p.side, move_key(p, m), captured_type(p, m))
        elif m == c.hist.killers[ply][0]:
            scores[i] = KEY_KILLER + 2
        elif m == c.hist.killers[ply][1]:
            scores[i] = KEY_KILLER + 1
        elif m == counter:
            scores[i] = KEY_KILLER
        elif rows != NULL:
            scores[i] = quiet_key(rows, c, m, by_pawn, by_minor)
        else:
            scores[i] = 0


cdef inline int best_index(const int* scores, int start, int n) noexcept nogil:
    """The index of the highest score of scores[start:n] (the first of equals)."""
    cdef int best = start
    cdef int i
    for i in range(start + 1, n):
        if scores[i] > scores[best]:
            best = i
    return best


cdef inline void swap_moves(int* moves, int* scores, int i, int k) noexcept nogil:
    cdef int t
    if i != k:
        t = moves[i]; moves[i] = moves[k]; moves[k] = t
        t = scores[i]; scores[i] = scores[k]; scores[k] = t


cdef inline int pick_best(int* moves, int* scores, int start, int n) noexcept nogil:
    """Selection sort step: bring the best remaining move to `start`."""
    swap_moves(moves, scores, start, best_index(scores, start, n))
    return moves[start]


cdef inline void partial_insertion_sort(int* moves, int* scores, int begin, int end,
                                       int limit, int64_t* keys) noexcept nogil:
    """Sort moves[begin:end] by descending score (stably), but only those scoring at
    least `limit` (and the first): the rest follow them, in no particular order.  Linear
    in the unsorted moves, where picking the best each time costs the whole remaining
    list per move handed out (15% of the search's time on middle-game positions).
    Afterwards scores[begin:end] no longer hold the moves' scores (the quiet stage hands
    its moves out in list order).

    The moves that qualify are swapped to the front in list order, each with the first
    of the rest, then sorted by insertion on one 64-bit word a move: its score in the
    high half, the move in the low, so that a shift moves one word (keys: scratch for
    end - begin of them).  Each one's place is found by halving (the sorted keys
    below a score form one run at the end), then the keys after it shift down."""
    cdef int sorted_end = begin
    cdef int i, q, n, lo, hi, mid
    cdef int64_t key, bar
    cdef int64_t high = (<int64_t>1) << 32
    for i in range(begin + 1, end):
        if scores[i] >= limit:
            sorted_end += 1
            swap_moves(moves, scores, i, sorted_end)
    n = sorted_end - begin + 1
    if end <= begin or n < 2:
        return
    for i in range(n):
        # (score x 2^32: a left shift of a negative value is undefined in C)
        bar = <int64_t>scores[begin + i] * high
        key = bar + <uint32_t>moves[begin + i]
        # the first of keys[0:i] below bar (a lower score, whatever its move), where
        # this key goes: equal scores keep their order
        lo = 0
        hi = i
        while lo < hi:
            mid = (lo + hi) >> 1
            if keys[mid] < bar:
                hi = mid
            else:
                lo = mid + 1
        q = i
        while q > lo:
            keys[q] = keys[q - 1]
            q -= 1
        keys[q] = key
    for i in range(n):
        moves[begin + i] = <int><uint32_t>keys[i]


cdef inline void picker_init(MovePicker* mp, const Context* c, int tt_move, int ply,
                             bint all_at_once, int quiet_limit=0,
                             int threat_bonus=0) noexcept nogil:
    """Start picking at this node; all_at_once at the root (whose list the caller
    fills) and in check.  The quiet moves are sorted once, those with a history score
    below quiet_limit left unsorted after the rest.  The non-promotions that a
    promotion dominates are never handed out."""
    # (the root searches its own list in order, the TT move included)
    mp.tt_move = tt_move if ply > 0 and tt_move and is_legal(&c.pos, tt_move) else 0
    mp.stage = STAGE_TT
    mp.cur = mp.n = mp.n_captures = mp.bad_start = mp.n_special = 0
    mp.ply = ply
    mp.all_at_once = all_at_once
    mp.quiet_limit = quiet_limit
    mp.skip_quiets = False
    mp.pawn_index = -1
    mp.rows.cont1 = mp.rows.cont2 = mp.rows.pawn_row = NULL
    mp.rows.threat_bonus = threat_bonus
    mp.rows.ply = ply
    mp.has_check_info = False


cdef inline void picker_set_histories(MovePicker* mp, const Context* c,
                                     int pawn_index) noexcept nogil:
    """Point the picker at this node's pawn-history row (pawn_index, or -1 for
    none)."""
    mp.pawn_index = pawn_index
    quiet_rows_init(&mp.rows, c, mp.ply, pawn_index, mp.rows.threat_bonus)


cdef inline int quiet_checks(const Pos* p, int* moves) noexcept nogil:
    """Write the legal quiet moves (drops included) that give check to moves; their
    count.  (Generated apart: the checks that capture could overflow a list that
    already holds the captures.)"""
    cdef int checks[MAX_MOVES]
    cdef int n = generate(p, checks, GEN_CHECKS)
    cdef int i, k = 0
    for i in range(n):
        if is_quiet(p, checks[i]):
            moves[k] = checks[i]
            k += 1
    return k


cdef inline bint _handed_out(const MovePicker* mp, int m) noexcept nogil:
    cdef int k
    if m == mp.tt_move:
        return True
    for k in range(mp.n_special):
        if mp.special[k] == m:
            return True
    return False


cdef inline int _pick_from(MovePicker* mp, int end, bint by_key) noexcept nogil:
    """The next move of moves[cur:end] not handed out yet (best key first with by_key,
    else in list order), or 0 when the range is spent."""
    cdef int m
    while mp.cur < end:
        m = pick_best(mp.moves, mp.scores, mp.cur, end) if by_key else mp.moves[mp.cur]
        mp.cur += 1
        if not _handed_out(mp, m):
            return m
    return 0


cdef inline int _next_special(MovePicker* mp, Context* c) noexcept nogil:
    """The next killer or counter move that is legal and quiet here, or 0."""
    cdef int prev1 = previous_key(c, mp.ply, 1)
    cdef int m
    while mp.cur < 3:
        if mp.cur < 2:
            m = c.hist.killers[mp.ply][mp.cur]
        else:
            m = c.hist.counter[c.pos.side][prev1] if prev1 >= 0 else 0
        mp.cur += 1
        if (m and not _handed_out(mp, m) and is_legal(&c.pos, m)
                and is_quiet(&c.pos, m)):
            mp.special[mp.n_special] = m
            mp.n_special += 1
            return m
    return 0


cdef inline void _score_quiets(MovePicker* mp, const Context* c, int begin,
                               int end) noexcept nogil:
    """Order keys (quiet_key) of the quiet moves moves[begin:end]."""
    cdef int k
    cdef bb_t by_pawn = 0, by_minor = 0
    if mp.rows.threat_bonus:
        threat_maps(&c.pos, &by_pawn, &by_minor)
    for k in range(begin, end):
        mp.scores[k] = quiet_key(&mp.rows, c, mp.moves[k], by_pawn, by_minor)


cdef inline int next_move(MovePicker* mp, Context* c) noexcept nogil:
    """The next move to search at this node, or 0 when there is none left."""
    cdef int m, k, victim
    while True:
        if mp.stage == STAGE_TT:
            mp.stage = STAGE_ALL_INIT if mp.all_at_once else STAGE_CAPTURES_INIT
            if mp.tt_move:
                return mp.tt_move
        elif mp.stage == STAGE_CAPTURES_INIT:
            mp.n = mp.n_captures = generate(&c.pos, mp.moves,
                                            GEN_CAPTURES | GEN_NO_DOMINATED)
            for k in range(mp.n):
                # (scored as if each won its exchange: SEE is looked at only when a
                # capture's turn comes, and most nodes are cut off before that)
                mp.scores[k] = capture_key(&c.pos, mp.moves[k], False)
                # (a promotion that captures nothing keeps its place by its gain: a
                # sunk capture history put it behind every quiet move)
                victim = captured_type(&c.pos, mp.moves[k])
                if victim != EMPTY:
                    mp.scores[k] += capture_history(
                        &c.hist, c.pos.side, move_key(&c.pos, mp.moves[k]), victim)
            mp.cur = 0
            mp.stage = STAGE_GOOD_CAPTURES
        elif mp.stage == STAGE_GOOD_CAPTURES:
            if mp.cur < mp.n_captures:
                k = best_index(mp.scores, mp.cur, mp.n_captures)
                if mp.scores[k] >= 0:
                    m = mp.moves[k]
                    if not see_ge(&c.pos, m, 0):
                        # it loses material: its key drops below the quiet moves'
                        mp.scores[k] += KEY_BAD_CAPTURE - KEY_GOOD_CAPTURE
                        continue
                    swap_moves(mp.moves, mp.scores, mp.cur, k)
                    mp.cur += 1
                    if m != mp.tt_move:
                        return m
                    continue
                swap_moves(mp.moves, mp.scores, mp.cur, k)
            mp.bad_start = mp.cur
            mp.cur = 0
            mp.stage = STAGE_KILLERS
        elif mp.stage == STAGE_KILLERS:
            m = _next_special(mp, c)
            if m:
                return m
            mp.stage = STAGE_QUIETS_INIT
        elif mp.stage == STAGE_QUIETS_INIT:
            check_info_init(&c.pos, &mp.check_info)
            mp.has_check_info = True
            if mp.skip_quiets:
                mp.n = mp.n_captures + drop_dominated(
                    &c.pos, mp.moves + mp.n_captures,
                    quiet_checks(&c.pos, mp.moves + mp.n_captures))
            else:
                mp.n = mp.n_captures + generate(&c.pos, mp.moves + mp.n_captures,
                                                GEN_QUIETS | GEN_NO_DOMINATED)
            _score_quiets(mp, c, mp.n_captures, mp.n)
            partial_insertion_sort(mp.moves, mp.scores, mp.n_captures, mp.n, mp.quiet_limit,
                                   c.sort_keys)
            mp.cur = mp.n_captures
            mp.stage = STAGE_QUIETS
        elif mp.stage == STAGE_QUIETS:
            m = _pick_from(mp, mp.n, False)
            # (once the search prunes the quiet moves that give no check, they are
            # passed over here rather than handed out one by one to be skipped)
            while m and mp.skip_quiets and not gives_check_by(&c.pos, &mp.check_info, m):
                m = _pick_from(mp, mp.n, False)
            if m:
                return m
            mp.cur = mp.bad_start
            mp.stage = STAGE_BAD_CAPTURES
        elif mp.stage == STAGE_BAD_CAPTURES:
            m = _pick_from(mp, mp.n_captures, True)
            if m:
                return m
            mp.stage = STAGE_DONE
        elif mp.stage == STAGE_ALL_INIT:
            if mp.ply > 0:
                mp.n = generate(&c.pos, mp.moves, GEN_LEGAL | GEN_NO_DOMINATED)
            score_moves(c, mp.moves, mp.scores, mp.n, mp.tt_move, mp.ply, True, &mp.rows)
            mp.cur = 0
            mp.stage = STAGE_ALL
        elif mp.stage == STAGE_ALL:
            # (the root keeps the order of its list, which the last iteration sorted)
            m = _pick_from(mp, mp.n, mp.ply > 0)
            if m:
                return m
            mp.stage = STAGE_DONE
        else:
            return 0
