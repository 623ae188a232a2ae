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
from usi_engine.core.position cimport (Pos, state, pieces, attackers_to, is_attacked,
                                  gold_movers, pinned_pieces, slider_blockers, hand_count,
                                  sliders, snipers_of, HAND_FIELD,
                                  pos_do_move, pos_undo_move)

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


cdef bint is_pawn_drop_mate(const Pos* p, int to) noexcept nogil:
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
    return _add_checks(p, out, direct, direct, 0)


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


cdef int _add_checks(const Pos* p, int* out, const bb_t* direct, const bb_t* wanted,
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


cdef int _add_covering_checks(const Pos* p, int* out, const bb_t* direct,
                              const bb_t* wanted, bb_t free_movers) noexcept nogil:
    """_add_checks (the same moves in the same order) for mate in one's few wanted
    squares: the pieces that are neither free movers nor uncover a check are found
    as the attackers of those squares, rather than by trying every piece near the
    king (a third of a check per call was written for ~1,000 instructions)."""
    cdef int us = p.side
    cdef int them = us ^ 1
    cdef bb_t own = p.by_color[us]
    cdef bb_t b, pinned, discoverers, free, targets = 0
    cdef int pt, first_board
    cdef int n = _add_check_drops(p, out, wanted)
    first_board = n
    pinned = pinned_pieces(p, us)
    discoverers = slider_blockers(p, them, us) & own
    free = (discoverers | free_movers) & own
    b = free
    while b:
        n = _add_piece_checks(p, out, n, bb_pop(&b), pinned, discoverers, free_movers,
                              direct, wanted)
    for pt in range(PAWN, DRAGON + 1):
        targets |= wanted[pt]
    n = _add_checks_onto(p, out, n, targets & ~own, own & ~free, pinned, wanted)
    _sort_board_moves(out, first_board, n, False)
    return n


cdef inline int _add_checks_onto(const Pos* p, int* out, int n, bb_t targets, bb_t movers,
                                 bb_t pinned, const bb_t* checks) noexcept nogil:
    """Append the moves of our pieces in movers (the king never) onto the squares of
    targets that check from there (checks[type after the move]), found as the
    attackers of those squares; a pinned piece only along its pin."""
    cdef int us = p.side
    cdef int ksq = p.king_sq[us]
    cdef int to, frm
    cdef bb_t b
    if ksq >= 0:
        movers &= ~bb_square(ksq)
    while targets:
        to = bb_pop(&targets)
        b = attackers_to(p, us, to, p.occupied) & movers
        while b:
            frm = bb_pop(&b)
            if bb_test(pinned, frm) and not aligned(ksq, frm, to):
                continue
            n = _add_checking_board_moves(p, out, n, frm, p.board[frm], bb_square(to),
                                          checks, False)
    return n


cdef inline void _sort_board_moves(int* moves, int begin, int end,
                                   bint by_destination) noexcept nogil:
    """Put moves[begin:end] (board moves) in generation order: by origin square, then
    destination (by_destination: the other way round, _add_checks_onto's order), a
    promotion before the same move without."""
    cdef int i, q, m, key
    for i in range(begin + 1, end):
        m = moves[i]
        key = _generation_key(m, by_destination)
        q = i
        while q > begin and _generation_key(moves[q - 1], by_destination) > key:
            moves[q] = moves[q - 1]
            q -= 1
        moves[q] = m


cdef inline int _generation_key(int m, bint by_destination) noexcept nogil:
    cdef int squares = ((move_to(m) << 7) | move_from(m)) if by_destination else m & 0x3FFF
    return (squares << 1) | (0 if move_is_promotion(m) else 1)


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


cdef int mate_in_one(const Pos* p) noexcept nogil:
    """A checking move after which the opponent has no reply, or 0.  Exact: it finds a
    mate whenever there is one.  Not in check, it first finds the squares next to their
    king that nothing of ours attacks (flights): a check mates only if it covers them
    all, so most checks are never generated (see _covering_check_squares)."""
    cdef int moves[MAX_MOVES]
    cdef bb_t direct[16]
    cdef bb_t wanted[16]
    cdef int us = p.side
    cdef int ek = p.king_sq[us ^ 1]
    cdef bb_t near, occ, flights, openers = 0
    cdef int n
    if ek < 0:
        return 0
    if state(p).checkers:
        return _first_mate(p, moves, generate(p, moves, GEN_CHECKS), 0, 0, 0, 0)
    occ = p.occupied & ~bb_square(ek)
    near = usi_tables.step[KING][ek] & ~p.by_color[us ^ 1]
    flights = near & ~_attacked_near(p, us, ek, near, occ)
    _check_squares(p, ek, direct, _sliders_in_play(p))
    if flights:
        _covering_check_squares(p, flights, occ, direct, wanted)
        openers = _flight_openers(p, flights, occ)
        if not openers and not _any_wanted(wanted) and not snipers_of(p, us ^ 1, us):
            return 0    # no check can cover every flight (a third of the calls)
        n = _add_covering_checks(p, moves, direct, wanted, openers)
    else:
        n = _add_checks(p, moves, direct, direct, 0)
    return _first_mate(p, moves, n, near, flights, 0, 0)


cdef int mate_in_one_near(const Pos* p) noexcept nogil:
    """A mate by a check from next to their king or from a knight's jump (a drop, or a
    move that checks directly), or 0; the side to move must not be in check.  The
    searches' test (YaneuraOu's mate_1ply looks no further): the distant checks of a
    slider and discovered checks, which can mostly be blocked, are left to the search,
    and the flights are looked at only for the few checks that survive the cheap
    tests, where mate_in_one works out what every check would have to cover first
    (a quarter of the search's time went there).  Each move returned is a mate."""
    cdef int moves[MAX_MOVES]
    cdef bb_t near_checks[16]
    cdef bb_t drops[16]
    cdef int us = p.side
    cdef int ek = p.king_sq[us ^ 1]
    cdef bb_t near, reached, looked_at, guarded = 0
    cdef int n, pt
    if ek < 0:
        return 0
    # the squares next to the king and a knight's jump from it that a piece of ours
    # attacks, seen through the king: the squares that board moves may check from,
    # and the squares next to the king where a dropped piece is guarded (elsewhere
    # the king takes it)
    near = usi_tables.step[KING][ek]
    reached = _attacked_near(p, us, ek,
                             (near | usi_tables.step[make_piece(us ^ 1, KNIGHT)][ek])
                             & ~p.by_color[us], p.occupied & ~bb_square(ek))
    if not reached and not (p.hand[us] & ~HAND_FIELD[PAWN]):
        return 0    # no check to try (a pawn drop never mates legally)
    _near_check_squares(p, ek, near_checks)
    for pt in range(PAWN, KING):
        drops[pt] = near_checks[pt] & (reached | ~near)
    drops[PAWN] = 0     # (a pawn-drop mate is illegal)
    n = _add_check_drops(p, moves, drops)
    if reached:
        n = _add_near_check_moves(p, moves, n, near_checks, reached, near, &guarded)
    # (whether a flight is attacked is known already for the squares next to the king
    # that reached looked at -- those not ours, seen through the king, as
    # _king_steps_away looks -- and need not be asked again)
    looked_at = near & ~p.by_color[us]
    # (its drops next to the king are onto guarded squares only, and so are its board
    # moves onto a square two of our pieces attack: the king never takes those)
    return _first_mate(p, moves, n, looked_at, looked_at & ~reached, usi_tables.all,
                       guarded | ~near)


cdef inline void _near_check_squares(const Pos* p, int ek, bb_t* near_checks) noexcept nogil:
    """near_checks[pt]: the squares next to the king on ek (or a knight's jump from it)
    from which a piece of ours of type pt would check it."""
    cdef int them = p.side ^ 1
    cdef int pt
    cdef bb_t near = usi_tables.step[KING][ek]
    for pt in range(PAWN, DRAGON + 1):
        near_checks[pt] = usi_tables.step[make_piece(them, pt)][ek]
    near_checks[KING] = 0
    near_checks[LANCE] = near_checks[PAWN]
    near_checks[BISHOP] = near & bishop_pseudo_attacks(ek)
    near_checks[ROOK] = near & rook_pseudo_attacks(ek)


cdef inline int _add_near_check_moves(const Pos* p, int* out, int n, const bb_t* near_checks,
                                      bb_t targets, bb_t near, bb_t* guarded) noexcept nogil:
    """_add_checks_onto's moves for the near mate in one (the same moves, in the same
    order: by destination, then origin, a promotion first), found from our pieces
    close enough to attack targets rather than as each target's attackers: the
    non-sliders (our king included, which guards but never moves here) within
    near_king of their king, the sliders on near_king_lines.  A square of near that
    only the mover attacks is left out unless one of our sliders stands on a line
    through it; guarded gains the targets that two of our pieces attack."""
    cdef int us = p.side
    cdef int ek = p.king_sq[us ^ 1]
    cdef int ksq = p.king_sq[us]
    cdef bb_t own = p.by_color[us]
    cdef bb_t long_range = p.by_type[LANCE] | p.by_type[BISHOP] | p.by_type[ROOK]
    cdef bb_t sliders = own & (long_range | p.by_type[HORSE] | p.by_type[DRAGON])
    cdef bb_t candidates = own & ((usi_tables.near_king[ek] & ~long_range)
                                  | (usi_tables.near_king_lines[ek] & sliders))
    cdef bb_t once = 0, twice = 0, pinned, reach, alone
    cdef bb_t attacks[40]
    cdef int origins[40]
    cdef int k = 0, i, s, to, start = n
    while candidates:
        s = bb_pop(&candidates)
        if not bb_test(sliders, s):
            reach = usi_tables.step[p.board[s]][s] & targets
        elif _empty_board_reach(p.board[s], s) & targets:
            reach = piece_attacks(p.board[s], s, p.occupied) & targets
        else:
            continue
        if reach:
            twice |= once & reach
            once |= reach
            if s != ksq:
                origins[k] = s
                attacks[k] = reach
                k += 1
    if k == 0:
        return n
    guarded[0] |= twice
    pinned = pinned_pieces(p, us)
    for i in range(k):
        s = origins[i]
        reach = attacks[i]
        if bb_test(pinned, s):
            reach &= usi_tables.line[ksq][s]
        # (squares next to their king that only this piece attacks: the king takes it
        # there unless a slider behind it, or behind their king, then guards it)
        alone = reach & near & ~twice
        while alone:
            to = bb_pop(&alone)
            if not ((usi_tables.line[to][s] | usi_tables.line[to][ek]) & sliders
                    & ~bb_square(s)):
                reach &= ~bb_square(to)
        if reach:
            n = _add_checking_board_moves(p, out, n, s, p.board[s], reach, near_checks,
                                          False)
    _sort_board_moves(out, start, n, True)
    return n


cdef inline bb_t _empty_board_reach(int pc, int s) noexcept nogil:
    """The squares the slider pc on s attacks on the empty board (a horse's or
    dragon's steps included): one load, to pass over the sliders that stand on no
    line through the squares asked about before working out their slides."""
    cdef int pt = piece_type(pc)
    if pt == LANCE:
        return lance_pseudo_attacks(piece_color(pc), s)
    if pt == ROOK:
        return rook_pseudo_attacks(s)
    if pt == BISHOP:
        return bishop_pseudo_attacks(s)
    if pt == DRAGON:
        return rook_pseudo_attacks(s) | usi_tables.step[KING][s]
    return bishop_pseudo_attacks(s) | usi_tables.step[KING][s]


cdef inline bint _any_wanted(const bb_t* wanted) noexcept nogil:
    """Is there a square from which some piece type would check and cover the flights?"""
    cdef int pt
    cdef bb_t any_square = 0
    for pt in range(PAWN, DRAGON + 1):
        any_square |= wanted[pt]
    return any_square != 0


cdef inline int _first_mate(const Pos* p, int* moves, int n, bb_t tested, bb_t free,
                            bb_t drops_safe, bb_t moves_safe) noexcept nogil:
    """The first of the checks moves[0:n] that leaves the opponent no reply, or 0.
    tested and free: the flight squares already looked at, and those found free;
    drops_safe and moves_safe: squares where a checker dropped, or moved, is known
    to be safe from their king (it need not be asked)."""
    cdef Pos* q = <Pos*>p      # moves are played and taken back: p is unchanged on return
    cdef int i, m
    cdef bint escapes
    for i in range(n):
        m = moves[i]
        if (not bb_test(drops_safe if move_is_drop(m) else moves_safe, move_to(m))
                and _king_takes_checker(p, m)):
            continue
        if _king_steps_away(p, m, &tested, &free):
            continue
        pos_do_move(q, m)
        escapes = has_evasion(q)
        pos_undo_move(q)
        if not escapes:
            return m
    return 0


cdef inline bb_t _attacked_near(const Pos* p, int us, int ek, bb_t squares,
                                bb_t occ) noexcept nogil:
    """The squares of `squares` (next to their king on ek, or a knight's jump from it)
    that a piece of us attacks through occupancy occ.  Only our pieces that could
    reach them are looked at: the sliders on a line through one of them, each only
    if its slide on the empty board meets a square still to be settled; then the
    other pieces within near_king[ek] (most of ours stand further off)."""
    cdef bb_t own = p.by_color[us]
    cdef bb_t attacked = 0
    cdef bb_t long_range = p.by_type[LANCE] | p.by_type[BISHOP] | p.by_type[ROOK]
    cdef bb_t sliders = (own & usi_tables.near_king_lines[ek]
                         & (long_range | p.by_type[HORSE] | p.by_type[DRAGON]))
    cdef bb_t rest, steppers
    cdef int s
    while sliders:
        s = bb_pop(&sliders)
        # what it would attack on an empty board first: most sliders stand on no line
        # through a square still to be settled
        if _empty_board_reach(p.board[s], s) & squares & ~attacked:
            attacked |= piece_attacks(p.board[s], s, occ) & squares
    rest = squares & ~attacked
    # the step attacks (a horse's or dragon's too) of the few pieces close enough
    steppers = own & ~long_range & usi_tables.near_king[ek]
    while rest and steppers:
        s = bb_pop(&steppers)
        rest &= ~usi_tables.step[p.board[s]][s]
    return squares & ~rest


cdef inline void _covering_check_squares(const Pos* p, bb_t flights, bb_t occ,
                                         const bb_t* direct, bb_t* wanted) noexcept nogil:
    """wanted[pt]: the check squares of direct[pt] from which a piece of type pt would
    also attack every flight (occ: the board without their king, whose flight along
    the line of a slider's check stays attacked).  A check by a drop, or by a piece
    that opens no line onto a flight, covers the flights only from such a square: the
    move adds no other attack on them, and its destination cannot be a flight, where
    nothing would guard it from the king.  (A slider that moves off the line from a
    flight was attacking it already, so the square it leaves never matters.)"""
    cdef int them = p.side ^ 1
    cdef int pt, f
    cdef bb_t gold, slide
    for pt in range(PAWN, DRAGON + 1):
        wanted[pt] = direct[pt] & ~flights
    while flights:
        f = bb_pop(&flights)
        wanted[PAWN] &= usi_tables.step[make_piece(them, PAWN)][f]
        wanted[KNIGHT] &= usi_tables.step[make_piece(them, KNIGHT)][f]
        wanted[SILVER] &= usi_tables.step[make_piece(them, SILVER)][f]
        gold = usi_tables.step[make_piece(them, GOLD)][f]
        wanted[GOLD] &= gold
        for pt in range(PRO_PAWN, PRO_SILVER + 1):
            wanted[pt] &= gold
        # the slides from the flight only where a wanted square lies on one of its
        # lines on the empty board (most flights have none: a check along a line
        # through the king rarely also sees a square next to it)
        if wanted[LANCE]:
            wanted[LANCE] &= lance_pseudo_attacks(them, f)
            if wanted[LANCE]:
                wanted[LANCE] &= lance_attacks(them, f, occ)
        if wanted[BISHOP] | wanted[HORSE]:
            slide = bishop_pseudo_attacks(f)
            if (wanted[BISHOP] | wanted[HORSE]) & slide:
                slide = bishop_attacks(f, occ)
            wanted[BISHOP] &= slide
            wanted[HORSE] &= slide | usi_tables.step[KING][f]
        if wanted[ROOK] | wanted[DRAGON]:
            slide = rook_pseudo_attacks(f)
            if (wanted[ROOK] | wanted[DRAGON]) & slide:
                slide = rook_attacks(f, occ)
            wanted[ROOK] &= slide
            wanted[DRAGON] &= slide | usi_tables.step[KING][f]


cdef inline bb_t _flight_openers(const Pos* p, bb_t flights, bb_t occ) noexcept nogil:
    """Our pieces that alone stand between one of our sliders and a flight: moving
    one may cover the flight through the line it opens."""
    cdef int us = p.side
    cdef bb_t sliders, b, result = 0
    cdef int f, s
    while flights:
        f = bb_pop(&flights)
        sliders = ((rook_pseudo_attacks(f) & (p.by_type[ROOK] | p.by_type[DRAGON]))
                   | (bishop_pseudo_attacks(f) & (p.by_type[BISHOP] | p.by_type[HORSE]))
                   | (lance_pseudo_attacks(us ^ 1, f) & p.by_type[LANCE])) & p.by_color[us]
        while sliders:
            s = bb_pop(&sliders)
            b = usi_tables.between[f][s] & occ
            if b and not bb_more_than_one(b):
                result |= b
    return result & p.by_color[us]


cdef inline bint _king_steps_away(const Pos* p, int m, bb_t* tested,
                                  bb_t* free) noexcept nogil:
    """After checking move m, can the opponent's king step to a square next to it that
    nothing of ours attacks, so that m is no mate?  Told without playing m: a square
    that nothing attacks now (sliders seen through the king; tested and free cache
    that per node) is attacked after m only by the moved or dropped piece, or through
    a line opened by the square it leaves (the square it fills only blocks lines).
    Most checks end here instead of in a played move and an evasion search."""
    cdef int us = p.side
    cdef int ek = p.king_sq[us ^ 1]
    cdef int to = move_to(m)
    cdef int frm = -1
    cdef int pc, f
    cdef bb_t occ, candidates
    if move_is_drop(m):
        pc = make_piece(us, move_dropped_type(m))
        occ = (p.occupied | bb_square(to)) & ~bb_square(ek)
    else:
        frm = move_from(m)
        pc = p.board[frm] + (PROMOTED if move_is_promotion(m) else 0)
        occ = ((p.occupied & ~bb_square(frm)) | bb_square(to)) & ~bb_square(ek)
    candidates = (usi_tables.step[KING][ek] & ~p.by_color[us ^ 1] & ~bb_square(to)
                  & ~piece_attacks(pc, to, occ))
    while candidates:
        f = bb_pop(&candidates)
        if not bb_test(tested[0], f):
            tested[0] |= bb_square(f)
            if not is_attacked(p, us, f, p.occupied & ~bb_square(ek)):
                free[0] |= bb_square(f)
        if not bb_test(free[0], f):
            continue
        # free before m; a square in no line with the one m leaves stays free
        if (frm < 0 or not usi_tables.line[f][frm]
                or not (attackers_to(p, us, f, occ) & ~bb_square(frm))):
            return True
    return False


cdef inline bint _king_takes_checker(const Pos* p, int m) noexcept nogil:
    """Does checking move m land next to the opponent's king on a square that none of
    our other pieces guards?  Then the king takes it: no mate, and no need to play it
    out (most drop checks): half the evasion tests, 4% less CPU to depth 9 on
    middle-game positions."""
    cdef int to = move_to(m)
    cdef int ek = p.king_sq[p.side ^ 1]
    cdef bb_t mover = 0 if move_is_drop(m) else bb_square(move_from(m))
    cdef bb_t occ
    if ek < 0 or not bb_test(usi_tables.step[KING][ek], to):
        return False
    # after m, with their king lifted (a slider behind it would guard its capture)
    occ = ((p.occupied | bb_square(to)) & ~mover) & ~bb_square(ek)
    return (attackers_to(p, p.side, to, occ) & ~mover) == 0


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
