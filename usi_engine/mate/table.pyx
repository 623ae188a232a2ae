# cython: language_level=3
"""The tsume solver's tables.

- The main table is keyed by board (pieces + side) and the attacker's hand, and uses
  hand dominance: a position proven with hand H is proven for any hand holding at
  least H; one disproven with hand H is disproven for any hand holding at most H (the
  defender holds everything else, so it only gets weaker as H grows).  It lives in
  memory given to it (`table_attach`: the engine's one USI_Hash block, shared with
  the search); keys are stored xor a salt and entries carry a generation, so that
  `table_forget` forgets everything at no cost, and whatever another table left in
  the memory reads as empty.  It is bounded by its size; when a bucket is full the
  entry that cost least to compute is replaced, so the search keeps running
  indefinitely.
- The path set holds the (board, hand) pairs on the current path: reaching one again
  is a repetition (perpetual check, not a mate).
- The repetition table holds the disproofs that depend on the path (keyed by a hash
  of the moves from the root), never the main table.
"""
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport Pos, state, hand_covers, hand_count
from usi_engine.core.tt cimport next_salt

init_tables()

cdef uint64_t WORK_CAP = 4000000000ULL


cdef int solver_init(Solver* s) noexcept nogil:
    """Allocate the fixed tables (the arenas, the path set, the repetition table); -1
    if out of memory.  The main table is attached separately."""
    memset(s, 0, sizeof(Solver))
    s.arena = <Child*>calloc(ARENA_SIZE, sizeof(Child))
    s.move_arena = <int*>calloc(ARENA_SIZE, sizeof(int))
    s.path = <uint64_t*>calloc(PATH_SLOTS, sizeof(uint64_t))
    s.rep = <uint64_t*>calloc(REP_SLOTS, sizeof(uint64_t))
    s.rep_flags = <uint8_t*>calloc(REP_SLOTS, sizeof(uint8_t))
    s.rep_filter = <uint64_t*>calloc(REP_FILTER_BITS // 64, sizeof(uint64_t))
    if (s.arena == NULL or s.path == NULL or s.move_arena == NULL
            or s.rep == NULL or s.rep_flags == NULL or s.rep_filter == NULL):
        return -1
    return 0


cdef void solver_free(Solver* s) noexcept nogil:
    free(s.arena)
    free(s.move_arena)
    free(s.path)
    free(s.rep)
    free(s.rep_flags)
    free(s.rep_filter)
    s.arena = NULL
    s.move_arena = NULL
    s.path = NULL
    s.rep = NULL
    s.rep_flags = NULL
    s.rep_filter = NULL


cdef void table_attach(Solver* s, void* memory, size_t bytes) noexcept nogil:
    """Use bytes of memory as the main table (at least one bucket), empty."""
    s.table = <MateEntry*>memory
    s.buckets = bytes // (BUCKET * sizeof(MateEntry))
    table_forget(s)


cdef void table_forget(Solver* s) noexcept nogil:
    """Empty the main table without touching it: a new salt and generation."""
    s.salt = next_salt()
    s.gen = <uint8_t>(s.gen + 1)
    if s.gen == 0:
        s.gen = 1        # zeroed memory has generation 0: never current


cdef uint32_t proof_hand_needs_blockers(const Pos* p, uint32_t proof, uint32_t hand) noexcept nogil:
    """At a proved defender node: if the check could be blocked by a drop, the proof
    relied on the defender holding none of the piece types it lacks, so the attacker
    must keep all of those (here: `hand`'s count) for the proof to carry over."""
    cdef bb_t checkers = state(p).checkers
    cdef int k = p.king_sq[p.side]
    cdef uint32_t defender = p.hand[p.side]
    cdef int pt
    if not checkers or bb_more_than_one(checkers) or k < 0:
        return proof
    if not usi_tables.between[k][bb_lsb(checkers)]:
        return proof
    for pt in range(PAWN, KING):
        if hand_count(defender, pt) == 0:
            proof = hand_with(proof, pt, hand_count(hand, pt))
    return proof


cdef uint32_t disproof_hand_without_new_checks(const Pos* p, uint32_t disproof) noexcept nogil:
    """At a disproved attacker node: a piece type the attacker lacks might give a new
    drop check if held; the disproof then only holds for hands without it."""
    cdef int us = p.side
    cdef int ek = p.king_sq[us ^ 1]
    cdef uint32_t h = p.hand[us]
    cdef bb_t empty = usi_tables.all & ~p.occupied
    cdef bb_t squares
    cdef int pt
    for pt in range(PAWN, KING):
        if hand_count(h, pt):
            continue
        if ek < 0:
            squares = 0
        else:
            squares = piece_attacks(make_piece(us ^ 1, pt), ek, p.occupied) & empty \
                      & ~usi_tables.dead[us][pt]
        if squares:
            disproof = hand_with(disproof, pt, 0)
    return disproof


cdef inline MateEntry* _bucket(Solver* s, uint64_t key) noexcept nogil:
    return &s.table[(<uint64_t>(((<bb_t>key) * s.buckets) >> 64)) * BUCKET]


cdef bint tt_look(Solver* s, uint64_t key, uint32_t hand, int bound, Child* c) noexcept nogil:
    """Fill c.pn/dn/length/solved_hand for a search with this length bound, using the
    proof and disproof hands; an unknown position gets c's initial estimate (and
    False is returned)."""
    cdef MateEntry* b = _bucket(s, key)
    cdef MateEntry* exact = NULL
    cdef MateEntry* proven = NULL
    cdef MateEntry* disproven = NULL
    cdef uint64_t stored = key ^ s.salt
    cdef int i
    for i in range(BUCKET):
        if b[i].key != stored or not entry_live(s, &b[i]):
            continue
        if b[i].kind == KIND_PROVEN:
            if b[i].length <= bound and hand_covers(hand, b[i].hand) and (
                    proven == NULL or b[i].length < proven.length):
                proven = &b[i]
        elif b[i].kind == KIND_DISPROVEN:
            if b[i].bound >= bound and hand_covers(b[i].hand, hand):
                disproven = &b[i]
        elif b[i].hand == hand:
            # proof numbers from a search under another length bound are still the
            # best estimate there is; only proofs and disproofs must respect bounds
            exact = &b[i]
    c.length = 0
    if proven != NULL and disproven != NULL:
        s.contradictions += 1
    if proven != NULL:
        # a proof wins over a disproof: proofs are replayed before they are reported
        c.pn = 0; c.dn = INF; c.length = proven.length; c.solved_hand = proven.hand
    elif disproven != NULL:
        c.pn = INF; c.dn = 0; c.solved_hand = disproven.hand
    elif exact != NULL:
        c.pn = exact.pn; c.dn = exact.dn
    else:
        c.pn = c.init_pn; c.dn = c.init_dn
        return False
    return True


cdef MateEntry* _slot(Solver* s, uint64_t stored, int kind, uint32_t hand,
                      uint32_t actual_hand) noexcept nogil:
    """The entry to write: the same kind with the same hand, else the unknown entry of
    the actual hand (a result replaces its search state), else an empty or the
    cheapest slot."""
    cdef MateEntry* b = _bucket(s, stored ^ s.salt)
    cdef MateEntry* victim = NULL
    cdef uint64_t priority, lowest = <uint64_t>-1
    cdef int i
    for i in range(BUCKET):
        if b[i].key == stored and entry_live(s, &b[i]) and b[i].kind == kind and b[i].hand == hand:
            return &b[i]
    for i in range(BUCKET):
        if (b[i].key == stored and entry_live(s, &b[i]) and b[i].kind == KIND_UNKNOWN
                and b[i].hand == actual_hand):
            b[i].work = 0
            return &b[i]
    for i in range(BUCKET):
        if not entry_live(s, &b[i]):
            b[i].work = 0
            b[i].kind = KIND_EMPTY
            return &b[i]
        # the entry that cost the fewest nodes to compute goes first
        priority = b[i].work
        if priority < lowest:
            lowest = priority
            victim = &b[i]
    victim.work = 0
    return victim


cdef inline void _stamp(Solver* s, MateEntry* e, uint64_t stored, int kind, uint32_t hand,
                        uint64_t work) noexcept nogil:
    if e.key != stored or e.kind != kind or e.hand != hand:
        e.length = NO_LENGTH
        e.bound = 0
    e.key = stored
    e.kind = kind
    e.hand = hand
    e.gen = s.gen
    work += e.work
    e.work = <uint32_t>(work if work < WORK_CAP else WORK_CAP)


cdef void tt_put_unknown(Solver* s, uint64_t key, uint32_t hand, int bound, uint32_t pn,
                         uint32_t dn, uint64_t work) noexcept nogil:
    cdef uint64_t stored = key ^ s.salt
    cdef MateEntry* e = _slot(s, stored, KIND_UNKNOWN, hand, hand)
    _stamp(s, e, stored, KIND_UNKNOWN, hand, work)
    e.pn = pn
    e.dn = dn
    e.bound = bound


cdef void tt_put_proven(Solver* s, uint64_t key, uint32_t proof_hand, int length,
                        uint32_t actual_hand, uint64_t work) noexcept nogil:
    cdef uint64_t stored = key ^ s.salt
    cdef MateEntry* e = _slot(s, stored, KIND_PROVEN, proof_hand, actual_hand)
    _stamp(s, e, stored, KIND_PROVEN, proof_hand, work)
    if length < e.length:
        e.length = length
    e.pn = 0
    e.dn = INF


cdef void tt_put_disproven(Solver* s, uint64_t key, uint32_t disproof_hand, int bound,
                           uint32_t actual_hand, uint64_t work) noexcept nogil:
    cdef uint64_t stored = key ^ s.salt
    cdef MateEntry* e = _slot(s, stored, KIND_DISPROVEN, disproof_hand, actual_hand)
    _stamp(s, e, stored, KIND_DISPROVEN, disproof_hand, work)
    if bound > e.bound:
        e.bound = bound
    e.pn = INF
    e.dn = 0


cdef void path_clear(Solver* s) noexcept nogil:
    if s.path_depth:
        memset(s.path, 0, PATH_SLOTS * sizeof(uint64_t))
        s.path_depth = 0


cdef bint path_contains(Solver* s, uint64_t id) noexcept nogil:
    cdef uint32_t i = <uint32_t>(id >> 40) & (PATH_SLOTS - 1)
    while s.path[i]:
        if s.path[i] == id:
            return True
        i = (i + 1) & (PATH_SLOTS - 1)
    return False


cdef void path_add(Solver* s, uint64_t id) noexcept nogil:
    cdef uint32_t i = <uint32_t>(id >> 40) & (PATH_SLOTS - 1)
    while s.path[i]:
        i = (i + 1) & (PATH_SLOTS - 1)
    s.path[i] = id
    s.path_depth += 1


cdef void path_remove(Solver* s, uint64_t id) noexcept nogil:
    """Linear-probing delete: remove id, then re-place the rest of its cluster."""
    cdef uint32_t i = <uint32_t>(id >> 40) & (PATH_SLOTS - 1)
    cdef uint32_t j
    cdef uint64_t moved
    while s.path[i] != id:
        i = (i + 1) & (PATH_SLOTS - 1)
    s.path[i] = 0
    j = (i + 1) & (PATH_SLOTS - 1)
    while s.path[j]:
        moved = s.path[j]
        s.path[j] = 0
        s.path_depth -= 1
        path_add(s, moved)
        j = (j + 1) & (PATH_SLOTS - 1)
    s.path_depth -= 1


cdef int rep_flags_of(Solver* s, uint64_t path_key) noexcept nogil:
    """Flags of a path-dependent disproof recorded for this exact path, 0 if none."""
    cdef uint32_t i = <uint32_t>(path_key >> 44) & (REP_SLOTS - 1)
    cdef uint32_t bit = <uint32_t>(path_key >> 8) & (REP_FILTER_BITS - 1)
    if not (s.rep_filter[bit >> 6] >> (bit & 63)) & 1:
        return 0        # (the table itself is far out of cache)
    while s.rep[i]:
        if s.rep[i] == path_key:
            return s.rep_flags[i]
        i = (i + 1) & (REP_SLOTS - 1)
    return 0


cdef void rep_forget_stale(Solver* s) noexcept nogil:
    """At a new path salt every recorded path key is out of reach; once they are many,
    drop them, before they fill the filter and lengthen the probe chains (the
    shortening and settling phases run thousands of sub-searches)."""
    if s.rep_count >= REP_SLOTS // 16:
        memset(s.rep, 0, REP_SLOTS * sizeof(uint64_t))
        memset(s.rep_filter, 0, REP_FILTER_BITS // 8)
        s.rep_count = 0


cdef void rep_add(Solver* s, uint64_t path_key, int flags) noexcept nogil:
    cdef uint32_t i, bit
    if s.rep_count >= REP_SLOTS * 3 // 4:
        # forgetting only costs a re-search: the node is expanded again on this path
        memset(s.rep, 0, REP_SLOTS * sizeof(uint64_t))
        memset(s.rep_filter, 0, REP_FILTER_BITS // 8)
        s.rep_count = 0
    bit = <uint32_t>(path_key >> 8) & (REP_FILTER_BITS - 1)
    s.rep_filter[bit >> 6] |= (<uint64_t>1) << (bit & 63)
    i = <uint32_t>(path_key >> 44) & (REP_SLOTS - 1)
    while s.rep[i] and s.rep[i] != path_key:
        i = (i + 1) & (REP_SLOTS - 1)
    if not s.rep[i]:
        s.rep_count += 1
    s.rep[i] = path_key
    s.rep_flags[i] = flags
