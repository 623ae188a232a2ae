# Bitboard primitives and attack generation, inlined into every module that cimports it.
# The storage lives in core/bitboard.h; each module calls init_tables() once at import.
from libc.stdint cimport uint64_t
from usi_engine.core.types cimport *

cdef extern from "bitboard.h" nogil:
    # unsigned __int128 in C; Cython only needs to know it is an integer it must
    # never convert to a Python object.
    ctypedef unsigned long long bb_t
    ctypedef struct usi_tables_t:
        bb_t ray[8][81]
        bb_t step[32][81]
        bb_t between[81][81]
        bb_t line[81][81]
        bb_t file_mask[9]
        bb_t rank_mask[9]
        bb_t zone[2]
        bb_t dead[2][16]
        bb_t all
        bb_t rook_empty[81]
        bb_t bishop_empty[81]
        bb_t near_king[81]
        bb_t near_king_lines[81]
        int ready
    usi_tables_t usi_tables
    bb_t bb_square(int sq)
    int bb_test(bb_t b, int sq)
    int bb_more_than_one(bb_t b)
    int bb_popcount(bb_t b)
    int bb_lsb(bb_t b)
    int bb_msb(bb_t b)
    int bb_pop(bb_t* b)

# Ray directions.  "Up" is toward rank a (black's forward); positive directions
# increase the square index, so their nearest blocker is the lowest set bit.
cdef enum:
    DIR_UP = 0          # rank - 1, index - 1
    DIR_DOWN = 1        # rank + 1, index + 1
    DIR_LEFT = 2        # file + 1, index + 9 (leftward as black sees the board)
    DIR_RIGHT = 3       # file - 1, index - 9
    DIR_UP_LEFT = 4     # file + 1, rank - 1, index + 8
    DIR_DOWN_RIGHT = 5  # file - 1, rank + 1, index - 8
    DIR_DOWN_LEFT = 6   # file + 1, rank + 1, index + 10
    DIR_UP_RIGHT = 7    # file - 1, rank - 1, index - 10
    # d ^ 1 is the opposite direction of d

cdef inline bint _on_board(int f, int r) noexcept nogil:
    return 0 <= f < 9 and 0 <= r < 9

cdef inline bb_t _steps(int sq, const int* df, const int* dr, int n, int sign) noexcept nogil:
    cdef bb_t b = 0
    cdef int i, f, r
    for i in range(n):
        f = square_file(sq) + df[i]
        r = square_rank(sq) + dr[i] * sign
        if _on_board(f, r):
            b |= bb_square(make_square(f, r))
    return b

