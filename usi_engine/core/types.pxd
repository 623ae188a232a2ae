# Encodings shared by every C-level module: colours, pieces, squares and moves.
#
# Square: (file - 1) * 9 + (rank - 1), 0..80; "1a" = 0, "9i" = 80.
# Piece type: 1..14 as below; promoted type = type | PROMOTED.
# Piece code: type | colour << 4 (0 = empty square), so codes fit in 0..31.
# Move (an int, the same value in C and Python): bits 0-6 destination, bits 7-13 origin
# (81..87 for a drop of piece type origin - 80), bit 14 promotion.  0 is "no move".

cdef enum:
    BLACK = 0           # sente, moves first, upper-case in SFEN
    WHITE = 1           # gote
    COLOR_SHIFT = 4
    NO_SQUARE = -1
    SQUARE_NB = 81

    EMPTY = 0
    PAWN = 1
    LANCE = 2
    KNIGHT = 3
    SILVER = 4
    BISHOP = 5
    ROOK = 6
    GOLD = 7
    KING = 8
    PRO_PAWN = 9
    PRO_LANCE = 10
    PRO_KNIGHT = 11
    PRO_SILVER = 12
    HORSE = 13
    DRAGON = 14
    PROMOTED = 8
    PIECE_CODE_NB = 32

    MOVE_NONE = 0
    MOVE_DROP_BASE = 80
    MOVE_PROMOTE = 1 << 14

    # Room in every move list.  593 is the most legal moves known with both kings on the
    # board, but the side to move may lack its king (a tsume's attacker), which frees
    # its moves from pins and check, so the bound is taken from the pieces themselves:
    # board moves, each promotion choice counted, at most 2 rooks x 32 + 2 bishops x 32
    # + 4 lances x 16 + 4 knights x 6 (promoted) + 4 silvers x 10 + 4 golds x 6
    # + 18 pawns x 6 (tokin) + king 8 = 396; drops at most 72 (pawn) + 72 (lance)
    # + 63 (knight) + 4 x 80 (silver, gold, bishop, rook; never on the other king)
    # = 527.  396 + 527 = 923 <= MAX_MOVES (tests/test_rules.py recomputes it).
    MAX_MOVES = 1024

cdef inline int piece_type(int pc) noexcept nogil:
    return pc & 15

cdef inline int piece_color(int pc) noexcept nogil:
    return pc >> COLOR_SHIFT

cdef inline int make_piece(int color, int pt) noexcept nogil:
    return pt | (color << COLOR_SHIFT)

cdef inline int unpromoted(int pt) noexcept nogil:
    # KING (8) is the one type with bit 3 set that is not a promotion.
    return pt if pt <= KING else pt - PROMOTED

cdef inline bint can_promote_type(int pt) noexcept nogil:
    return PAWN <= pt <= ROOK

cdef inline int square_file(int sq) noexcept nogil:
    """0-based file index: 0 is file 1."""
    return sq // 9

cdef inline int square_rank(int sq) noexcept nogil:
    """0-based rank index: 0 is rank a (gote's back rank)."""
    return sq % 9

cdef inline int make_square(int file0, int rank0) noexcept nogil:
    return file0 * 9 + rank0

cdef inline int move_to(int m) noexcept nogil:
    return m & 0x7F

cdef inline int move_from(int m) noexcept nogil:
    return (m >> 7) & 0x7F

cdef inline bint move_is_drop(int m) noexcept nogil:
    return move_from(m) > MOVE_DROP_BASE

cdef inline int move_dropped_type(int m) noexcept nogil:
    return move_from(m) - MOVE_DROP_BASE

cdef inline bint move_is_promotion(int m) noexcept nogil:
    return (m >> 14) & 1

cdef inline int make_move(int frm, int to, bint promote) noexcept nogil:
    return to | (frm << 7) | (MOVE_PROMOTE if promote else 0)

cdef inline int make_drop(int pt, int to) noexcept nogil:
    return to | ((pt + MOVE_DROP_BASE) << 7)
