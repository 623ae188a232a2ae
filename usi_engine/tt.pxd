# Transposition table: 4-entry buckets of 16-byte entries (one cache line a bucket).
from libc.stdint cimport int16_t, uint8_t, uint16_t, uint64_t

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1
    BOUND_LOWER = 2
    BOUND_EXACT = 3
    TT_BUCKET_SIZE = 4

cdef struct TTEntry:
    uint64_t key
    int16_t value
    int16_t eval
    uint16_t move
    uint8_t depth          # depth + 1, so 0 marks an empty slot
    uint8_t gen_bound      # generation << 2 | bound

cdef struct TT:
    TTEntry* table
    uint64_t buckets
    uint8_t generation

cdef int tt_resize(TT* tt, size_t megabytes) noexcept nogil
cdef void tt_clear(TT* tt) noexcept nogil
cdef void tt_free(TT* tt) noexcept nogil
cdef void tt_new_search(TT* tt) noexcept nogil
cdef TTEntry* tt_probe(TT* tt, uint64_t key, bint* found) noexcept nogil
cdef void tt_store(TT* tt, TTEntry* e, uint64_t key, int value, int bound, int depth,
                   int move, int eval) noexcept nogil
cdef int tt_hashfull(const TT* tt) noexcept nogil
