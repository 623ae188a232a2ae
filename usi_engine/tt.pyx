# cython: language_level=3
"""Transposition table sized in megabytes (USI_Hash).

Replacement: within the key's bucket, a slot holding the same key, else an empty one,
else the one with the lowest depth, entries from older searches counting as 8 plies
shallower, so the table keeps working indefinitely once full.
"""
from libc.stdint cimport uint64_t
from libc.string cimport memset

from usi_engine.bigmem cimport big_zalloc, big_free

from usi_engine.bitboard cimport bb_t


cdef int tt_resize(TT* tt, size_t megabytes) noexcept nogil:
    """Allocate megabytes of table (zeroed).  Returns 0, or -1 when out of memory (the
    old table is then kept)."""
    cdef uint64_t buckets = (<uint64_t>megabytes << 20) // (TT_BUCKET_SIZE * sizeof(TTEntry))
    if buckets < 1:
        buckets = 1
    cdef TTEntry* table = <TTEntry*>big_zalloc(buckets * TT_BUCKET_SIZE * sizeof(TTEntry))
    if table == NULL:
        return -1
    big_free(tt.table)
    tt.table = table
    tt.buckets = buckets
    tt.generation = 0
    return 0


cdef void tt_clear(TT* tt) noexcept nogil:
    if tt.table != NULL:
        memset(tt.table, 0, tt.buckets * TT_BUCKET_SIZE * sizeof(TTEntry))
    tt.generation = 0


cdef void tt_free(TT* tt) noexcept nogil:
    big_free(tt.table)
    tt.table = NULL
    tt.buckets = 0


cdef void tt_new_search(TT* tt) noexcept nogil:
    tt.generation = (tt.generation + 1) & 63


cdef inline TTEntry* _bucket(TT* tt, uint64_t key) noexcept nogil:
    # the high 64 bits of key * buckets spread keys evenly over any bucket count
    cdef uint64_t index = <uint64_t>(((<bb_t>key) * tt.buckets) >> 64)
    return &tt.table[index * TT_BUCKET_SIZE]


cdef TTEntry* tt_probe(TT* tt, uint64_t key, bint* found) noexcept nogil:
    """The entry for key (found[0] = True), or the slot to overwrite (found[0] = False)."""
    cdef TTEntry* bucket = _bucket(tt, key)
    cdef TTEntry* victim = bucket
    cdef int i, worth, best_worth = 1 << 30
    for i in range(TT_BUCKET_SIZE):
        if bucket[i].key == key and bucket[i].depth:
            found[0] = True
            return &bucket[i]
    for i in range(TT_BUCKET_SIZE):
        if not bucket[i].depth:
            found[0] = False
            return &bucket[i]
        worth = bucket[i].depth - (0 if (bucket[i].gen_bound >> 2) == tt.generation else 8)
        if worth < best_worth:
            best_worth = worth
            victim = &bucket[i]
    found[0] = False
    return victim


cdef void tt_store(TT* tt, TTEntry* e, uint64_t key, int value, int bound, int depth,
                   int move, int eval) noexcept nogil:
    # keep the old move when the new result has none for the same position
    if move or e.key != key:
        e.move = move
    # a shallower result of the same position (a quiescence score over a deep one)
    # does not erase the deeper entry of this search, unless it is exact
    if (e.key == key and bound != BOUND_EXACT and e.depth > (depth if depth > 0 else 0) + 3
            and (e.gen_bound >> 2) == tt.generation):
        return
    e.key = key
    e.value = value
    e.eval = eval
    e.depth = (depth if depth > 0 else 0) + 1
    e.gen_bound = (tt.generation << 2) | bound


cdef int tt_hashfull(const TT* tt) noexcept nogil:
    """Permille of the first 1000 slots used by the current search."""
    cdef int i, used = 0
    cdef uint64_t n = tt.buckets * TT_BUCKET_SIZE
    if n > 1000:
        n = 1000
    for i in range(n):
        if tt.table[i].depth and (tt.table[i].gen_bound >> 2) == tt.generation:
            used += 1
    return used * 1000 // n if n else 0
