# cython: language_level=3
"""Legal move generation for shogi, drops included.

Moves are generated legal rather than pseudo-legal: pins are resolved with the
line through king and pinned piece, king steps are tested against the opponent's
attacks with the king lifted off the board, and a check restricts every other move
to capturing or blocking the single checker.  Drops obey nifu, dead squares and the
pawn-drop-mate (uchifuzume) rule.
"""
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.board cimport (Pos, state, pieces, attackers_to, is_attacked,
                                  gold_movers, pinned_pieces, slider_blockers, hand_count,
                                  sliders, snipers_of, HAND_FIELD)
from usi_engine.core.checks cimport *

init_tables()


cdef inline bint _want(int kind, bint promote, bint capture) noexcept nogil:
    """Whether a move of this shape belongs to the requested subset."""
    if kind == GEN_CAPTURES:
        return promote or capture
    if kind == GEN_QUIETS:
        return not promote and not capture
    return True


cdef inline int _add_board_moves(const Pos* p, int* out, int n, int frm, int pc,
                                 bb_t targets, int kind, bint dominated_out) noexcept nogil:
    """Append the moves of the piece pc on frm to each target square, expanding
    promotion choices: optional inside/into/out of the zone, forced where the
    unpromoted piece could never move again.  dominated_out: without the
    non-promotions that drop_dominated leaves out (the same list as its filter's)."""
    cdef int us = piece_color(pc)
    cdef int pt = piece_type(pc)
    cdef bb_t zone = usi_tables.zone[us]
    cdef bb_t dead = usi_tables.dead[us][pt]
    cdef bint may_promote = can_promote_type(pt)
    cdef bint from_zone = bb_test(zone, frm)
    cdef int to
    cdef bint capture
    if dominated_out:
        # a pawn, bishop or rook never stays unpromoted when it may promote, nor a
        # lance on its second rank
        if pt == PAWN or pt == BISHOP or pt == ROOK:
            dead = usi_tables.all
        elif pt == LANCE:
            dead = usi_tables.dead[us][KNIGHT]
    # drop the squares whose moves the subset leaves out before the loop (the moves
    # written are the same): captures and promotions only onto enemy pieces, or into
    # the zone; quiet moves only onto empty squares
    if kind == GEN_CAPTURES:
        if not (may_promote and from_zone):
            targets &= p.by_color[us ^ 1] | (zone if may_promote else 0)
    elif kind == GEN_QUIETS:
        targets &= ~p.by_color[us ^ 1]
    while targets:
        to = bb_pop(&targets)
        capture = p.board[to] != EMPTY
        if may_promote and (from_zone or bb_test(zone, to)):
            if kind != GEN_QUIETS:
                out[n] = make_move(frm, to, True)
                n += 1
            if not bb_test(dead, to) and _want(kind, False, capture):
                out[n] = make_move(frm, to, False)
                n += 1
        elif _want(kind, False, capture):
            out[n] = make_move(frm, to, False)
            n += 1
    return n


cdef inline int _add_drops(const Pos* p, int* out, int n, bb_t target) noexcept nogil:
    """Append every legal drop of the side to move onto the empty squares of target."""
    cdef int us = p.side
    cdef unsigned int h = p.hand[us]
    cdef bb_t t
    cdef int to, i, k, check_sq
    cdef int anywhere[4]
    if h == 0 or not target:
        return n
    if hand_count(h, PAWN):
        t = _pawn_drop_squares(p, us, target)
        check_sq = _pawn_drop_checks_at(p)
        if check_sq >= 0 and bb_test(t, check_sq) and is_pawn_drop_mate(p, check_sq):
            t ^= bb_square(check_sq)
        while t:
            out[n] = make_drop(PAWN, bb_pop(&t))
            n += 1
    if hand_count(h, LANCE):
        t = target & ~usi_tables.dead[us][LANCE]
        while t:
            out[n] = make_drop(LANCE, bb_pop(&t))
            n += 1
    if hand_count(h, KNIGHT):
        t = target & ~usi_tables.dead[us][KNIGHT]
        while t:
            out[n] = make_drop(KNIGHT, bb_pop(&t))
            n += 1
    # silver, bishop, rook and gold may land on any empty square
    k = 0
    if hand_count(h, SILVER):
        anywhere[k] = SILVER
        k += 1
    if hand_count(h, BISHOP):
        anywhere[k] = BISHOP
        k += 1
    if hand_count(h, ROOK):
        anywhere[k] = ROOK
        k += 1
    if hand_count(h, GOLD):
        anywhere[k] = GOLD
        k += 1
    if k:
        t = target
        while t:
            to = bb_pop(&t)
            for i in range(k):
                out[n] = make_drop(anywhere[i], to)
                n += 1
    return n


