# Static exchange evaluation: does a move win at least `threshold` once every capture
# on its destination square has been played out, least valuable capturer first?
#
# Values are fixed here (not the evaluation's weights: ordering and pruning must not move
# when the evaluation is retrained).  A captured piece is worth its board value plus what
# it is worth in the captor's hand, so the swing of a capture is counted in full.
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport Pos, step_attackers_to

cdef extern from *:
    """
    /* board value + hand value of the unpromoted piece, by piece type (core/types.pxd:
       pawn 1, lance 2, knight 3, silver 4, bishop 5, rook 6, gold 7, king 8, then
       the promoted pawn .. silver 9-12, horse 13, dragon 14) */
    static const int USI_SEE_VALUE[16] = {
        0, 195, 650, 835, 1020, 1755, 2035, 1110, 30000,
        645, 875, 970, 1065, 1845, 2440, 0};
    /* capturers tried cheapest first: P +P L N +L +N S +S G B +B R +R K */
    static const int USI_SEE_ORDER[14] = {
        1, 9, 2, 3, 10, 11, 4, 12, 7, 5, 13, 6, 14, 8};
    """
    const int USI_SEE_VALUE[16]
    const int USI_SEE_ORDER[14]


cdef inline int see_value(int pt) noexcept nogil:
    return USI_SEE_VALUE[pt]


cdef inline bb_t _sliders_to(const Pos* p, int sq, bb_t occ) noexcept nogil:
    """The sliders of both colours (horses and dragons with their slides) that see sq
    through occ."""
    cdef bb_t lances = p.by_type[LANCE] & usi_tables.file_mask[square_file(sq)]
    cdef bb_t diagonal = (p.by_type[BISHOP] | p.by_type[HORSE]) & bishop_pseudo_attacks(sq)
    cdef bb_t straight = (p.by_type[ROOK] | p.by_type[DRAGON]) & rook_pseudo_attacks(sq)
    cdef bb_t b = 0
    # (each slide only when a slider stands on one of sq's lines on the empty board)
    if lances:
        b = ((lance_attacks(WHITE, sq, occ) & lances & p.by_color[BLACK])
             | (lance_attacks(BLACK, sq, occ) & lances & p.by_color[WHITE]))
    if diagonal:
        b |= bishop_attacks(sq, occ) & diagonal
    if straight:
        b |= rook_attacks(sq, occ) & straight
    return b


cdef inline bb_t _attackers_of_both(const Pos* p, int sq, bb_t occ) noexcept nogil:
    """attackers_to(p, BLACK, ...) | attackers_to(p, WHITE, ...) with each slide looked
    up once rather than once per colour."""
    return (step_attackers_to(p, BLACK, sq) | step_attackers_to(p, WHITE, sq)
            | _sliders_to(p, sq, occ))


cdef inline bb_t _uncovered(const Pos* p, int to, int sq, bb_t occ) noexcept nogil:
    """The sliders that see `to` along the line through `sq` (just vacated), the only
    line whose view changed: on the file, lances and rooks; on the rank, rooks; on a
    diagonal, bishops (horses and dragons with them); off every line, nothing (a
    knight's square).  What _sliders_to would add, for a fraction of its slides."""
    cdef int df = square_file(sq) - square_file(to)
    cdef int dr = square_rank(sq) - square_rank(to)
    cdef bb_t lances
    if df == 0:
        lances = p.by_type[LANCE]
        return ((lance_attacks(WHITE, to, occ) & lances & p.by_color[BLACK])
                | (lance_attacks(BLACK, to, occ) & lances & p.by_color[WHITE])
                | (rook_attacks(to, occ) & (p.by_type[ROOK] | p.by_type[DRAGON])))
    if dr == 0:
        return rook_attacks(to, occ) & (p.by_type[ROOK] | p.by_type[DRAGON])
    if df == dr or df == -dr:
        return bishop_attacks(to, occ) & (p.by_type[BISHOP] | p.by_type[HORSE])
    return 0


cdef inline bint see_ge(const Pos* p, int m, int threshold) noexcept nogil:
    """True when the exchange started by m nets at least threshold for the mover
    (pins are ignored, as in most engines: a cheap and slightly optimistic test)."""
    cdef int to = move_to(m)
    cdef int frm, mover, i, pt, sq
    cdef int swap, res = 1
    cdef int stm = p.side
    cdef bb_t occ = p.occupied
    cdef bb_t attackers, mine, b
    if move_is_drop(m):
        mover = move_dropped_type(m)
        swap = -threshold
    else:
        frm = move_from(m)
        mover = piece_type(p.board[frm])
        swap = see_value(piece_type(p.board[to])) - threshold
        if move_is_promotion(m):
            swap += see_value(mover + PROMOTED) - see_value(mover)
            mover += PROMOTED
        occ ^= bb_square(frm)
    if swap < 0:
        return False
    # the opponent may now take the mover: what we risk
    swap = see_value(mover) - swap
    if swap <= 0:
        return True
    occ |= bb_square(to)
    # every attacker of both colours once; each capture then takes its piece away and
    # may uncover a slider behind it (step attacks do not depend on occupancy)
    attackers = _attackers_of_both(p, to, occ) & occ
    while True:
        stm ^= 1
        mine = attackers & p.by_color[stm]
        if not mine:
            break
        res ^= 1
        for i in range(14):
            pt = USI_SEE_ORDER[i]
            b = mine & p.by_type[pt]
            if b:
                break
        if pt == KING:
            # the king may capture only when nothing defends the square any more
            return res ^ 1 if (attackers & p.by_color[stm ^ 1]) else res
        swap = see_value(pt) - swap
        if swap < res:
            break
        sq = bb_lsb(b)
        occ ^= bb_square(sq)
        attackers = (attackers | _uncovered(p, to, sq, occ)) & occ
    return res
