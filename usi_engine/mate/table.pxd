# The tsume solver's data: its table entries, the children of the nodes on the current
# path, the solver's state, hands as proof and disproof pieces (inline), and the
# functions of mate/table.pyx (the table, the path set and the repetition table).
from libc.stdint cimport int8_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport (Pos, state, hand_unit, hand_count, HAND_FIELD, HAND_SHIFT)
from usi_engine.core.control cimport Control
from usi_engine.core.tt cimport USI_PREFETCH

ctypedef uint8_t bint8      # a flag in one byte (the children are packed)

cdef enum:
    BUCKET = 8
    FLAG_PATH = 1            # the disproof relies on a repetition on this path
    FLAG_TRUNCATED = 2       # ... or on a line cut off at the depth limit
    REP_SLOTS = 1 << 20      # path-keyed table of path-dependent disproofs
    REP_FILTER_BITS = 1 << 20    # its filter (128 KB, stays in cache)
    ARENA_SIZE = 1 << 18     # children of every node on the current path
    PATH_SLOTS = 1 << 14     # open-addressed set of (board, hand) on the current path
    MAX_PATH = 4000
    NO_LENGTH = 0xFFFF       # proven_len of an entry with no known mate
    UNBOUNDED = 0xFFFE       # a length bound that never binds
    LOOKAHEAD_REPLIES = 16   # checks with more replies are not tried for mate in three
    INF = 1 << 30            # an infinite proof or disproof number
    PN_MAX = 1 << 29         # the largest proof or disproof number short of INF
    ROOT_PATH_KEY = 1

cdef enum:
    KIND_EMPTY = 0
    KIND_UNKNOWN = 1
    KIND_PROVEN = 2
    KIND_DISPROVEN = 3


cdef struct MateEntry:
    uint64_t key             # board key xor the table's salt
    uint32_t hand            # UNKNOWN: the attacker's hand; PROVEN: proof hand (any hand
                             # holding it mates); DISPROVEN: disproof hand (any hand it holds fails)
    uint32_t pn              # UNKNOWN: proof/disproof numbers of the last search, made
    uint32_t dn              # with length bound `bound`
    uint32_t work            # nodes spent under this entry (replacement priority)
    uint16_t length          # PROVEN: a mate in this many plies
    uint16_t bound           # UNKNOWN: bound of pn/dn; DISPROVEN: no mate within this
    uint8_t kind
    uint8_t gen              # the table's generation when written (another: empty)


cdef struct Child:
    int move
    uint32_t hand
    uint64_t key             # board key after the move
    uint32_t pn
    uint32_t dn
    uint32_t init_pn         # df-pn+ estimate for a child never searched
    uint32_t init_dn
    uint32_t solved_hand     # proof or disproof hand when solved
    int length
    int flags
    int prev                 # index of the move this one waits for (-1: none)
    int8_t cost              # plies the move adds to its parent's length (published: 0-2)
    int8_t free_sq           # a block's square: the child is a free-capture node (-1: not)
    bint8 free               # the capture of a useless block, the piece given back
    bint8 fresh              # not in the table when the parent was expanded


cdef struct Solver:
    Pos pos
    int attacker
    MateEntry* table
    uint64_t buckets
    uint64_t salt            # stored keys are xor this (a new one forgets the table)
    uint8_t gen              # entries of another generation are empty
    Child* arena
    int* move_arena
    int arena_top
    uint64_t* path
    int path_depth
    uint64_t* rep            # path keys of nodes disproved through their path
    uint8_t* rep_flags
    uint64_t* rep_filter     # a bit per path-key hash: most lookups find it clear
    int rep_count
    Control ctl              # nodes, limits, stop, deadlines, progress
    bint overflow
    uint64_t contradictions     # lookups that matched a proof and a disproof
    uint64_t path_disproofs     # statistics, for tuning
    uint64_t truncations
    uint64_t lookahead_proofs
    int max_ply
    bint published           # useless interpositions are not counted in the line
    uint64_t path_salt       # makes each sub-search's root path key new


