# cython: language_level=3
"""Transposition table inside a block of memory sized in megabytes (USI_Hash).

One block (`HashMemory`) holds every table: the search's table uses it all but a
slice at the end (1/8 of it, at most 16 MB) where the mate probe run before each
search keeps its table, and `go mate` gives the tsume solver the whole block.  The
block is allocated and every page touched once, when it is sized (`isready`);
nothing clears it afterwards.  Instead each table stores keys xor a salt and a
generation: a new game (or the solver having written over the block) takes a new
salt, so that what is there never matches again and counts as the oldest data.

Replacement: within the key's bucket, a slot holding the same key, else an empty one,
else the one with the lowest depth less 8 plies per generation of age, so the table
keeps working indefinitely once full and older games' entries go first.
"""
from libc.stdint cimport int16_t, int64_t, uint16_t, uint64_t
from libc.string cimport memcpy

from usi_engine.core.bigmem cimport big_zalloc, big_free

from usi_engine.core.bitboard cimport bb_t

cdef enum:
    MB = 1 << 20
    PROBE_MAX_BYTES = 16 << 20
    REGION_ALIGN = 256       # a solver bucket (8 x 32 bytes) and 4 search buckets

cdef uint64_t _salt_state = 0x243F6A8885A308D3ULL


cdef uint64_t next_salt() noexcept nogil:
    """A new nonzero 64-bit salt (splitmix64 of a counter)."""
    global _salt_state
    _salt_state += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = _salt_state
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return (z ^ (z >> 31)) | 1


cdef class HashMemory:
    """A block of `megabytes` MB of table memory, zeroed and with every page touched
    (so that the cost is paid here, at `isready`, and RSS is the size from then on).
    The allocation runs without the GIL, so another thread may do it while the
    protocol thread goes on reading.  MemoryError if the system refuses it.

        >>> HashMemory(1).size
        1048576
    """

    def __cinit__(self, int megabytes):
        if megabytes < 1:
            raise ValueError("hash size must be at least 1 MB")
        cdef size_t size = <size_t>megabytes * MB
        cdef void* p
        with nogil:
            p = big_zalloc(size)
        if p == NULL:
            raise MemoryError(f"cannot allocate {megabytes} MB of hash")
        self.base = <char*>p
        self.size = size
        self.last_writer = WRITER_NONE

    def __dealloc__(self):
        big_free(self.base)
        self.base = NULL

    @property
    def megabytes(self) -> int:
        return self.size // MB

    cdef size_t probe_offset(self) noexcept nogil:
        """Where the mate probe's slice starts: the last eighth, at most 16 MB."""
        cdef size_t probe = self.size // 8
        if probe > PROBE_MAX_BYTES:
            probe = PROBE_MAX_BYTES
        return (self.size - probe) // REGION_ALIGN * REGION_ALIGN


cdef int tt_attach(TT* tt, void* memory, size_t bytes) noexcept nogil:
    """Use bytes of memory (at least one bucket) as the table, forgetting what it held.
    Returns 0, or -1 if it is too small."""
    cdef uint64_t buckets = bytes // (TT_BUCKET_SIZE * sizeof(TTEntry))
    if buckets < 1 or memory == NULL:
        return -1
    tt.table = <TTEntry*>memory
    tt.buckets = buckets
    tt_new_game(tt)
    return 0


cdef void tt_new_game(TT* tt) noexcept nogil:
    """Forget every entry at no cost: a new salt (old keys never match) and a
    generation 8 searches on (old entries are replaced first)."""
    tt.salt = next_salt()
    tt.generation = (tt.generation + 8) & (GENERATIONS - 1)


cdef void tt_new_search(TT* tt) noexcept nogil:
    tt.generation = (tt.generation + 1) & (GENERATIONS - 1)


cdef inline int _age(const TT* tt, const TTEntry* e) noexcept nogil:
    return (tt.generation - (e.gen_bound >> 2)) & (GENERATIONS - 1)


cdef inline void _read(const TTEntry* slot, TTEntry* out) noexcept nogil:
    """Copy a slot with one 8-byte load of its data word (value .. gen_bound): the
    copy is self-consistent even while another thread writes the slot."""
    cdef uint64_t data
    memcpy(&data, &slot.value, 8)
    out.key = slot.key ^ data
    memcpy(&out.value, &data, 8)


cdef TTEntry* tt_probe(TT* tt, uint64_t key, bint* found, TTEntry* out) noexcept nogil:
    """The slot of key's entry, copied to out (found[0] = True), or the slot to
    overwrite (found[0] = False).

    Each slot stores its key xor its data word, so an entry half-written by another
    search thread (a torn write: the key of one store, the data of another) matches
    no key and reads as a miss; the caller works on the copy, never on the slot."""
    cdef TTEntry* bucket = tt_bucket(tt, key)
    cdef TTEntry* victim = bucket
    cdef TTEntry entry
    cdef uint64_t stored = key ^ tt.salt
    cdef int i, worth, best_worth = 1 << 30
    for i in range(TT_BUCKET_SIZE):
        _read(&bucket[i], &entry)
        if entry.key == stored and entry.depth:
            found[0] = True
            out[0] = entry
            return &bucket[i]
    for i in range(TT_BUCKET_SIZE):
        _read(&bucket[i], &entry)
        if not entry.depth:
            found[0] = False
            return &bucket[i]
        worth = entry.depth - 8 * _age(tt, &entry)
        if worth < best_worth:
            best_worth = worth
            victim = &bucket[i]
    found[0] = False
    return victim