cdef int _generate_legal(const Pos* p, int* out, int kind,
                         bint dominated_out) noexcept nogil:
    cdef int us = p.side
    cdef int them = us ^ 1
    cdef int ksq = p.king_sq[us]
    cdef bb_t own = p.by_color[us]
    cdef bb_t occ = p.occupied
    cdef bb_t checkers = state(p).checkers
    cdef bb_t target = usi_tables.all & ~own
    cdef bb_t drop_target = usi_tables.all & ~occ
    cdef bb_t b, t, pinned, occ_without_king, zone, enemy, pawns, pawn_to
    cdef int n = 0
    cdef int frm, to, checker, pc

    if ksq >= 0:
        b = usi_tables.step[KING][ksq] & target
        # (the subset first: the attack test costs more than the rest of a king step)
        if kind == GEN_CAPTURES:
            b &= occ
        elif kind == GEN_QUIETS:
            b &= ~occ
        occ_without_king = occ ^ bb_square(ksq)
        while b:
            to = bb_pop(&b)
            if not is_attacked(p, them, to, occ_without_king):
                out[n] = make_move(ksq, to, False)
                n += 1
        if checkers:
            if bb_more_than_one(checkers):
                return n
            checker = bb_lsb(checkers)
            drop_target = usi_tables.between[ksq][checker]
            target = drop_target | checkers
        own ^= bb_square(ksq)

    pinned = pinned_pieces(p, us)
    zone = usi_tables.zone[us]
    enemy = p.by_color[them]
    # pawns all at once: only those whose square ahead is a target (for captures, an
    # enemy piece or the zone) go through the loop, which keeps square order.  A pawn
    # never stands on its last rank, so the shift never crosses into the next file.
    pawns = own & p.by_type[PAWN]
    pawn_to = (pawns >> 1 if us == BLACK else pawns << 1) & target
    if kind == GEN_CAPTURES:
        pawn_to &= enemy | zone
    b = (own & ~pawns) | (pawn_to << 1 if us == BLACK else pawn_to >> 1)
    if kind == GEN_CAPTURES:
        b = _capturing_steppers(p, b, target, enemy, zone)
    while b:
        frm = bb_pop(&b)
        pc = p.board[frm]
        t = piece_attacks(pc, frm, occ) & target
        if t and kind == GEN_CAPTURES:
            # captures and promotions only: most pieces have neither, and are passed
            # over here rather than in _add_board_moves (which filters the same way)
            if not can_promote_type(piece_type(pc)):
                t &= enemy
            elif not bb_test(zone, frm):
                t &= enemy | zone
        if t and bb_test(pinned, frm):
            t &= usi_tables.line[ksq][frm]
        if t:
            n = _add_board_moves(p, out, n, frm, pc, t, kind, dominated_out)

    if kind != GEN_CAPTURES:
        n = _add_drops(p, out, n, drop_target)
    return n