cdef inline void tt_prefetch(const Solver* s, uint64_t key) noexcept nogil:
    """Start loading the bucket of a board key (its 4 cache lines) before tt_look reads
    it: a node's children are looked up one after another, each a miss otherwise."""
    cdef const char* b = <const char*>&s.table[
        (<uint64_t>(((<bb_t>key) * s.buckets) >> 64)) * BUCKET]
    USI_PREFETCH(b)
    USI_PREFETCH(b + 64)
    USI_PREFETCH(b + 128)
    USI_PREFETCH(b + 192)


# ---- threshold arithmetic ----------------------------------------------------------
cdef inline uint32_t sat_add(uint32_t a, uint32_t b) noexcept nogil:
    """Threshold arithmetic, saturating at INF."""
    cdef uint64_t s = <uint64_t>a + b
    return INF if s >= INF else <uint32_t>s


cdef inline uint32_t pn_add(uint32_t a, uint32_t b) noexcept nogil:
    """A sum of proof (or disproof) numbers: INF only if a term is, else at most
    PN_MAX.  On long problems sums over merging paths can reach any size; were they to
    saturate at INF an unsolved node would look solved to its parent's thresholds, and
    the root's loop would spin without searching (Hashimoto 587 did, from 12M nodes)."""
    cdef uint64_t s
    if a >= INF or b >= INF:
        return INF
    s = <uint64_t>a + b
    return PN_MAX if s >= PN_MAX else <uint32_t>s


# ---- hands as proof and disproof pieces --------------------------------------------
cdef inline int hand_max(int pt) noexcept nogil:
    """How many of a piece type a hand can hold."""
    if pt == PAWN:
        return 18
    if pt == BISHOP or pt == ROOK:
        return 2
    return 4


cdef inline uint32_t hand_with(uint32_t h, int pt, int count) noexcept nogil:
    return (h & ~HAND_FIELD[pt]) | ((<uint32_t>count) << HAND_SHIFT[pt])


cdef inline uint32_t hand_plus(uint32_t h, int pt) noexcept nogil:
    cdef int n = hand_count(h, pt)
    return hand_with(h, pt, n + 1 if n < hand_max(pt) else n)


cdef inline uint32_t hand_minus(uint32_t h, int pt) noexcept nogil:
    cdef int n = hand_count(h, pt)
    return hand_with(h, pt, n - 1 if n > 0 else 0)


cdef inline uint32_t full_hand() noexcept nogil:
    """Every piece a hand can hold."""
    cdef uint32_t h = 0
    cdef int pt
    for pt in range(PAWN, KING):
        h = hand_with(h, pt, hand_max(pt))
    return h


cdef inline uint32_t hand_before_move(const Pos* p, int m, uint32_t after) noexcept nogil:
    """The attacker's hand before its move m, from a (proof or disproof) hand after it:
    a dropped piece added back, a captured one taken off.  p is before m."""
    cdef int captured
    if move_is_drop(m):
        return hand_plus(after, move_dropped_type(m))
    captured = p.board[move_to(m)]
    if captured != EMPTY:
        return hand_minus(after, unpromoted(piece_type(captured)))
    return after


cdef inline uint32_t hand_union(uint32_t a, uint32_t b) noexcept nogil:
    cdef int pt
    for pt in range(PAWN, KING):
        if hand_count(b, pt) > hand_count(a, pt):
            a = hand_with(a, pt, hand_count(b, pt))
    return a


cdef inline uint32_t hand_intersection(uint32_t a, uint32_t b) noexcept nogil:
    cdef int pt
    for pt in range(PAWN, KING):
        if hand_count(b, pt) < hand_count(a, pt):
            a = hand_with(a, pt, hand_count(b, pt))
    return a


cdef inline uint32_t child_hand(const Pos* p, int m, uint32_t hand, bint attacker_moves) noexcept nogil:
    """The attacker's hand after m."""
    cdef int captured
    if not attacker_moves:
        return hand
    if move_is_drop(m):
        return hand - hand_unit(move_dropped_type(m))
    captured = p.board[move_to(m)]
    if captured != EMPTY:
        return hand + hand_unit(unpromoted(piece_type(captured)))
    return hand