cdef void tt_store(TT* tt, TTEntry* e, uint64_t key, int value, int bound, int depth,
                   int move, int eval) noexcept nogil:
    """Write a result into slot e (from tt_probe), the data word and the key xor it."""
    cdef uint64_t stored = key ^ tt.salt
    cdef uint64_t data
    cdef TTEntry old, new
    _read(e, &old)
    cdef bint same = old.key == stored and old.depth != 0
    # a shallower result of the same position (a quiescence score over a deep one)
    # does not erase the deeper entry of this search, unless it is exact
    if (same and bound != BOUND_EXACT and old.depth > (depth if depth > 0 else 0) + 3
            and (old.gen_bound >> 2) == tt.generation):
        return
    # keep the old move when the new result has none for the same position
    new.move = move if move or not same else old.move
    new.value = value
    new.eval = eval
    new.depth = (depth if depth > 0 else 0) + 1
    new.gen_bound = (tt.generation << 2) | bound
    memcpy(&data, &new.value, 8)
    e.key = stored ^ data
    memcpy(&e.value, &data, 8)


cdef int tt_hashfull(const TT* tt) noexcept nogil:
    """Permille of the first 1000 slots used by the current search."""
    cdef int i, used = 0
    cdef uint64_t n = tt.buckets * TT_BUCKET_SIZE
    if tt.table == NULL:
        return 0
    if n > 1000:
        n = 1000
    cdef TTEntry entry
    for i in range(n):
        _read(&tt.table[i], &entry)
        if entry.depth and (entry.gen_bound >> 2) == tt.generation:
            used += 1
    return used * 1000 // n if n else 0


# ---- a concurrency check for the tests ------------------------------------------------

cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef void _hammer(TT* tt, uint64_t seed, int64_t rounds, int64_t* found_count,
                  int64_t* torn_count) noexcept nogil:
    """Write and read 64 keys on a tiny table; every field written is a function of the
    key, so an entry read with data that is not its key's is a torn one."""
    cdef uint64_t state = seed, key, f
    cdef TTEntry* slot
    cdef TTEntry entry
    cdef bint found
    cdef int64_t i
    for i in range(rounds):
        state = _mix(state + 0x9E3779B97F4A7C15ULL)
        key = _mix(state & 63) | 1
        f = _mix(key)
        slot = tt_probe(tt, key, &found, &entry)
        if found:
            found_count[0] += 1
            if (entry.value != <int16_t>(f & 0x3FFF) or entry.eval != <int16_t>((f >> 16) & 0x3FFF)
                    or entry.move != <uint16_t>((f >> 32) | 1)
                    or entry.depth != ((f >> 48) & 31) + 2):
                torn_count[0] += 1
        if state & 1:
            tt_store(tt, slot, key, <int16_t>(f & 0x3FFF), BOUND_EXACT, ((f >> 48) & 31) + 1,
                     <uint16_t>((f >> 32) | 1), <int16_t>((f >> 16) & 0x3FFF))


def concurrent_table_check(int threads=4, int64_t rounds=100000) -> tuple:
    """For the tests: `threads` threads (without the GIL) write and read the same 64 keys
    on a table of four buckets; returns (entries found, entries found whose data is not
    their key's).  The second number must be 0.

        >>> concurrent_table_check(2, 1000)[1]
        0
    """
    import threading
    cdef TT tt
    cdef HashMemory memory = HashMemory(1)
    cdef int64_t counts[2 * 64]
    cdef int i
    if not 1 <= threads <= 64:
        raise ValueError("threads must be in 1..64")
    tt_attach(&tt, memory.base, 4 * TT_BUCKET_SIZE * sizeof(TTEntry))
    for i in range(2 * threads):
        counts[i] = 0
    cdef TT* table = &tt
    cdef int64_t* c = counts

    start = threading.Barrier(threads)

    def run(int k):
        start.wait()     # all at once: the writers must overlap
        with nogil:
            _hammer(table, 0x1234567 + 7919 * k, rounds, &c[2 * k], &c[2 * k + 1])

    workers = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return (sum(counts[2 * k] for k in range(threads)),
            sum(counts[2 * k + 1] for k in range(threads)))


def torn_entry_check() -> tuple:
    """For the tests: a slot holding the key word of one write and the data word of
    another (what two threads writing it at once can leave) must match neither key.
    Returns (first key found, second key found): (False, False) when that holds.

        >>> torn_entry_check()
        (False, False)
    """
    cdef TT tt
    cdef HashMemory memory = HashMemory(1)
    cdef TTEntry entry
    cdef TTEntry* slot
    cdef bint found_a, found_b
    cdef uint64_t key_a = 0x1111111111111111ULL, key_b = 0x2222222222222223ULL, key_word
    tt_attach(&tt, memory.base, TT_BUCKET_SIZE * sizeof(TTEntry))   # one bucket
    slot = tt_probe(&tt, key_a, &found_a, &entry)
    tt_store(&tt, slot, key_a, 100, BOUND_EXACT, 10, 1234, 50)
    key_word = slot.key
    tt_store(&tt, slot, key_b, -200, BOUND_LOWER, 3, 4321, -60)    # the same slot
    slot.key = key_word                    # torn: a's key word, b's data word
    tt_probe(&tt, key_a, &found_a, &entry)
    tt_probe(&tt, key_b, &found_b, &entry)
    return (bool(found_a), bool(found_b))