cdef inline void init_tables() noexcept nogil:
    """Fill usi_tables (idempotent)."""
    cdef int DF[8]
    cdef int DR[8]
    # file and rank deltas of the eight directions, indexed as the DIR_ enum
    DF[:] = [0, 0, 1, -1, 1, -1, 1, -1]
    DR[:] = [-1, 1, 0, 0, -1, 1, 1, -1]
    # step patterns for black; white mirrors the rank delta
    cdef int pawn_f[1]
    cdef int pawn_r[1]
    cdef int knight_f[2]
    cdef int knight_r[2]
    cdef int silver_f[5]
    cdef int silver_r[5]
    cdef int gold_f[6]
    cdef int gold_r[6]
    cdef int king_f[8]
    cdef int king_r[8]
    pawn_f[:] = [0]
    pawn_r[:] = [-1]
    knight_f[:] = [1, -1]
    knight_r[:] = [-2, -2]
    silver_f[:] = [-1, 0, 1, -1, 1]
    silver_r[:] = [-1, -1, -1, 1, 1]
    gold_f[:] = [-1, 0, 1, -1, 1, 0]
    gold_r[:] = [-1, -1, -1, 0, 0, 1]
    king_f[:] = [-1, 0, 1, -1, 1, -1, 0, 1]
    king_r[:] = [-1, -1, -1, 0, 0, 1, 1, 1]
    cdef int sq, s2, d, f, r, c, sign, pt
    cdef bb_t b
    if usi_tables.ready:
        return
    usi_tables.all = 0
    for sq in range(81):
        usi_tables.all |= bb_square(sq)
    for f in range(9):
        usi_tables.file_mask[f] = 0
        usi_tables.rank_mask[f] = 0
    for sq in range(81):
        usi_tables.file_mask[square_file(sq)] |= bb_square(sq)
        usi_tables.rank_mask[square_rank(sq)] |= bb_square(sq)
    usi_tables.zone[BLACK] = usi_tables.rank_mask[0] | usi_tables.rank_mask[1] | usi_tables.rank_mask[2]
    usi_tables.zone[WHITE] = usi_tables.rank_mask[6] | usi_tables.rank_mask[7] | usi_tables.rank_mask[8]
    for c in range(2):
        for pt in range(16):
            usi_tables.dead[c][pt] = 0
    usi_tables.dead[BLACK][PAWN] = usi_tables.rank_mask[0]
    usi_tables.dead[BLACK][LANCE] = usi_tables.rank_mask[0]
    usi_tables.dead[BLACK][KNIGHT] = usi_tables.rank_mask[0] | usi_tables.rank_mask[1]
    usi_tables.dead[WHITE][PAWN] = usi_tables.rank_mask[8]
    usi_tables.dead[WHITE][LANCE] = usi_tables.rank_mask[8]
    usi_tables.dead[WHITE][KNIGHT] = usi_tables.rank_mask[8] | usi_tables.rank_mask[7]

    for sq in range(81):
        for d in range(8):
            b = 0
            f = square_file(sq) + DF[d]
            r = square_rank(sq) + DR[d]
            while _on_board(f, r):
                b |= bb_square(make_square(f, r))
                f += DF[d]
                r += DR[d]
            usi_tables.ray[d][sq] = b
        for s2 in range(81):
            usi_tables.between[sq][s2] = 0
            usi_tables.line[sq][s2] = 0
        for d in range(8):
            f = square_file(sq) + DF[d]
            r = square_rank(sq) + DR[d]
            b = 0
            while _on_board(f, r):
                s2 = make_square(f, r)
                usi_tables.between[sq][s2] = b
                # the full line: both rays through sq plus sq itself
                usi_tables.line[sq][s2] = (usi_tables.ray[d][sq] | usi_tables.ray[d ^ 1][sq]
                                           | bb_square(sq))
                b |= bb_square(s2)
                f += DF[d]
                r += DR[d]
        for c in range(2):
            sign = 1 if c == BLACK else -1
            for pt in range(16):
                usi_tables.step[make_piece(c, pt)][sq] = 0
            usi_tables.step[make_piece(c, PAWN)][sq] = _steps(sq, pawn_f, pawn_r, 1, sign)
            usi_tables.step[make_piece(c, KNIGHT)][sq] = _steps(sq, knight_f, knight_r, 2, sign)
            usi_tables.step[make_piece(c, SILVER)][sq] = _steps(sq, silver_f, silver_r, 5, sign)
            b = _steps(sq, gold_f, gold_r, 6, sign)
            usi_tables.step[make_piece(c, GOLD)][sq] = b
            for pt in range(PRO_PAWN, PRO_SILVER + 1):
                usi_tables.step[make_piece(c, pt)][sq] = b
            b = _steps(sq, king_f, king_r, 8, sign)
            # horse and dragon: the step part only; the slides are added on the fly
            usi_tables.step[make_piece(c, KING)][sq] = b
            usi_tables.step[make_piece(c, HORSE)][sq] = b
            usi_tables.step[make_piece(c, DRAGON)][sq] = b
    for sq in range(81):
        usi_tables.rook_empty[sq] = (usi_tables.ray[DIR_UP][sq] | usi_tables.ray[DIR_DOWN][sq]
                                     | usi_tables.ray[DIR_LEFT][sq]
                                     | usi_tables.ray[DIR_RIGHT][sq])
        usi_tables.bishop_empty[sq] = (usi_tables.ray[DIR_UP_LEFT][sq]
                                       | usi_tables.ray[DIR_DOWN_RIGHT][sq]
                                       | usi_tables.ray[DIR_DOWN_LEFT][sq]
                                       | usi_tables.ray[DIR_UP_RIGHT][sq])
    for sq in range(81):
        _init_near_king(sq)
    usi_tables.ready = 1