cdef inline int bound_minus(int bound, int plies) noexcept nogil:
    """A bound less the plies a move costs.  An unbounded search stays unbounded all
    the way down, so that a position has the same bound whatever the depth it is
    reached at."""
    return bound if bound == UNBOUNDED else bound - plies


# ---- published lengths: useless interpositions ---------------------------------------
# Published tsume lengths do not count a useless interposition (無駄合): a block that the
# attacker captures and then mates without the piece.  With `published`, the defender's
# block of a distant check leads to a free-capture node: an attacker node whose checks
# cost two plies (the block and the check), except a capture of the block that mates with
# the piece given back to the defender, which costs none.  Its table entries have a key of
# their own (the board key xor a constant of the block's square).
cdef enum:
    FREE_MOVE_BIT = 1 << 30  # marks a free capture in the path keys (moves are below it)


cdef inline uint64_t free_capture_key(uint64_t key, int sq) noexcept nogil:
    return key ^ ((<uint64_t>(sq + 1)) * 0xA24BAED4963EE407ULL)


cdef inline uint64_t child_table_key(const Child* c) noexcept nogil:
    """The key of the child's table entries."""
    return free_capture_key(c.key, c.free_sq) if c.free_sq >= 0 else c.key


cdef inline bint is_interposition(const Pos* p, int m) noexcept nogil:
    """Whether the defender's move m blocks a single distant check (a drop or a move
    of a piece other than the king onto a square between the checker and the king)."""
    cdef int k = p.king_sq[p.side]
    cdef bb_t checkers = state(p).checkers
    if k < 0 or not checkers or bb_more_than_one(checkers):
        return False
    if not move_is_drop(m) and move_from(m) == k:
        return False
    return bb_test(usi_tables.between[k][bb_lsb(checkers)], move_to(m)) != 0


cdef inline uint64_t path_id(uint64_t key, uint32_t hand) noexcept nogil:
    return (key ^ (<uint64_t>hand * 0x9E3779B97F4A7C15ULL)) | 1


cdef inline uint64_t path_key_after(uint64_t path_key, int m) noexcept nogil:
    """Hash of the move sequence from the root, extended by m."""
    cdef uint64_t z = (path_key ^ (<uint64_t>m * 0xD6E8FEB86659FD93ULL)) + 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return (z ^ (z >> 31)) | 1


cdef inline bint entry_live(const Solver* s, const MateEntry* e) noexcept nogil:
    """Whether e holds an entry of this table's current generation."""
    return e.kind != KIND_EMPTY and e.gen == s.gen


# ---- mate/table.pyx ----------------------------------------------------------------
cdef int solver_init(Solver* s) noexcept nogil
cdef void solver_free(Solver* s) noexcept nogil
cdef void table_attach(Solver* s, void* memory, size_t bytes) noexcept nogil
cdef void table_forget(Solver* s) noexcept nogil
cdef uint32_t proof_hand_needs_blockers(const Pos* p, uint32_t proof, uint32_t hand) noexcept nogil
cdef uint32_t disproof_hand_without_new_checks(const Pos* p, uint32_t disproof) noexcept nogil
cdef bint tt_look(Solver* s, uint64_t key, uint32_t hand, int bound, Child* c) noexcept nogil
cdef void tt_put_unknown(Solver* s, uint64_t key, uint32_t hand, int bound, uint32_t pn,
                         uint32_t dn, uint64_t work) noexcept nogil
cdef void tt_put_proven(Solver* s, uint64_t key, uint32_t proof_hand, int length,
                        uint32_t actual_hand, uint64_t work) noexcept nogil
cdef void tt_put_disproven(Solver* s, uint64_t key, uint32_t disproof_hand, int bound,
                           uint32_t actual_hand, uint64_t work) noexcept nogil
cdef void path_clear(Solver* s) noexcept nogil
cdef bint path_contains(Solver* s, uint64_t id) noexcept nogil
cdef void path_add(Solver* s, uint64_t id) noexcept nogil
cdef void path_remove(Solver* s, uint64_t id) noexcept nogil
cdef int rep_flags_of(Solver* s, uint64_t path_key) noexcept nogil
cdef void rep_forget_stale(Solver* s) noexcept nogil
cdef void rep_add(Solver* s, uint64_t path_key, int flags) noexcept nogil
