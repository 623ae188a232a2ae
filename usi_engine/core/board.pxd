# The C-level position: board, bitboards, hands, incremental keys and the undo stack,
# with the inline reads of it.  No module behind it: the move generator and the check
# generators take these without loading position.pyx (which implements the moves and
# the Python class: core/position.pxd).
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from usi_engine.core.control cimport Control
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *

cdef extern from "hand.h" nogil:
    const int HAND_SHIFT[8]
    const uint32_t HAND_FIELD[8]
    const uint32_t HAND_BORROW

cdef enum:
    # outcomes of a repetition look-up, from the side to move's point of view
    REPETITION_NONE = 0
    REPETITION_DRAW = 1
    REPETITION_WIN = 2        # the opponent checked all the way round: we win
    REPETITION_LOSE = 3       # we checked all the way round: we lose
    REPETITION_SUPERIOR = 4   # same board, we hold more than before (no worse)
    REPETITION_INFERIOR = 5   # same board, we hold less than before

cdef enum:
    # entering-king rules (the EnteringKingRule option, YaneuraOu's names and order)
    EKR_NONE = 0              # NoEnteringKing: no declaration
    EKR_24 = 1                # CSARule24: 24-point rule, a win with 31 points (24-30: draw)
    EKR_24H = 2               # CSARule24H: the same, the upper hand's points less its handicap
    EKR_27 = 3                # CSARule27: the CSA rule, 28 points for black, 27 for white
    EKR_27H = 4               # CSARule27H: the same, the upper hand's points less its handicap
    EKR_TRY = 5               # TryRule: a king that reaches the enemy king's square wins

cdef enum:
    # outcomes of a declaration look-up for the side to move
    DECLARE_NONE = 0
    DECLARE_WIN = 1
    DECLARE_DRAW = 2          # the 24-point rule's 24 to 30 points

cdef struct StateInfo:
    uint64_t board_key        # pieces on the board and the side to move
    uint64_t hand_key         # additive over both hands
    uint32_t hand[2]          # both hands as of this position
    bb_t checkers             # opponent pieces giving check to the side to move
    int move                  # the move that led here (MOVE_NONE at the root)
    int captured              # piece code that move captured (EMPTY if none)
    int continuous_check[2]   # plies each colour has been giving check without a break
    int plies_from_null       # repetitions are not searched across a null move

cdef struct Pos:
    uint8_t board[81]         # piece codes
    bb_t by_color[2]
    bb_t by_type[16]          # by piece type, both colours
    bb_t occupied
    uint32_t hand[2]
    int side                  # colour to move
    int game_ply              # SFEN move number of this position
    int king_sq[2]            # NO_SQUARE when that king is absent (tsume attacker)
    StateInfo* stack          # stack[0 .. sp]; stack[sp] is the current state
    int sp
    int capacity

# ---- hands -------------------------------------------------------------------------
cdef inline int hand_count(uint32_t h, int pt) noexcept nogil:
    return (h & HAND_FIELD[pt]) >> HAND_SHIFT[pt]

cdef inline uint32_t hand_unit(int pt) noexcept nogil:
    return (<uint32_t>1) << HAND_SHIFT[pt]

cdef inline bint hand_covers(uint32_t a, uint32_t b) noexcept nogil:
    """True when hand a holds at least as many of every piece type as hand b."""
    return ((a - b) & HAND_BORROW) == 0

# ---- bitboard views of the position ------------------------------------------------
cdef inline StateInfo* state(const Pos* p) noexcept nogil:
    return &p.stack[p.sp]

cdef inline bb_t pieces(const Pos* p, int color, int pt) noexcept nogil:
    return p.by_color[color] & p.by_type[pt]

cdef inline bb_t gold_movers(const Pos* p) noexcept nogil:
    return (p.by_type[GOLD] | p.by_type[PRO_PAWN] | p.by_type[PRO_LANCE]
            | p.by_type[PRO_KNIGHT] | p.by_type[PRO_SILVER])

cdef inline bb_t sliders(const Pos* p) noexcept nogil:
    """Every piece that slides (lances, bishops, rooks, horses, dragons), both colours."""
    return (p.by_type[LANCE] | p.by_type[BISHOP] | p.by_type[ROOK] | p.by_type[HORSE]
            | p.by_type[DRAGON])