cdef inline void _init_near_king(int k) noexcept nogil:
    """near_king[k]: files within 2 and ranks within 4 of k (a knight attacking a
    square a knight's jump from k stands 4 ranks away).  near_king_lines[k]: the
    rook and bishop lines through the squares next to k and its knight jumps, for
    either colour."""
    cdef int sq, t, df, dr
    cdef bb_t targets = usi_tables.step[make_piece(BLACK, KING)][k]
    cdef bb_t lines = 0
    usi_tables.near_king[k] = 0
    for sq in range(81):
        df = square_file(sq) - square_file(k)
        dr = square_rank(sq) - square_rank(k)
        if -2 <= df <= 2 and -4 <= dr <= 4:
            usi_tables.near_king[k] |= bb_square(sq)
    targets |= (usi_tables.step[make_piece(BLACK, KNIGHT)][k]
                | usi_tables.step[make_piece(WHITE, KNIGHT)][k])
    for t in range(81):
        if bb_test(targets, t):
            lines |= usi_tables.rook_empty[t] | usi_tables.bishop_empty[t]
    usi_tables.near_king_lines[k] = lines


cdef inline bb_t ray_up_index(int d, int sq, bb_t occ) noexcept nogil:
    """Slide from sq in a direction that increases the index, stopping at the first
    occupied square (included).  Branch-free: blockers - 1 clears the lowest blocker
    and sets every bit below it, so blockers ^ (blockers - 1) holds the bits up to
    the first blocker (all of them when there is none)."""
    cdef bb_t r = usi_tables.ray[d][sq]
    cdef bb_t blockers = r & occ
    return r & (blockers ^ (blockers - 1))

cdef inline bb_t ray_down_index(int d, int sq, bb_t occ) noexcept nogil:
    """The same toward lower indices: with nothing in the way the highest bit is square
    0, from which no ray leads to a lower index."""
    cdef bb_t r = usi_tables.ray[d][sq]
    return r ^ usi_tables.ray[d][bb_msb((r & occ) | 1)]

cdef inline bb_t lance_attacks(int color, int sq, bb_t occ) noexcept nogil:
    if color == BLACK:
        return ray_down_index(DIR_UP, sq, occ)
    return ray_up_index(DIR_DOWN, sq, occ)

cdef inline bb_t rook_attacks(int sq, bb_t occ) noexcept nogil:
    return (ray_down_index(DIR_UP, sq, occ) | ray_up_index(DIR_DOWN, sq, occ)
            | ray_up_index(DIR_LEFT, sq, occ) | ray_down_index(DIR_RIGHT, sq, occ))

cdef inline bb_t bishop_attacks(int sq, bb_t occ) noexcept nogil:
    return (ray_up_index(DIR_UP_LEFT, sq, occ) | ray_down_index(DIR_DOWN_RIGHT, sq, occ)
            | ray_up_index(DIR_DOWN_LEFT, sq, occ) | ray_down_index(DIR_UP_RIGHT, sq, occ))

cdef inline bb_t rook_pseudo_attacks(int sq) noexcept nogil:
    """rook_attacks(sq, 0): one load instead of four slides."""
    return usi_tables.rook_empty[sq]

cdef inline bb_t bishop_pseudo_attacks(int sq) noexcept nogil:
    return usi_tables.bishop_empty[sq]

