# cython: language_level=3
"""Mate in one ply: `mate_in_one` (exact: a mate whenever there is one; the tsume
solver's and the Python API's) and `mate_in_one_near` (the searches' cheaper test: the
checks from next to the king or a knight's jump).  Apart from the move generator, which
it uses (each candidate check is played and the reply looked for), so that the
generator needs nothing of position.pyx at load time.

    >>> from usi_engine import Position, move_to_usi
    >>> move_to_usi(find_mate_in_one(Position("sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1")))
    'G*5b'
"""
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport (Position, Pos, state, pieces, attackers_to,
                                       is_attacked, gold_movers, pinned_pieces,
                                       slider_blockers, hand_count, sliders, snipers_of,
                                       in_check, HAND_FIELD, pos_do_move, pos_undo_move)
from usi_engine.core.movegen cimport GEN_CHECKS, generate, has_evasion, add_checks
from usi_engine.core.checks cimport *

init_tables()


def find_mate_in_one(Position position) -> int:
    """A move that checkmates at once (never a pawn-drop mate), or 0 (also when the
    side to move is in check)."""
    if in_check(&position.pos):
        return 0
    return mate_in_one(&position.pos)


def find_mate_in_one_near(Position position) -> int:
    """A mate by a check from next to the king or a knight's jump, or 0: the searches'
    cheaper test (it leaves out distant and discovered checks).

    >>> from usi_engine import Position
    >>> find_mate_in_one_near(Position("sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1")) != 0
    True
    """
    if in_check(&position.pos):
        return 0
    return mate_in_one_near(&position.pos)


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
        n = add_checks(p, moves, direct, direct, 0)
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
