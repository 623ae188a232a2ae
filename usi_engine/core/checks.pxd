# The check generators that the move generator (core/movegen.pyx) and the mate-in-one
# tests (core/mate1.pyx) share, inline in both: where a piece or a drop gives check,
# and the pawn-drop-mate rule that a drop of a pawn must pass.
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.board cimport (Pos, state, pieces, attackers_to, is_attacked,
                                       gold_movers, pinned_pieces, slider_blockers,
                                       hand_count, sliders, snipers_of, HAND_FIELD)


cdef inline bint is_pawn_drop_mate(const Pos* p, int to) noexcept nogil:
    """Would a pawn dropped on `to` (the square in front of the enemy king) mate?
    Then the drop is illegal.  The defender escapes by taking the pawn with a piece
    that is free to move (a pinned piece only along its pin line) or with the king
    onto an unguarded square, or by stepping the king out of the pawn's reach."""
    cdef int us = p.side
    cdef int them = us ^ 1
    cdef int ek = p.king_sq[them]
    cdef bb_t occ = p.occupied | bb_square(to)
    cdef bb_t capturers = attackers_to(p, them, to, occ) & ~bb_square(ek)
    cdef bb_t pinned
    cdef int s
    if capturers:
        pinned = pinned_pieces(p, them)
        while capturers:
            s = bb_pop(&capturers)
            if not bb_test(pinned, s) or aligned(ek, s, to):
                return False
    cdef bb_t escapes = usi_tables.step[KING][ek] & ~p.by_color[them]
    occ ^= bb_square(ek)
    while escapes:
        s = bb_pop(&escapes)
        if not is_attacked(p, us, s, occ):
            return False
    return True


cdef inline bb_t _pawn_drop_squares(const Pos* p, int us, bb_t target) noexcept nogil:
    """The squares of target where us may drop a pawn: not its dead ranks, and not a
    file that already holds one of its pawns (nifu).  Pawn-drop mate is the caller's."""
    cdef bb_t t = target & ~usi_tables.dead[us][PAWN]
    cdef bb_t pawns = pieces(p, us, PAWN)
    while pawns and t:
        t &= ~usi_tables.file_mask[square_file(bb_pop(&pawns))]
    return t


cdef inline int _pawn_drop_checks_at(const Pos* p) noexcept nogil:
    """The square where a pawn of the side to move would check the enemy king, or -1."""
    cdef int ek = p.king_sq[p.side ^ 1]
    if ek < 0:
        return -1
    if p.side == BLACK:
        return ek + 1 if square_rank(ek) < 8 else -1
    return ek - 1 if square_rank(ek) > 0 else -1


cdef inline int _add_checking_board_moves(const Pos* p, int* out, int n, int frm, int pc,
                                          bb_t targets, const bb_t* direct,
                                          bint discovers) noexcept nogil:
    """Append the moves of pc from frm to targets that give check: directly (the
    destination is in direct[type after the move]) or, when frm shields the enemy king
    from one of our sliders, by leaving the line."""
    cdef int us = piece_color(pc)
    cdef int pt = piece_type(pc)
    cdef int ek = p.king_sq[us ^ 1]
    cdef bb_t zone = usi_tables.zone[us]
    cdef bb_t dead = usi_tables.dead[us][pt]
    cdef bint may_promote = can_promote_type(pt)
    cdef bint from_zone = bb_test(zone, frm)
    cdef bb_t off_line = ~usi_tables.line[ek][frm] if discovers else 0
    cdef int to
    if not discovers:
        # only the squares that see the king can give check (the long tail of a
        # slider's targets is dropped before the loop; the moves written are the same)
        targets &= direct[pt] | (direct[pt + PROMOTED] if may_promote else 0)
    while targets:
        to = bb_pop(&targets)
        if may_promote and (from_zone or bb_test(zone, to)):
            if bb_test(direct[pt + PROMOTED] | off_line, to):
                out[n] = make_move(frm, to, True)
                n += 1
            if not bb_test(dead, to) and bb_test(direct[pt] | off_line, to):
                out[n] = make_move(frm, to, False)
                n += 1
        elif bb_test(direct[pt] | off_line, to):
            out[n] = make_move(frm, to, False)
            n += 1
    return n