cdef inline bb_t lance_pseudo_attacks(int color, int sq) noexcept nogil:
    return usi_tables.ray[DIR_UP if color == BLACK else DIR_DOWN][sq]

cdef inline bb_t shift_up(bb_t b) noexcept nogil:
    """Every square of b one rank up (toward rank a); rank a's squares drop out."""
    return (b & ~usi_tables.rank_mask[0]) >> 1

cdef inline bb_t shift_down(bb_t b) noexcept nogil:
    return (b & ~usi_tables.rank_mask[8]) << 1

cdef inline bb_t shift_left(bb_t b) noexcept nogil:
    """One file up (file + 1); the last file's squares drop out."""
    return (b << 9) & usi_tables.all

cdef inline bb_t shift_right(bb_t b) noexcept nogil:
    return b >> 9

cdef inline bb_t gold_reach(int color, bb_t b) noexcept nogil:
    """The squares that golds of color standing on b attack (all at once)."""
    cdef bb_t ahead = shift_up(b) if color == BLACK else shift_down(b)
    cdef bb_t behind = shift_down(b) if color == BLACK else shift_up(b)
    return ahead | behind | shift_left(ahead | b) | shift_right(ahead | b)

cdef inline bb_t silver_reach(int color, bb_t b) noexcept nogil:
    cdef bb_t ahead = shift_up(b) if color == BLACK else shift_down(b)
    cdef bb_t behind = shift_down(b) if color == BLACK else shift_up(b)
    return ahead | shift_left(ahead | behind) | shift_right(ahead | behind)

cdef inline bb_t king_reach(bb_t b) noexcept nogil:
    cdef bb_t vertical = shift_up(b) | shift_down(b)
    return vertical | shift_left(b | vertical) | shift_right(b | vertical)

cdef inline bb_t knight_reach(int color, bb_t b) noexcept nogil:
    cdef bb_t two = shift_up(shift_up(b)) if color == BLACK else shift_down(shift_down(b))
    return shift_left(two) | shift_right(two)

cdef inline bb_t step_attacks(int pc, int sq) noexcept nogil:
    return usi_tables.step[pc][sq]

cdef inline bb_t piece_attacks(int pc, int sq, bb_t occ) noexcept nogil:
    """Squares the piece code pc standing on sq attacks, given occupancy occ."""
    cdef int pt = piece_type(pc)
    if pt == LANCE:
        return lance_attacks(piece_color(pc), sq, occ)
    if pt == BISHOP:
        return bishop_attacks(sq, occ)
    if pt == ROOK:
        return rook_attacks(sq, occ)
    if pt == HORSE:
        return bishop_attacks(sq, occ) | usi_tables.step[pc][sq]
    if pt == DRAGON:
        return rook_attacks(sq, occ) | usi_tables.step[pc][sq]
    return usi_tables.step[pc][sq]

cdef inline bint piece_attacks_square(int pc, int sq, int target, bb_t occ) noexcept nogil:
    """bb_test(piece_attacks(pc, sq, occ), target) without the slides: a slider
    attacks target when target is on one of its lines on the empty board with nothing
    between."""
    cdef int pt = piece_type(pc)
    cdef bb_t reach
    if pt == LANCE:
        reach = lance_pseudo_attacks(piece_color(pc), sq)
    elif pt == BISHOP or pt == HORSE:
        reach = bishop_pseudo_attacks(sq)
    elif pt == ROOK or pt == DRAGON:
        reach = rook_pseudo_attacks(sq)
    else:
        return bb_test(usi_tables.step[pc][sq], target)
    if bb_test(reach, target):
        return not (usi_tables.between[sq][target] & occ)
    # (a horse's or dragon's step; the step table is empty for the other sliders)
    return bb_test(usi_tables.step[pc][sq], target)

cdef inline bint aligned(int a, int b, int c) noexcept nogil:
    """True when the three squares lie on one line (c on the line through a and b)."""
    return bb_test(usi_tables.line[a][b], c)
