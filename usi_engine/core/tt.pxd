# Transposition table: 4-entry buckets of 16-byte entries (one cache line a bucket),
# inside a HashMemory block that the tsume solver may share.
from libc.stdint cimport int16_t, uint8_t, uint16_t, uint64_t

from usi_engine.core.bitboard cimport bb_t

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define USI_PREFETCH(p) __builtin_prefetch(p)
    #else
    #define USI_PREFETCH(p) ((void)(p))
    #endif
    """
    void USI_PREFETCH(const void* p) noexcept nogil

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1
    BOUND_LOWER = 2
    BOUND_EXACT = 3
    TT_BUCKET_SIZE = 4
    GENERATIONS = 64         # generation counter: 6 bits

    # who wrote to a HashMemory block last (HashMemory.last_writer)
    WRITER_NONE = 0
    WRITER_SEARCH = 1        # the search's table (all but the probe slice)
    WRITER_MATE = 2          # the solver, over the whole block (go mate)
    WRITER_PROBE = 3         # the solver, in the probe slice (the search's mate probe)

cdef struct TTEntry:
    uint64_t key             # in a slot: position key xor salt xor the data word below
    int16_t value
    int16_t eval
    uint16_t move
    uint8_t depth            # depth + 1, so 0 marks an empty slot
    uint8_t gen_bound        # generation << 2 | bound

cdef struct TT:
    TTEntry* table
    uint64_t buckets
    uint8_t generation
    uint64_t salt            # changed by tt_new_game: older entries never match again

cdef class HashMemory:
    """One zeroed, page-touched block of table memory (the USI_Hash budget)."""
    cdef char* base
    cdef readonly size_t size
    cdef public int last_writer
    cdef size_t probe_offset(self) noexcept nogil

cdef int tt_attach(TT* tt, void* memory, size_t bytes) noexcept nogil
cdef void tt_new_game(TT* tt) noexcept nogil
cdef void tt_new_search(TT* tt) noexcept nogil
cdef TTEntry* tt_probe(TT* tt, uint64_t key, bint* found, TTEntry* out) noexcept nogil
cdef void tt_store(TT* tt, TTEntry* e, uint64_t key, int value, int bound, int depth,
                   int move, int eval) noexcept nogil
cdef int tt_hashfull(const TT* tt) noexcept nogil
cdef uint64_t next_salt() noexcept nogil


cdef inline TTEntry* tt_bucket(const TT* tt, uint64_t key) noexcept nogil:
    """The first slot of key's bucket: the high 64 bits of key * buckets spread keys
    evenly over any bucket count."""
    return &tt.table[<uint64_t>(((<bb_t>key) * tt.buckets) >> 64) * TT_BUCKET_SIZE]


cdef inline void tt_prefetch(const TT* tt, uint64_t key) noexcept nogil:
    """Start loading key's bucket into the cache (a move is played long before its
    node probes the table: the load overlaps with the work in between)."""
    USI_PREFETCH(tt_bucket(tt, key))
