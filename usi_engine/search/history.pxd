# Move-ordering statistics of one search thread: killers, the butterfly history (by
# side, origin and destination), counter moves and continuation histories (a quiet
# move scored by the move one and two plies before it), all inline.  Piece-to keys
# carry no colour, so the counter moves and continuation histories are indexed by the
# side to move too: black's and white's moves to one square mean different things.
from libc.stdint cimport int16_t
from libc.string cimport memset

from usi_engine.core.types cimport *
from usi_engine.search.borrowed cimport *

cdef enum:
    HISTORY_PLY = 128
    PIECE_TO = 15 * 81           # moved piece type after the move (1..14) x destination
    NO_PIECE_TO = -1             # no previous move (root, null move)
    HISTORY_MAX = 16384          # each table saturates near this
    CORR_BITS = 14               # a correction table has 2^14 entries per side to move
    CORR_SIZE = 1 << CORR_BITS
    CORR_LIMIT = 1024            # a correction entry saturates near this (1024: 64 cp)
    PAWN_HIST_BITS = 9           # the pawn history: 512 pawn placements per side ...
    PAWN_HIST_MAX = 8192         # ... saturating near this
    BUTTERFLY_MAX_SIZED = 7183   # YaneuraOu's sizes: the butterfly's limit ...
    CONT_MAX_SIZED = 30000       # ... and the continuation histories'
    LOW_PLY = 5                  # the low-ply history covers plies 0..4 ...
    LOW_PLY_MAX = 7183           # ... saturating near this
    LOW_PLY_START = 98           # ... and starting each search from this (YaneuraOu's)
    CAPT_HIST_MAX = 10692        # the capture history saturates near this (Stockfish's)


cdef struct History:
    int killers[HISTORY_PLY][2]
    int butterfly[2][88][81]
    int counter[2][PIECE_TO]              # [side][the opponent's piece-to]: the reply
                                          # that refuted that move last
    int16_t cont[2][PIECE_TO][PIECE_TO]   # [side][previous piece-to][this move's piece-to]
    int16_t pawn_hist[2][1 << PAWN_HIST_BITS][PIECE_TO]   # [side][pawn placement][piece-to]
    int16_t low_ply[LOW_PLY][88][81]      # [ply][origin][destination], this search only
    int16_t capt[2][PIECE_TO][16]         # [side][capturing piece-to][victim's type]
    int16_t corr_pawn[2][CORR_SIZE]       # static-score error by pawn placement ...
    int16_t corr_hand[2][CORR_SIZE]       # ... by the pieces in both hands ...
    int16_t corr_nonpawn[2][2][CORR_SIZE] # ... by each colour's pieces other than pawns ...
    int16_t corr_cont[2][PIECE_TO][PIECE_TO]   # ... and by the moves 2 (or 4) and 1 plies back


cdef inline int piece_to(int pt_after, int to) noexcept nogil:
    return pt_after * 81 + to


cdef inline void history_clear(History* h) noexcept nogil:
    memset(h, 0, sizeof(History))


cdef inline void _gravity(int* v, int bonus, int limit=HISTORY_MAX) noexcept nogil:
    # moves the value toward +-limit, less the nearer it already is
    v[0] += bonus - v[0] * (bonus if bonus > 0 else -bonus) // limit


cdef inline void _gravity16(int16_t* v, int bonus, int limit=HISTORY_MAX) noexcept nogil:
    cdef int x = v[0]
    _gravity(&x, bonus, limit)
    v[0] = <int16_t>x


cdef inline void correction_update(History* h, int side, int pawn_index, int hand_index,
                                   int bonus) noexcept nogil:
    """Move both correction entries of this position toward the search's verdict."""
    _gravity16(&h.corr_pawn[side][pawn_index], bonus, CORR_LIMIT)
    _gravity16(&h.corr_hand[side][hand_index], bonus, CORR_LIMIT)


