# Drop-aware legal move generation.
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport bb_t, bb_test, usi_tables
from usi_engine.core.board cimport Pos

cdef enum:
    GEN_LEGAL = 0      # every legal move
    GEN_CAPTURES = 1   # legal captures and promotions (each promotion variant)
    GEN_QUIETS = 2     # legal moves that neither capture nor promote; all drops
    GEN_EVASIONS = 3   # the legal moves when in check (none when not in check)
    GEN_CHECKS = 4     # legal moves that give check
    GEN_NO_DOMINATED = 8   # flag: leave out what drop_dominated would (the searches)

cdef int generate(const Pos* p, int* out, int kind) noexcept nogil
cdef int drop_dominated(const Pos* p, int* moves, int n) noexcept nogil
cdef bint gives_check(const Pos* p, int m) noexcept nogil
cdef bint is_legal(const Pos* p, int m) noexcept nogil
cdef bint has_legal_move(const Pos* p) noexcept nogil
cdef bint has_evasion(const Pos* p) noexcept nogil
cdef int add_checks(const Pos* p, int* out, const bb_t* direct, const bb_t* wanted,
               bb_t free_movers) noexcept nogil


cdef struct CheckInfo:
    # What gives_check works out move by move, once for a whole node (Stockfish's
    # checkSquares and blockersForKing): worth it where many moves are asked about.
    int ek                  # their king's square, or NO_SQUARE
    bb_t direct[16]         # by piece type: the squares from which a piece of ours of
                            # that type attacks their king (the board as it stands)
    bb_t discoverers        # our pieces that alone shield their king from a slider of ours

cdef void check_info_init(const Pos* p, CheckInfo* ci) noexcept nogil


cdef inline bint gives_check_by(const Pos* p, const CheckInfo* ci, int m) noexcept nogil:
    """gives_check(p, m) for a legal move m, with ci from check_info_init(p) of this
    very position.  A piece checks directly from a square of direct[] of its type after
    the move (the square it leaves never opens its own line: it would have been giving
    check already), or by discovery when it leaves the line a slider sees the king on."""
    cdef int to = move_to(m)
    cdef int frm, pt
    if ci.ek < 0:
        return False
    if move_is_drop(m):
        return bb_test(ci.direct[move_dropped_type(m)], to)
    frm = move_from(m)
    pt = piece_type(p.board[frm])
    if move_is_promotion(m):
        pt += PROMOTED
    if bb_test(ci.direct[pt], to):
        return True
    return bb_test(ci.discoverers, frm) and not bb_test(usi_tables.line[ci.ek][frm], to)