cdef inline bb_t snipers_of(const Pos* p, int king_color, int slider_color) noexcept nogil:
    """The sliders of slider_color on a line through the king of king_color that they
    would attack it along if nothing stood between (the king must be on the board)."""
    cdef int k = p.king_sq[king_color]
    return (((rook_pseudo_attacks(k) & (p.by_type[ROOK] | p.by_type[DRAGON]))
             | (bishop_pseudo_attacks(k) & (p.by_type[BISHOP] | p.by_type[HORSE]))
             | (lance_pseudo_attacks(king_color, k) & p.by_type[LANCE]))
            & p.by_color[slider_color])

cdef inline bb_t step_attackers_to(const Pos* p, int color, int sq) noexcept nogil:
    """Pieces of `color` that attack sq by a step (horses and dragons by theirs)."""
    cdef int opp = color ^ 1
    return (((usi_tables.step[make_piece(opp, PAWN)][sq] & p.by_type[PAWN])
             | (usi_tables.step[make_piece(opp, KNIGHT)][sq] & p.by_type[KNIGHT])
             | (usi_tables.step[make_piece(opp, SILVER)][sq] & p.by_type[SILVER])
             | (usi_tables.step[make_piece(opp, GOLD)][sq] & gold_movers(p))
             | (usi_tables.step[KING][sq]
                & (p.by_type[KING] | p.by_type[HORSE] | p.by_type[DRAGON])))
            & p.by_color[color])

cdef inline bb_t attackers_to(const Pos* p, int color, int sq, bb_t occ) noexcept nogil:
    """Pieces of `color` that attack sq, sliders seen through occupancy occ (a slide
    is looked up only when that colour has a piece that slides so)."""
    cdef bb_t own = p.by_color[color]
    cdef bb_t b = step_attackers_to(p, color, sq)
    cdef bb_t lances = p.by_type[LANCE] & own
    cdef bb_t diagonal = (p.by_type[BISHOP] | p.by_type[HORSE]) & own
    cdef bb_t straight = (p.by_type[ROOK] | p.by_type[DRAGON]) & own
    # (a slide only when a slider stands on one of sq's lines on the empty board)
    if lance_pseudo_attacks(color ^ 1, sq) & lances:
        b |= lance_attacks(color ^ 1, sq, occ) & lances
    if bishop_pseudo_attacks(sq) & diagonal:
        b |= bishop_attacks(sq, occ) & diagonal
    if rook_pseudo_attacks(sq) & straight:
        b |= rook_attacks(sq, occ) & straight
    return b

cdef inline bint is_attacked(const Pos* p, int color, int sq, bb_t occ) noexcept nogil:
    """Does a piece of `color` attack sq?  The steps first, then each slide that a
    slider on one of sq's lines could make, stopping at the first attacker found."""
    cdef bb_t own = p.by_color[color]
    cdef bb_t lances, diagonal, straight
    if step_attackers_to(p, color, sq):
        return True
    lances = p.by_type[LANCE] & own & lance_pseudo_attacks(color ^ 1, sq)
    if lances and lance_attacks(color ^ 1, sq, occ) & lances:
        return True
    diagonal = (p.by_type[BISHOP] | p.by_type[HORSE]) & own & bishop_pseudo_attacks(sq)
    if diagonal and bishop_attacks(sq, occ) & diagonal:
        return True
    straight = (p.by_type[ROOK] | p.by_type[DRAGON]) & own & rook_pseudo_attacks(sq)
    return straight != 0 and (rook_attacks(sq, occ) & straight) != 0

cdef inline bb_t slider_blockers(const Pos* p, int king_color, int slider_color) noexcept nogil:
    """Pieces (of either colour) that alone stand between the king of king_color and a
    slider of slider_color aimed at it.  Our own such pieces are pinned; the
    attacker's own such pieces give discovered check when they step off the line."""
    cdef int k = p.king_sq[king_color]
    if k < 0:
        return 0
    cdef bb_t snipers = snipers_of(p, king_color, slider_color)
    cdef bb_t result = 0
    cdef bb_t b
    cdef int s
    while snipers:
        s = bb_pop(&snipers)
        b = usi_tables.between[k][s] & p.occupied
        if b and not bb_more_than_one(b):
            result |= b
    return result

cdef inline bb_t pinned_pieces(const Pos* p, int color) noexcept nogil:
    return slider_blockers(p, color, color ^ 1) & p.by_color[color]

cdef inline bint in_check(const Pos* p) noexcept nogil:
    return p.stack[p.sp].checkers != 0

cdef inline uint64_t position_key(const Pos* p) noexcept nogil:
    return p.stack[p.sp].board_key ^ p.stack[p.sp].hand_key