cdef inline void correction_nudge(int16_t* entry, int bonus) noexcept nogil:
    """Move one more correction entry (non-pawn, continuation) toward the verdict."""
    _gravity16(entry, bonus, CORR_LIMIT)


cdef inline int quiet_score(const History* h, int side, int m, int key, int prev1,
                            int prev2) noexcept nogil:
    """The ordering score of quiet move m (piece-to `key`) after the moves prev1 and
    prev2 (piece-to, or NO_PIECE_TO); the butterfly counts twice, as in YaneuraOu's
    statScore."""
    return quiet_score_rows(h, side, m, key,
                            &h.cont[side][prev1][0] if prev1 >= 0 else NULL,
                            &h.cont[side][prev2][0] if prev2 >= 0 else NULL)


cdef inline int quiet_score_rows(const History* h, int side, int m, int key,
                                 const int16_t* cont1, const int16_t* cont2) noexcept nogil:
    """quiet_score with the continuation-history rows of the two previous moves
    given (NULL: none), as a node works them out once for all its quiet moves."""
    cdef int s = 2 * h.butterfly[side][move_from(m)][move_to(m)]
    if cont1 != NULL:
        s += cont1[key]
    if cont2 != NULL:
        s += cont2[key]
    return s


cdef inline int stat_bonus(int depth) noexcept nogil:
    """The history bonus of a cut-off at this depth (YaneuraOu's size)."""
    return (min(STAT_BONUS_MUL * depth - STAT_BONUS_SUB, STAT_BONUS_MAX)
            * STAT_BONUS_SCALE // 1024)


cdef inline int stat_malus(int depth) noexcept nogil:
    """The malus of the last move tried before a cut-off at this depth; each one tried
    before it takes MALUS_DECAY / 1024 of the one after (malus_decay)."""
    return (min(STAT_MALUS_MUL * depth - STAT_MALUS_SUB, STAT_MALUS_MAX)
            * STAT_MALUS_SCALE // 1024)


cdef inline int malus_decay(int malus) noexcept nogil:
    return malus * MALUS_DECAY // 1024


cdef inline void pawn_history_cutoff(History* h, int side, int index, int key,
                                     const int* tried_keys, int n_tried,
                                     int depth) noexcept nogil:
    """Quiet move `key` refuted a position with pawn placement `index`: it rises in
    that placement's pawn history and the quiet moves tried before it fall (by the
    pawn history's shares of the stat bonus and malus)."""
    cdef int malus = stat_malus(depth)
    cdef int i
    _gravity16(&h.pawn_hist[side][index][key],
               stat_bonus(depth) * PAWN_HIST_BONUS_SHARE // 1024, PAWN_HIST_MAX)
    for i in range(n_tried):
        malus = malus_decay(malus)
        _gravity16(&h.pawn_hist[side][index][tried_keys[i]],
                   -malus * PAWN_HIST_MALUS_SHARE // 1024, PAWN_HIST_MAX)


cdef inline int capture_history(const History* h, int side, int key,
                                int victim) noexcept nogil:
    """How often capturing `victim` (a piece type, EMPTY for a quiet promotion) with the
    piece-to `key` has refuted positions lately: added to its MVV-LVA ordering key."""
    return h.capt[side][key][victim & 15]


cdef inline void capture_history_cutoff(History* h, int side, int key, int victim,
                                        bint capture_cut, const int* tried_keys,
                                        const int* tried_victims, int n_tried,
                                        int depth) noexcept nogil:
    """A move refuted the position: if it was a capture (capture_cut) it rises in the
    capture history, and the captures tried before it fall, whatever refuted it
    (Stockfish's sizes: borrowed.pxd's CAPT_*)."""
    cdef int bonus = min(CAPT_BONUS_MUL * depth - CAPT_BONUS_SUB, CAPT_BONUS_MAX)
    cdef int malus = min(CAPT_MALUS_MUL * depth - CAPT_MALUS_SUB, CAPT_MALUS_MAX)
    cdef int i
    if capture_cut:
        _gravity16(&h.capt[side][key][victim & 15], bonus, CAPT_HIST_MAX)
    for i in range(n_tried):
        _gravity16(&h.capt[side][tried_keys[i]][tried_victims[i] & 15], -malus,
                   CAPT_HIST_MAX)


cdef inline void butterfly_bonus(History* h, int side, int m, int bonus) noexcept nogil:
    """Raise (or lower) quiet move m's butterfly entry alone."""
    _gravity(&h.butterfly[side][move_from(m)][move_to(m)], bonus, BUTTERFLY_MAX_SIZED)


cdef inline void low_ply_reset(History* h) noexcept nogil:
    """A new search: the low-ply history starts again (what was best near the root of
    the last position says little about this one)."""
    cdef int i, j, k
    for i in range(LOW_PLY):
        for j in range(88):
            for k in range(81):
                h.low_ply[i][j][k] = LOW_PLY_START


cdef inline int low_ply_score(const History* h, int ply, int m) noexcept nogil:
    """Quiet move m's ordering bonus at ply from the low-ply history (YaneuraOu's
    8 x entry / (1 + ply)), 0 beyond LOW_PLY."""
    if ply >= LOW_PLY:
        return 0
    return 8 * h.low_ply[ply][move_from(m)][move_to(m)] // (1 + ply)


cdef inline void _low_ply_update(History* h, int ply, int m, int bonus) noexcept nogil:
    if ply < LOW_PLY:
        _gravity16(&h.low_ply[ply][move_from(m)][move_to(m)], bonus * LOW_PLY_SHARE // 1024,
                   LOW_PLY_MAX)


cdef inline void history_cont_bonus(History* h, int side, int key, int prev1, int prev2,
                                    int bonus) noexcept nogil:
    """Raise (or lower) the continuation histories of a move (piece-to `key`) after
    prev1 and prev2 by their shares of the bonus, as for a late move whose reduced
    search beat alpha."""
    if prev1 >= 0:
        _gravity16(&h.cont[side][prev1][key], bonus * CONT1_SHARE // 1024, CONT_MAX_SIZED)
    if prev2 >= 0:
        _gravity16(&h.cont[side][prev2][key], bonus * CONT2_SHARE // 1024, CONT_MAX_SIZED)


cdef inline void _history_update_sized(History* h, int side, int m, int key, int prev1,
                                       int prev2, int bonus) noexcept nogil:
    butterfly_bonus(h, side, m, bonus)
    history_cont_bonus(h, side, key, prev1, prev2, bonus)


cdef inline void history_cutoff(History* h, int side, int m, int key, int prev1, int prev2,
                                int ply, int depth, const int* tried, const int* tried_keys,
                                int n_tried) noexcept nogil:
    """Quiet move m refuted the position: it becomes a killer and the counter move of
    prev1, its statistics rise by the stat bonus and those of the quiet moves tried
    before it fall by a larger malus, shrinking with each earlier move (YaneuraOu's
    sizes), so that the tables follow the recent search instead of summing the whole
    game."""
    cdef int bonus = stat_bonus(depth)
    cdef int malus = stat_malus(depth)
    cdef int i
    _history_update_sized(h, side, m, key, prev1, prev2, bonus)
    _low_ply_update(h, ply, m, bonus)
    for i in range(n_tried):
        malus = malus_decay(malus)
        _history_update_sized(h, side, tried[i], tried_keys[i], prev1, prev2, -malus)
        _low_ply_update(h, ply, tried[i], -malus)
    if ply < HISTORY_PLY and h.killers[ply][0] != m:
        h.killers[ply][1] = h.killers[ply][0]
        h.killers[ply][0] = m
    if prev1 >= 0:
        h.counter[side][prev1] = m