cdef inline bb_t _capturing_steppers(const Pos* p, bb_t b, bb_t target, bb_t enemy,
                                     bb_t zone) noexcept nogil:
    """Leave out of b our knights, silvers and gold movers that have no capture or
    promotion: a piece of ours attacks a square exactly when a piece of the same kind
    of theirs standing there would attack ours, so the opponent's patterns spread from
    the targets, all at once, mark the pieces worth a look (most have none).  A
    knight's or silver's promotion needs a target in the zone, except a silver's
    from inside it; a gold's, an enemy piece."""
    cdef int them = p.side ^ 1
    cdef bb_t own = p.by_color[p.side]
    cdef bb_t golds = own & gold_movers(p)
    cdef bb_t silvers = own & p.by_type[SILVER]
    cdef bb_t knights = own & p.by_type[KNIGHT]
    cdef bb_t gains = target & (enemy | zone)
    cdef bb_t keep = b & ~(golds | silvers | knights)
    if golds:
        keep |= b & golds & gold_reach(them, target & enemy)
    if silvers:
        keep |= b & silvers & ((silver_reach(them, gains) & ~zone)
                               | (silver_reach(them, target) & zone))
    if knights:
        keep |= b & knights & knight_reach(them, gains)
    return keep


cdef void check_info_init(const Pos* p, CheckInfo* ci) noexcept nogil:
    """Fill ci for gives_check_by at this position (the side to move not in check or in
    check alike)."""
    ci.ek = p.king_sq[p.side ^ 1]
    if ci.ek < 0:
        return
    _check_squares(p, ci.ek, ci.direct, _sliders_in_play(p))
    ci.discoverers = slider_blockers(p, p.side ^ 1, p.side) & p.by_color[p.side]


cdef int _generate_checks(const Pos* p, int* out) noexcept nogil:
    """Legal checking moves when the side to move is not in check (the tsume solver's
    OR nodes): drops onto the squares that see the king, piece moves onto them, and
    moves of a piece that uncovers a slider."""
    cdef int ek = p.king_sq[p.side ^ 1]
    cdef bb_t direct[16]
    if ek < 0:
        return 0
    _check_squares(p, ek, direct, -1)
    return add_checks(p, out, direct, direct, 0)


cdef int add_checks(const Pos* p, int* out, const bb_t* direct, const bb_t* wanted,
                     bb_t free_movers) noexcept nogil:
    """Write the legal checks whose destination is wanted[type after the move], a subset
    of direct[] (the check squares): every drop and piece move, except that a piece
    that uncovers a check, or one in free_movers, may land on any square of direct[]."""
    cdef int us = p.side
    cdef int them = us ^ 1
    cdef int ek = p.king_sq[them]
    cdef bb_t own = p.by_color[us]
    cdef bb_t b, pinned, discoverers, movers
    cdef int n = _add_check_drops(p, out, wanted)
    # board moves: the pieces near the king, the sliders, and the pieces that uncover
    # a check, each only where its wanted squares ask for it
    pinned = pinned_pieces(p, us)
    discoverers = slider_blockers(p, them, us) & own
    movers = discoverers | free_movers
    if (wanted[PAWN] | wanted[KNIGHT] | wanted[SILVER] | wanted[GOLD] | wanted[PRO_PAWN]
            | wanted[PRO_LANCE] | wanted[PRO_KNIGHT] | wanted[PRO_SILVER]
            | wanted[HORSE] | wanted[DRAGON]):
        movers |= usi_tables.near_king[ek]
    if wanted[LANCE] | wanted[PRO_LANCE]:
        movers |= p.by_type[LANCE]
    if wanted[BISHOP] | wanted[HORSE]:
        movers |= p.by_type[BISHOP] | p.by_type[HORSE]
    if wanted[ROOK] | wanted[DRAGON]:
        movers |= p.by_type[ROOK] | p.by_type[DRAGON]
    b = own & movers
    while b:
        n = _add_piece_checks(p, out, n, bb_pop(&b), pinned, discoverers, free_movers,
                              direct, wanted)
    return n


