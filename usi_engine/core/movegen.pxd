# Drop-aware legal move generation.
from usi_engine.core.position cimport Pos

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
cdef bint is_pawn_drop_mate(const Pos* p, int to) noexcept nogil
cdef bint has_legal_move(const Pos* p) noexcept nogil
cdef bint has_evasion(const Pos* p) noexcept nogil
cdef int mate_in_one(const Pos* p) noexcept nogil
cdef int mate_in_one_near(const Pos* p) noexcept nogil