cdef inline void _check_squares(const Pos* p, int ek, bb_t* direct,
                                bb_t sliders_wanted) noexcept nogil:
    """direct[pt]: the squares from which a piece of ours of type pt would attack the
    king on ek, that is the king's view as a piece of that type of its own colour.
    The sliding types are looked at only where sliders_wanted has their bit (1 << pt),
    and are empty otherwise."""
    cdef int them = p.side ^ 1
    cdef int pt
    cdef bb_t occ = p.occupied
    cdef bb_t king_step = usi_tables.step[KING][ek]
    for pt in range(PAWN, DRAGON + 1):
        direct[pt] = usi_tables.step[make_piece(them, pt)][ek]
    direct[KING] = 0
    direct[LANCE] = lance_attacks(them, ek, occ) if sliders_wanted & (1 << LANCE) else 0
    if sliders_wanted & ((1 << BISHOP) | (1 << HORSE)):
        direct[BISHOP] = bishop_attacks(ek, occ)
        direct[HORSE] = direct[BISHOP] | king_step
    else:
        direct[BISHOP] = direct[HORSE] = 0
    if sliders_wanted & ((1 << ROOK) | (1 << DRAGON)):
        direct[ROOK] = rook_attacks(ek, occ)
        direct[DRAGON] = direct[ROOK] | king_step
    else:
        direct[ROOK] = direct[DRAGON] = 0


cdef inline int _sliders_in_play(const Pos* p) noexcept nogil:
    """Bits 1 << pt of the sliding types that the side to move could check with: in
    hand, on the board, or by promoting a piece it has."""
    cdef int us = p.side
    cdef unsigned int h = p.hand[us]
    cdef bb_t own = p.by_color[us]
    cdef int bits = 0
    if hand_count(h, LANCE) or own & p.by_type[LANCE]:
        bits |= 1 << LANCE
    if hand_count(h, BISHOP) or own & p.by_type[BISHOP]:
        bits |= (1 << BISHOP) | (1 << HORSE)
    elif own & p.by_type[HORSE]:
        bits |= 1 << HORSE
    if hand_count(h, ROOK) or own & p.by_type[ROOK]:
        bits |= (1 << ROOK) | (1 << DRAGON)
    elif own & p.by_type[DRAGON]:
        bits |= 1 << DRAGON
    return bits


cdef inline int _add_check_drops(const Pos* p, int* out, const bb_t* wanted) noexcept nogil:
    """Write the legal drops onto wanted[type] (checks when wanted is a subset of the
    check squares); return how many."""
    cdef int us = p.side
    cdef bb_t empty = usi_tables.all & ~p.occupied
    cdef unsigned int h = p.hand[us]
    cdef bb_t t
    cdef int pt, n = 0
    for pt in range(PAWN, KING):
        if not hand_count(h, pt):
            continue
        t = wanted[pt] & empty & ~usi_tables.dead[us][pt]
        if pt == PAWN and t:
            t = _pawn_drop_squares(p, us, t)
            if t and is_pawn_drop_mate(p, bb_lsb(t)):
                t = 0
        while t:
            out[n] = make_drop(pt, bb_pop(&t))
            n += 1
    return n


cdef inline int _add_piece_checks(const Pos* p, int* out, int n, int frm, bb_t pinned,
                                  bb_t discoverers, bb_t free_movers, const bb_t* direct,
                                  const bb_t* wanted) noexcept nogil:
    """Append the legal checks of our piece on frm: onto wanted[type after the move],
    or, for a piece that uncovers a check or is in free_movers, onto any square of
    direct[] (and, uncovering, anywhere off the line)."""
    cdef int us = p.side
    cdef int them = us ^ 1
    cdef int ek = p.king_sq[them]
    cdef int ksq = p.king_sq[us]
    cdef int pc = p.board[frm]
    cdef bb_t t = piece_attacks(pc, frm, p.occupied) & ~p.by_color[us]
    cdef int to
    if bb_test(pinned, frm):
        t &= usi_tables.line[ksq][frm]
    if not t:
        return n
    if piece_type(pc) == KING:
        if not bb_test(discoverers, frm):
            return n
        t &= ~usi_tables.line[ek][frm]
        while t:
            to = bb_pop(&t)
            if not is_attacked(p, them, to, p.occupied ^ bb_square(frm)):
                out[n] = make_move(frm, to, False)
                n += 1
        return n
    return _add_checking_board_moves(
        p, out, n, frm, pc, t,
        direct if bb_test(discoverers | free_movers, frm) else wanted,
        bb_test(discoverers, frm))