cdef int drop_dominated(const Pos* p, int* moves, int n) noexcept nogil:
    """Leave out of moves[0:n] (in place; returns the new count) the non-promotions
    that the same move with promotion dominates: a pawn, bishop or rook that may
    promote (the promoted piece attacks every square the unpromoted one does, and is
    worth the same when captured), and a lance onto its second rank (a gold there
    covers the lance's one square).  Searches need not look at them, as other
    engines' do not; perft and the mate solver keep every legal move."""
    cdef int us = p.side
    cdef bb_t zone = usi_tables.zone[us]
    cdef bb_t lance_second = usi_tables.dead[us][KNIGHT] & ~usi_tables.dead[us][LANCE]
    cdef int i, m, pt, k = 0
    for i in range(n):
        m = moves[i]
        if not move_is_drop(m) and not move_is_promotion(m):
            pt = piece_type(p.board[move_from(m)])
            if pt == PAWN or pt == BISHOP or pt == ROOK:
                if bb_test(zone, move_from(m)) or bb_test(zone, move_to(m)):
                    continue
            elif pt == LANCE and bb_test(lance_second, move_to(m)):
                continue
        moves[k] = m
        k += 1
    return k


cdef int generate(const Pos* p, int* out, int kind) noexcept nogil:
    """Write the requested legal moves to out (room for MAX_MOVES) and return how many."""
    cdef int n, i, k
    cdef bint dominated_out = (kind & GEN_NO_DOMINATED) != 0
    kind &= ~GEN_NO_DOMINATED
    if kind == GEN_EVASIONS:
        if not state(p).checkers:
            return 0
        return _generate_legal(p, out, GEN_LEGAL, dominated_out)
    if kind == GEN_CHECKS:
        if not state(p).checkers:
            n = _generate_checks(p, out)
            return drop_dominated(p, out, n) if dominated_out else n
        n = _generate_legal(p, out, GEN_LEGAL, dominated_out)
        k = 0
        for i in range(n):
            if gives_check(p, out[i]):
                out[k] = out[i]
                k += 1
        return k
    return _generate_legal(p, out, kind, dominated_out)


cdef bint has_legal_move(const Pos* p) noexcept nogil:
    cdef int moves[MAX_MOVES]
    return _generate_legal(p, moves, GEN_LEGAL, False) > 0


cdef bint has_evasion(const Pos* p) noexcept nogil:
    """Does the side to move, in check, have a legal reply?  Cheaper than generating:
    it stops at the first one found, trying king steps first, then capturing the
    checker, then blocking it."""
    cdef int us = p.side
    cdef int them = us ^ 1
    cdef int ksq = p.king_sq[us]
    cdef bb_t occ = p.occupied
    cdef bb_t checkers = state(p).checkers
    cdef bb_t b, pinned, between, t
    cdef int to, checker, frm, pt
    cdef unsigned int h
    if ksq < 0 or not checkers:
        return has_legal_move(p)
    b = usi_tables.step[KING][ksq] & ~p.by_color[us]
    while b:
        to = bb_pop(&b)
        if not is_attacked(p, them, to, occ ^ bb_square(ksq)):
            return True
    if bb_more_than_one(checkers):
        return False
    checker = bb_lsb(checkers)
    pinned = pinned_pieces(p, us)
    b = attackers_to(p, us, checker, occ) & ~bb_square(ksq)
    while b:
        frm = bb_pop(&b)
        if not bb_test(pinned, frm) or aligned(ksq, frm, checker):
            return True
    between = usi_tables.between[ksq][checker]
    if not between:
        return False
    h = p.hand[us]
    if h:
        for pt in range(LANCE, KING):
            if hand_count(h, pt) and between & ~usi_tables.dead[us][pt]:
                return True
        if hand_count(h, PAWN):
            t = _pawn_drop_squares(p, us, between)
            # a blocking pawn drop that would itself be pawn-drop mate is illegal
            while t:
                to = bb_pop(&t)
                if to != _pawn_drop_checks_at(p) or not is_pawn_drop_mate(p, to):
                    return True
    b = p.by_color[us] & ~bb_square(ksq)
    while b:
        frm = bb_pop(&b)
        t = piece_attacks(p.board[frm], frm, occ) & between
        if t and bb_test(pinned, frm):
            t &= usi_tables.line[ksq][frm]
        if t:
            return True
    return False


cdef bint gives_check(const Pos* p, int m) noexcept nogil:
    """Does the legal move m check the opponent's king (directly or by discovery)?"""
    cdef int us = p.side
    cdef int them = us ^ 1
    cdef int ek = p.king_sq[them]
    cdef int to = move_to(m)
    cdef int frm, pc, s
    cdef bb_t occ, behind
    if ek < 0:
        return False
    if move_is_drop(m):
        return piece_attacks_square(make_piece(us, move_dropped_type(m)), to, ek,
                                    p.occupied)
    frm = move_from(m)
    pc = p.board[frm]
    if move_is_promotion(m):
        pc += PROMOTED
    occ = (p.occupied ^ bb_square(frm)) | bb_square(to)
    if piece_attacks_square(pc, to, ek, occ):
        return True
    # Discovered check: the opponent is not in check before our move, so any slider
    # of ours that now sees the king was uncovered by the square just vacated: one
    # on the line through the king and frm, beyond frm, with nothing between.
    if not usi_tables.line[ek][frm] or bb_test(usi_tables.line[ek][frm], to):
        return False
    # (most pieces on a line with the king have no slider of ours on that line at all)
    behind = usi_tables.line[ek][frm] & p.by_color[us] & sliders(p)
    while behind:
        s = bb_pop(&behind)
        if (bb_test(usi_tables.between[ek][s], frm)
                and piece_attacks_square(p.board[s], s, ek, occ)):
            return True
    return False


cdef bint is_legal(const Pos* p, int m) noexcept nogil:
    """Is the arbitrary move value m legal here?  Safe on any int (TT moves, user input)."""
    cdef int us = p.side
    cdef int them = us ^ 1
    cdef int to = move_to(m)
    cdef int frm = move_from(m)
    cdef int ksq = p.king_sq[us]
    cdef bb_t checkers = state(p).checkers
    cdef int pt, pc
    cdef bb_t occ
    if m <= 0 or m > 0x7FFF or to >= SQUARE_NB:
        return False
    if frm > MOVE_DROP_BASE:
        pt = frm - MOVE_DROP_BASE
        if pt > GOLD or move_is_promotion(m):
            return False
        if not hand_count(p.hand[us], pt) or p.board[to] != EMPTY:
            return False
        if bb_test(usi_tables.dead[us][pt], to):
            return False
        if pt == PAWN and pieces(p, us, PAWN) & usi_tables.file_mask[square_file(to)]:
            return False
        if checkers:
            if bb_more_than_one(checkers):
                return False
            if not bb_test(usi_tables.between[ksq][bb_lsb(checkers)], to):
                return False
        if pt == PAWN and to == _pawn_drop_checks_at(p) and is_pawn_drop_mate(p, to):
            return False
        return True
    if frm >= SQUARE_NB:
        return False
    pc = p.board[frm]
    if pc == EMPTY or piece_color(pc) != us:
        return False
    if p.board[to] != EMPTY and piece_color(p.board[to]) == us:
        return False
    if not piece_attacks_square(pc, frm, to, p.occupied):
        return False
    pt = piece_type(pc)
    if move_is_promotion(m):
        if not can_promote_type(pt):
            return False
        if not (bb_test(usi_tables.zone[us], frm) or bb_test(usi_tables.zone[us], to)):
            return False
    elif bb_test(usi_tables.dead[us][pt], to):
        return False
    if pt == KING:
        return not is_attacked(p, them, to, p.occupied ^ bb_square(frm))
    if ksq < 0:
        return True
    occ = (p.occupied ^ bb_square(frm)) | bb_square(to)
    return (attackers_to(p, them, ksq, occ) & ~bb_square(to)) == 0
