# cython: language_level=3
"""df-pn tsume solver (`go mate`): proof-number search over checking moves (OR nodes,
attacker to move) and evasions (AND nodes, defender to move).

- The transposition table is keyed by board (pieces + side) and the attacker's hand,
  and uses hand dominance: a position proven with hand H is proven for any hand
  holding at least H; one disproven with hand H is disproven for any hand holding at
  most H (the defender holds everything else, so it only gets weaker as H grows).
- Repetition: reaching a position already on the current path is not a mate (all
  attacker moves are checks, so it is perpetual check).  Such disproofs depend on the
  path: they go to a table keyed by the path, never to the main table.  A root
  disproved through lines cut off at the depth limit is reported as `timeout`, never
  `nomate`.
- Pawn-drop mate is excluded by the move generator; positions without the attacker's
  king are fine.
- The table is bounded by its size in MB; when a bucket is full the entry that cost
  least to compute is replaced, so the search keeps running indefinitely.  Each node
  keeps its children's results while it is expanded, so a full table cannot make
  siblings evict each other's results for ever.
- Lengths: stored lengths are upper bounds.  After the first proof, bounded searches
  look for mates 2 plies shorter until none exists; the line is then read back with
  the longest defence settled by bounded searches at each defender node, and useless
  interpositions (a block captured at once, after which the mate needs no more plies
  than the longest other defence and not the piece) not counted, as in published
  tsume lengths (`published=False` counts them).
- Every reported line is replayed before it is returned: each attacker move checks,
  the last position is mate, and the length is odd.

    >>> from usi_engine.position import Position
    >>> MateSolver().solve(Position("4k4/9/4P4/9/9/9/9/9/9 b G 1")).usi()
    'checkmate G*5b'
"""
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

from usi_engine.bigmem cimport big_zalloc, big_free

from usi_engine.types cimport *
from usi_engine.bitboard cimport *
from usi_engine.position cimport (Pos, Position, state, in_check, pos_do_move, pos_undo_move,
                                  pos_copy, pos_free, pos_reserve, pos_board_key_after,
                                  hand_unit, hand_covers, hand_count, attackers_to,
                                  HAND_FIELD, HAND_SHIFT)
from usi_engine.movegen cimport GEN_CHECKS, GEN_LEGAL, generate, gives_check, mate_in_one

from usi_engine.atomics cimport (atomic_load_int, atomic_store_int, atomic_load_i64,
                                 atomic_store_i64, monotonic_ns)

init_tables()

cdef enum:
    BUCKET = 8
    FLAG_PATH = 1            # the disproof relies on a repetition on this path
    FLAG_TRUNCATED = 2       # ... or on a line cut off at the depth limit
    REP_SLOTS = 1 << 20      # path-keyed table of path-dependent disproofs
    ARENA_SIZE = 1 << 18     # children of every node on the current path
    PATH_SLOTS = 1 << 14     # open-addressed set of (board, hand) on the current path
    MAX_PATH = 4000
    NO_LENGTH = 0xFFFF       # proven_len of an entry with no known mate
    UNBOUNDED = 0xFFFE       # a length bound that never binds
    LOOKAHEAD_REPLIES = 16   # checks with more replies are not tried for mate in three

cdef uint32_t INF = 1 << 30
cdef uint64_t ROOT_PATH_KEY = 1
cdef uint64_t WORK_CAP = 4000000000ULL
cdef int64_t INFO_INTERVAL_NS = 500000000


cdef struct MateEntry:
    uint64_t key
    uint32_t hand            # UNKNOWN: the attacker's hand; PROVEN: proof hand (any hand
                             # holding it mates); DISPROVEN: disproof hand (any hand it holds fails)
    uint32_t pn              # UNKNOWN: proof/disproof numbers of the last search, made
    uint32_t dn              # with length bound `bound`
    uint32_t work            # nodes spent under this entry (replacement priority)
    uint16_t length          # PROVEN: a mate in this many plies
    uint16_t bound           # UNKNOWN: bound of pn/dn; DISPROVEN: no mate within this
    uint8_t kind


cdef enum:
    KIND_EMPTY = 0
    KIND_UNKNOWN = 1
    KIND_PROVEN = 2
    KIND_DISPROVEN = 3


cdef struct Child:
    int move
    uint64_t key
    uint32_t hand
    uint32_t pn
    uint32_t dn
    uint32_t init_pn         # df-pn+ estimate for a child never searched
    uint32_t init_dn
    uint32_t solved_hand     # proof or disproof hand when solved
    int length
    int flags
    int prev                 # index of the move this one waits for (-1: none)
    bint fresh               # not in the table when the parent was expanded


cdef struct Solver:
    Pos pos
    int attacker
    MateEntry* table
    uint64_t buckets
    Child* arena
    int* move_arena
    int arena_top
    uint64_t* path
    int path_depth
    uint64_t* rep            # path keys of nodes disproved through their path
    uint8_t* rep_flags
    int rep_count
    uint64_t nodes
    uint64_t node_limit
    bint aborted
    bint overflow
    uint64_t contradictions     # lookups that matched a proof and a disproof
    uint64_t path_disproofs     # statistics, for tuning
    uint64_t truncations
    uint64_t lookahead_proofs
    int* stop_flag
    int64_t* deadline
    int64_t soft_deadline    # ends the search for shorter mates, leaving time for the line
    int64_t start_ns
    int64_t last_info_ns
    void* owner
    int max_ply


cdef uint32_t PN_MAX = 1 << 29    # the largest proof or disproof number short of INF


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


# ---- hands as proof and disproof pieces ------------------------------------------------
cdef int HAND_MAX[8]
HAND_MAX[:] = [0, 18, 4, 4, 4, 2, 2, 4]


cdef inline uint32_t hand_with(uint32_t h, int pt, int count) noexcept nogil:
    return (h & ~HAND_FIELD[pt]) | ((<uint32_t>count) << HAND_SHIFT[pt])


cdef inline uint32_t hand_plus(uint32_t h, int pt) noexcept nogil:
    cdef int n = hand_count(h, pt)
    return hand_with(h, pt, n + 1 if n < HAND_MAX[pt] else n)


cdef inline uint32_t hand_minus(uint32_t h, int pt) noexcept nogil:
    cdef int n = hand_count(h, pt)
    return hand_with(h, pt, n - 1 if n > 0 else 0)


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


cdef uint32_t FULL_HAND = 0


cdef void _init_full_hand() noexcept nogil:
    global FULL_HAND
    cdef int pt
    for pt in range(PAWN, KING):
        FULL_HAND = hand_with(FULL_HAND, pt, HAND_MAX[pt])


_init_full_hand()


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
    cdef int i
    for i in range(BUCKET):
        if b[i].key != key or b[i].kind == KIND_EMPTY:
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


cdef MateEntry* _slot(Solver* s, uint64_t key, int kind, uint32_t hand,
                      uint32_t actual_hand) noexcept nogil:
    """The entry to write: the same kind with the same hand, else the unknown entry of
    the actual hand (a result replaces its search state), else an empty or the
    cheapest slot."""
    cdef MateEntry* b = _bucket(s, key)
    cdef MateEntry* victim = NULL
    cdef uint64_t priority, lowest = <uint64_t>-1
    cdef int i
    for i in range(BUCKET):
        if b[i].key == key and b[i].kind == kind and b[i].hand == hand:
            return &b[i]
    for i in range(BUCKET):
        if b[i].key == key and b[i].kind == KIND_UNKNOWN and b[i].hand == actual_hand:
            b[i].work = 0
            return &b[i]
    for i in range(BUCKET):
        if b[i].kind == KIND_EMPTY:
            b[i].work = 0
            return &b[i]
        # solved entries are worth more than their work suggests
        priority = b[i].work
        if priority < lowest:
            lowest = priority
            victim = &b[i]
    victim.work = 0
    return victim


cdef inline void _stamp(MateEntry* e, uint64_t key, int kind, uint32_t hand, uint64_t work) noexcept nogil:
    if e.key != key or e.kind != kind or e.hand != hand:
        e.length = NO_LENGTH
        e.bound = 0
    e.key = key
    e.kind = kind
    e.hand = hand
    work += e.work
    e.work = <uint32_t>(work if work < WORK_CAP else WORK_CAP)


cdef void tt_put_unknown(Solver* s, uint64_t key, uint32_t hand, int bound, uint32_t pn,
                         uint32_t dn, uint64_t work) noexcept nogil:
    cdef MateEntry* e = _slot(s, key, KIND_UNKNOWN, hand, hand)
    _stamp(e, key, KIND_UNKNOWN, hand, work)
    e.pn = pn
    e.dn = dn
    e.bound = bound


cdef void tt_put_proven(Solver* s, uint64_t key, uint32_t proof_hand, int length,
                        uint32_t actual_hand, uint64_t work) noexcept nogil:
    cdef MateEntry* e = _slot(s, key, KIND_PROVEN, proof_hand, actual_hand)
    _stamp(e, key, KIND_PROVEN, proof_hand, work)
    if length < e.length:
        e.length = length
    e.pn = 0
    e.dn = INF


cdef void tt_put_disproven(Solver* s, uint64_t key, uint32_t disproof_hand, int bound,
                           uint32_t actual_hand, uint64_t work) noexcept nogil:
    cdef MateEntry* e = _slot(s, key, KIND_DISPROVEN, disproof_hand, actual_hand)
    _stamp(e, key, KIND_DISPROVEN, disproof_hand, work)
    if bound > e.bound:
        e.bound = bound
    e.pn = INF
    e.dn = 0


cdef inline uint64_t path_id(uint64_t key, uint32_t hand) noexcept nogil:
    return (key ^ (<uint64_t>hand * 0x9E3779B97F4A7C15ULL)) | 1


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


cdef inline uint64_t path_key_after(uint64_t path_key, int m) noexcept nogil:
    """Hash of the move sequence from the root, extended by m."""
    cdef uint64_t z = (path_key ^ (<uint64_t>m * 0xD6E8FEB86659FD93ULL)) + 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return (z ^ (z >> 31)) | 1


cdef int rep_flags_of(Solver* s, uint64_t path_key) noexcept nogil:
    """Flags of a path-dependent disproof recorded for this exact path, 0 if none."""
    cdef uint32_t i = <uint32_t>(path_key >> 44) & (REP_SLOTS - 1)
    while s.rep[i]:
        if s.rep[i] == path_key:
            return s.rep_flags[i]
        i = (i + 1) & (REP_SLOTS - 1)
    return 0


cdef void rep_add(Solver* s, uint64_t path_key, int flags) noexcept nogil:
    cdef uint32_t i
    if s.rep_count >= REP_SLOTS * 3 // 4:
        # forgetting only costs a re-search: the node is expanded again on this path
        memset(s.rep, 0, REP_SLOTS * sizeof(uint64_t))
        s.rep_count = 0
    i = <uint32_t>(path_key >> 44) & (REP_SLOTS - 1)
    while s.rep[i] and s.rep[i] != path_key:
        i = (i + 1) & (REP_SLOTS - 1)
    if not s.rep[i]:
        s.rep_count += 1
    s.rep[i] = path_key
    s.rep_flags[i] = flags


cdef void _report(Solver* s) noexcept with gil:
    cdef MateSolver owner = <MateSolver>s.owner
    try:
        owner._emit_progress()
    except BaseException:
        pass


cdef inline void count_node(Solver* s) noexcept nogil:
    cdef int64_t now, deadline
    s.nodes += 1
    if s.node_limit and s.nodes >= s.node_limit:
        s.aborted = True
    elif (s.nodes & 1023) == 0:
        if atomic_load_int(s.stop_flag):
            s.aborted = True
            return
        now = monotonic_ns()
        deadline = atomic_load_i64(s.deadline)
        if (deadline and now >= deadline) or (s.soft_deadline and now >= s.soft_deadline):
            s.aborted = True
        elif now - s.last_info_ns >= INFO_INTERVAL_NS:
            s.last_info_ns = now
            _report(s)


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


cdef bint USE_DFPN_PLUS = True
cdef bint USE_DELAY = True
cdef bint USE_HAND_SETS = True
cdef bint USE_WEAK_SUMS = False
cdef int LOOKAHEAD_DEPTH = 1
cdef int EPSILON_SHIFT = 1      # the child's threshold: second best * (1 + 2^-shift) + 1


def _set_heuristics(bint dfpn_plus=True, bint delay=True, bint hand_sets=True,
                    bint weak_sums=False, int lookahead=1, int epsilon_shift=1):
    """Switch the df-pn+ estimates, the delayed expansion, the generalised proof and
    disproof hands, weak (max + count) sums and the look-ahead at new attacker nodes
    (3: mates in one and three, 1: in one, 0: none) (for experiments and tests)."""
    global USE_DFPN_PLUS, USE_DELAY, USE_HAND_SETS, USE_WEAK_SUMS, LOOKAHEAD_DEPTH, EPSILON_SHIFT
    USE_DFPN_PLUS = dfpn_plus
    USE_DELAY = delay
    USE_HAND_SETS = hand_sets
    USE_WEAK_SUMS = weak_sums
    LOOKAHEAD_DEPTH = lookahead
    EPSILON_SHIFT = epsilon_shift


cdef void initial_estimate(const Pos* p, int m, bint or_node, Child* c) noexcept nogil:
    """df-pn+ starting values for a child never searched, from how well each side
    covers the destination (the idea of GPS shogi's and KomoringHeights' estimators)."""
    cdef int us = p.side
    cdef int to = move_to(m)
    cdef bint drop = move_is_drop(m)
    cdef bint capture = not drop and p.board[to] != EMPTY
    cdef int ours = bb_popcount(attackers_to(p, us, to, p.occupied))
    cdef int theirs = bb_popcount(attackers_to(p, us ^ 1, to, p.occupied))
    cdef int captured
    c.init_pn = 1
    c.init_dn = 1
    if not USE_DFPN_PLUS:
        return
    if or_node:
        if theirs >= 2:
            c.init_pn += 1
        if ours + drop > theirs:
            c.init_dn += 1
        elif capture:
            captured = unpromoted(piece_type(p.board[to]))
            if captured == GOLD or captured == SILVER:
                c.init_dn += 1
            else:
                c.init_pn += 1
        else:
            c.init_pn += 1
    elif capture:
        c.init_pn = 2
    elif not drop and move_from(m) == p.king_sq[us]:
        pass
    elif theirs < ours + drop:
        c.init_pn = 2
    else:
        c.init_dn = 2


cdef inline bint _delayable(const Pos* p, int m, bint or_node) noexcept nogil:
    """Moves worth trying only after a sibling: interposing drops (after the drop of
    another piece on the same square) and non-promotions of pawn/bishop/rook (after
    the promotion)."""
    cdef int pt
    if not USE_DELAY:
        return False
    if move_is_drop(m):
        return not or_node
    if move_is_promotion(m):
        return False
    pt = piece_type(p.board[move_from(m)])
    return (pt == PAWN or pt == BISHOP or pt == ROOK) and (
        bb_test(usi_tables.zone[p.side], move_from(m)) or bb_test(usi_tables.zone[p.side], move_to(m)))


cdef void link_delayed(const Pos* p, Child* kids, int n, bint or_node) noexcept nogil:
    """Chain each delayable move behind the previous move of its kind: drops on the
    same square; drops that no defender piece supports and that give no check, on
    any square (such interpositions rarely matter, and counting each would inflate
    the proof number); a non-promotion behind its promotion."""
    cdef int i, j, mi, mj, last_loose = -1
    cdef bint loose
    for i in range(n):
        kids[i].prev = -1
        mi = kids[i].move
        if not _delayable(p, mi, or_node):
            continue
        if move_is_drop(mi):
            loose = (not attackers_to(p, p.side, move_to(mi), p.occupied)
                     and not gives_check(p, mi))
            if loose:
                kids[i].prev = last_loose
                last_loose = i
                continue
            for j in range(i - 1, -1, -1):
                mj = kids[j].move
                if move_is_drop(mj) and move_to(mj) == move_to(mi):
                    kids[i].prev = j
                    break
        else:
            for j in range(i - 1, -1, -1):
                mj = kids[j].move
                if (move_to(mj) == move_to(mi) and move_from(mj) == move_from(mi)
                        and move_is_promotion(mj)):
                    kids[i].prev = j
                    break


cdef bint _prove_mate_in_one(Solver* s, uint32_t hand) noexcept nogil:
    """At an attacker node: if a check mates at once, record that (and the mated
    position) with the hands held, so that the mating line can be read back."""
    cdef Pos* p = &s.pos
    cdef int m = mate_in_one(p)
    if not m:
        return False
    tt_put_proven(s, state(p).board_key, hand, 1, hand, 1)
    pos_do_move(p, m)
    tt_put_proven(s, state(p).board_key, p.hand[s.attacker], 0, p.hand[s.attacker], 1)
    pos_undo_move(p)
    return True


cdef bint _look_ahead(Solver* s, Child* kids, int n, uint32_t hand, int bound,
                      Child* out) noexcept nogil:
    """At a new attacker node, play each check and look at the replies: none means
    mate in one; if every reply allows a mate in one, it is mate in three.  Either
    proves the node at once (stored for the child as well).  Otherwise the number of
    replies is the child's first proof number: a far better guess than any static
    estimate."""
    cdef Pos* p = &s.pos
    cdef int* replies = &s.move_arena[s.arena_top]
    cdef int i, j, count
    cdef uint32_t proof
    cdef bint all_mated
    for i in range(n):
        if not kids[i].fresh:
            continue        # known to the table (or a repetition): nothing to learn here
        pos_do_move(p, kids[i].move)
        count = generate(p, replies, GEN_LEGAL)
        if count == 0:
            proof = proof_hand_needs_blockers(p, 0, kids[i].hand) if USE_HAND_SETS else kids[i].hand
            pos_undo_move(p)
            tt_put_proven(s, kids[i].key, proof, 0, kids[i].hand, 1)
            if USE_HAND_SETS:
                proof = hand_intersection(hand_before_move(p, kids[i].move, proof), hand)
            else:
                proof = hand
            tt_put_proven(s, state(p).board_key, proof, 1, hand, 1)
            set_result(out, 0, INF, 1, proof, 0)
            return True
        if bound >= 3 and count <= LOOKAHEAD_REPLIES and LOOKAHEAD_DEPTH >= 3:
            all_mated = True
            for j in range(count):
                pos_do_move(p, replies[j])
                all_mated = _prove_mate_in_one(s, kids[i].hand)
                pos_undo_move(p)
                if not all_mated:
                    break
            if all_mated:
                # proved with the hands actually held: exact, if not as general
                pos_undo_move(p)
                tt_put_proven(s, kids[i].key, kids[i].hand, 2, kids[i].hand, count)
                tt_put_proven(s, state(p).board_key, hand, 3, hand, count)
                set_result(out, 0, INF, 3, hand, 0)
                return True
        pos_undo_move(p)
        if USE_DFPN_PLUS:
            kids[i].pn = kids[i].init_pn = count
    return False


cdef inline void set_result(Child* out, uint32_t pn, uint32_t dn, int length,
                            uint32_t solved_hand, int flags) noexcept nogil:
    out.pn = pn
    out.dn = dn
    out.length = length
    out.solved_hand = solved_hand
    out.flags = flags


cdef inline int child_bound(int bound) noexcept nogil:
    """An unbounded search stays unbounded all the way down, so that a position has
    the same bound whatever the depth it is reached at."""
    return bound if bound == UNBOUNDED else bound - 1


cdef inline bint _look_child(Solver* s, Child* c, uint64_t path_key, int bound) noexcept nogil:
    """A child's values when its parent is expanded: a repetition of the path, a
    disproof that depends on this path, or the table's entry (False: none, the initial
    estimate).  From then on the parent keeps them, updated by its own searches of
    the child (and _refresh_child)."""
    c.length = 0
    if path_contains(s, path_id(c.key, c.hand)):
        c.pn = INF; c.dn = 0; c.flags = FLAG_PATH
        return True
    c.flags = rep_flags_of(s, path_key_after(path_key, c.move))
    if c.flags:
        c.pn = INF; c.dn = 0
        return True
    return tt_look(s, c.key, c.hand, child_bound(bound), c)


cdef inline bint _refresh_child(Solver* s, Child* c, int bound) noexcept nogil:
    """Before the child chosen is searched: re-read its table entry, which a search
    of a sibling may have changed through a transposition.  True if it did."""
    cdef uint32_t pn = c.pn, dn = c.dn
    if pn == 0 or dn == 0:
        return False
    if not tt_look(s, c.key, c.hand, child_bound(bound), c):
        c.pn = pn; c.dn = dn    # replaced: keep what the parent knew
        return False
    return c.pn != pn or c.dn != dn


cdef bint mid(Solver* s, uint32_t th_pn, uint32_t th_dn, bint or_node, int bound,
              uint64_t path_key, Child* out) noexcept nogil:
    """Multiple-iterative deepening df-pn below this node, looking for a mate in at most
    `bound` plies, until its proof or disproof number reaches its threshold.  The
    result is stored in the table and in out (pn, dn, length, solved_hand, flags);
    False if the search was stopped first."""
    cdef Pos* p = &s.pos
    cdef uint64_t key = state(p).board_key
    cdef uint32_t hand = p.hand[s.attacker]
    cdef uint64_t id = path_id(key, hand)
    cdef uint64_t work_start = s.nodes
    cdef int n, i, best, length, flags
    cdef uint32_t pn, dn, second, c_pn, c_dn, widest
    cdef int open_count
    cdef int* moves
    cdef Child* kids
    cdef Child* c
    cdef bint active
    cdef Child result
    count_node(s)
    if s.aborted:
        return False
    if s.arena_top + 2 * MAX_MOVES > ARENA_SIZE or s.path_depth >= MAX_PATH or p.sp + 2 >= s.max_ply:
        # too deep to follow: give this line up as a truncated disproof, which is never
        # taken for a real one
        s.overflow = True
        s.truncations += 1
        rep_add(s, path_key, FLAG_TRUNCATED)
        set_result(out, INF, 0, 0, hand, FLAG_TRUNCATED)
        return True
    moves = &s.move_arena[s.arena_top]
    n = generate(p, moves, GEN_CHECKS if or_node else GEN_LEGAL)
    if n == 0:
        if or_node:
            widest = disproof_hand_without_new_checks(p, FULL_HAND)
            tt_put_disproven(s, key, widest, UNBOUNDED, hand, 1)
            set_result(out, INF, 0, 0, widest, 0)
        else:
            widest = proof_hand_needs_blockers(p, 0, hand)
            tt_put_proven(s, key, widest, 0, hand, 1)
            set_result(out, 0, INF, 0, widest, 0)
        return True
    if bound < (1 if or_node else 2):
        # the mate, if any, is longer than allowed, whatever the hand
        tt_put_disproven(s, key, FULL_HAND, bound, hand, 1)
        set_result(out, INF, 0, 0, FULL_HAND, 0)
        return True
    kids = &s.arena[s.arena_top]
    s.arena_top += n
    for i in range(n):
        kids[i].move = moves[i]
        kids[i].key = pos_board_key_after(p, moves[i])
        kids[i].hand = child_hand(p, moves[i], hand, or_node)
        initial_estimate(p, moves[i], or_node, &kids[i])
        kids[i].fresh = not _look_child(s, &kids[i], path_key, bound)
    if or_node and LOOKAHEAD_DEPTH and _look_ahead(s, kids, n, hand, bound, out):
        s.lookahead_proofs += 1
        s.arena_top -= n
        return True
    link_delayed(p, kids, n, or_node)
    path_add(s, id)
    while True:
        pn = INF if or_node else 0
        dn = 0 if or_node else INF
        best = -1
        second = INF
        length = 1 << 30 if or_node else 0
        flags = 0
        open_count = 0
        widest = 0
        for i in range(n):
            c = &kids[i]
            # a delayed move counts once the move it waits for is settled: disproved
            # at an OR node, proved at an AND node
            active = c.prev < 0 or (kids[c.prev].dn == 0 if or_node else kids[c.prev].pn == 0)
            if or_node:
                if c.pn == 0 and c.length + 1 < length:
                    length = c.length + 1
                if c.dn == 0:
                    flags |= c.flags
                if not active:
                    if c.dn != 0:
                        dn = pn_add(dn, 1)      # still to be refuted
                    continue
                if best < 0 or c.pn < kids[best].pn:
                    if best >= 0 and kids[best].pn < second:
                        second = kids[best].pn
                    best = i
                elif c.pn < second:
                    second = c.pn
                dn = pn_add(dn, c.dn)
                if c.dn:
                    open_count += 1
                    if c.dn > widest:
                        widest = c.dn
            else:
                if c.pn == 0 and c.length + 1 > length:
                    length = c.length + 1
                if not active:
                    if c.pn != 0:
                        pn = pn_add(pn, 1)      # still to be proved
                    continue
                if best < 0 or c.dn < kids[best].dn:
                    if best >= 0 and kids[best].dn < second:
                        second = kids[best].dn
                    best = i
                elif c.dn < second:
                    second = c.dn
                pn = pn_add(pn, c.pn)
                if c.pn:
                    open_count += 1
                    if c.pn > widest:
                        widest = c.pn
        if USE_WEAK_SUMS and open_count:
            # weak proof numbers: the widest child plus one per other open child, so
            # that subtrees reached along several paths are not counted again and again
            if or_node and dn < INF:
                dn = pn_add(widest, open_count - 1)
            elif not or_node and pn < INF:
                pn = pn_add(widest, open_count - 1)
        if or_node:
            pn = kids[best].pn
            if dn != 0:
                flags = 0
        else:
            dn = kids[best].dn
            if dn == 0:
                flags = _cleanest_disproof(kids, n)
        if pn != 0:
            length = 0
        if pn == 0 or dn == 0 or pn >= th_pn or dn >= th_dn or s.aborted:
            break
        c = &kids[best]
        if _refresh_child(s, c, bound):
            continue            # a transposition has moved it: choose again
        if or_node:
            c_pn = th_pn if th_pn < sat_add(second, (second >> EPSILON_SHIFT) + 1) else sat_add(second, (second >> EPSILON_SHIFT) + 1)
            c_dn = sat_add(th_dn - dn, c.dn) if th_dn < INF else INF
        else:
            c_dn = th_dn if th_dn < sat_add(second, (second >> EPSILON_SHIFT) + 1) else sat_add(second, (second >> EPSILON_SHIFT) + 1)
            c_pn = sat_add(th_pn - pn, c.pn) if th_pn < INF else INF
        pos_do_move(p, c.move)
        if mid(s, c_pn, c_dn, not or_node, child_bound(bound),
               path_key_after(path_key, c.move), &result):
            # the child's own result, whatever becomes of its table entry: with a full
            # table, siblings in one bucket could otherwise evict each other's results
            # for ever
            c.pn = result.pn; c.dn = result.dn; c.length = result.length
            c.solved_hand = result.solved_hand; c.flags = result.flags
        pos_undo_move(p)
    path_remove(s, id)
    if dn == 0 and flags:
        s.path_disproofs += 1
        rep_add(s, path_key, flags)
        set_result(out, INF, 0, 0, hand, flags)
    elif pn == 0:
        widest = _proof_hand(s, kids, n, or_node, hand, length) if USE_HAND_SETS else hand
        tt_put_proven(s, key, widest, length, hand, s.nodes - work_start)
        set_result(out, 0, INF, length, widest, 0)
    elif dn == 0:
        widest = _disproof_hand(s, kids, n, or_node, hand) if USE_HAND_SETS else hand
        tt_put_disproven(s, key, widest, bound, hand, s.nodes - work_start)
        set_result(out, INF, 0, 0, widest, 0)
    else:
        tt_put_unknown(s, key, hand, bound, pn, dn, s.nodes - work_start)
        set_result(out, pn, dn, 0, hand, 0)
    s.arena_top -= n
    return True


cdef uint32_t _proof_hand(Solver* s, Child* kids, int n, bint or_node, uint32_t hand,
                          int length) noexcept nogil:
    """The smallest attacker hand this proof needs: at an OR node the proving child's
    proof hand plus a dropped piece, less a captured one; at an AND node the union of
    every evasion's proof hand, plus the pieces the defender could block with."""
    cdef const Pos* p = &s.pos
    cdef uint32_t proof = 0
    cdef int i
    if or_node:
        for i in range(n):
            if kids[i].pn == 0 and kids[i].length + 1 == length:
                proof = hand_before_move(p, kids[i].move, kids[i].solved_hand)
                return hand_intersection(proof, hand)
        return hand
    for i in range(n):
        proof = hand_union(proof, kids[i].solved_hand)
    return hand_intersection(proof_hand_needs_blockers(p, proof, hand), hand)


cdef uint32_t _disproof_hand(Solver* s, Child* kids, int n, bint or_node, uint32_t hand) noexcept nogil:
    """The largest attacker hand this disproof covers: at an OR node the intersection
    of every check's disproof hand (a dropped piece added back, a captured one taken
    off), without piece types that would give new drop checks; at an AND node the
    refuting evasion's, capped where that evasion is a drop the defender must hold."""
    cdef const Pos* p = &s.pos
    cdef uint32_t disproof = FULL_HAND
    cdef uint32_t d
    cdef int i, m
    if or_node:
        for i in range(n):
            d = hand_before_move(p, kids[i].move, kids[i].solved_hand)
            disproof = hand_intersection(disproof, d)
        return hand_union(disproof_hand_without_new_checks(p, disproof), hand)
    for i in range(n):
        if kids[i].dn == 0 and not kids[i].flags:
            disproof = kids[i].solved_hand
            m = kids[i].move
            if move_is_drop(m):
                disproof = hand_with(disproof, move_dropped_type(m),
                                     hand_count(hand, move_dropped_type(m)))
            return hand_union(disproof, hand)
    return hand


cdef int _cleanest_disproof(Child* kids, int n) noexcept nogil:
    """An AND node is refuted by any disproved evasion: prefer one that does not rely
    on the path, then one that relies on a repetition rather than on truncation."""
    cdef int i, flags = FLAG_TRUNCATED
    for i in range(n):
        if kids[i].dn == 0:
            if not kids[i].flags:
                return 0
            if kids[i].flags == FLAG_PATH:
                flags = FLAG_PATH
    return flags


cdef bint _is_interposition(const Pos* p, int m) noexcept nogil:
    """Whether the defender's move m blocks a single distant check (a drop or a move
    of a piece other than the king onto a square between the checker and the king)."""
    cdef int k = p.king_sq[p.side]
    cdef bb_t checkers = state(p).checkers
    if k < 0 or not checkers or bb_more_than_one(checkers):
        return False
    if not move_is_drop(m) and move_from(m) == k:
        return False
    return bb_test(usi_tables.between[k][bb_lsb(checkers)], move_to(m)) != 0


class MateResult:
    """status is 'mate', 'nomate' or 'timeout'; pv the mating line (moves as ints)."""
    __slots__ = ("status", "pv", "nodes", "time_ms")

    def __init__(self, status, pv=(), nodes=0, time_ms=0):
        self.status, self.pv, self.nodes, self.time_ms = status, list(pv), nodes, time_ms

    def usi(self) -> str:
        """The USI reply: 'checkmate m1 ... mn', 'checkmate nomate' or 'checkmate timeout'."""
        from usi_engine.position import move_to_usi
        if self.status == "mate":
            return "checkmate " + " ".join(move_to_usi(m) for m in self.pv)
        return "checkmate " + self.status

    def __repr__(self):
        return f"MateResult({self.status!r}, plies={len(self.pv)}, nodes={self.nodes})"


cdef class MateSolver:
    """df-pn solver with its own table (sized in MB); one solve at a time.  `stop` and
    `set_deadline` may be called from another thread during `solve`."""
    cdef Solver s
    cdef int stop_flag
    cdef int64_t deadline
    cdef object on_info
    cdef int best_length
    cdef bint published          # useless interpositions are not counted in the line
    cdef uint64_t salt           # makes each sub-search's root path key new

    def __cinit__(self):
        memset(&self.s, 0, sizeof(Solver))
        self.s.arena = <Child*>calloc(ARENA_SIZE, sizeof(Child))
        self.s.move_arena = <int*>calloc(ARENA_SIZE, sizeof(int))
        self.s.path = <uint64_t*>calloc(PATH_SLOTS, sizeof(uint64_t))
        self.s.rep = <uint64_t*>calloc(REP_SLOTS, sizeof(uint64_t))
        self.s.rep_flags = <uint8_t*>calloc(REP_SLOTS, sizeof(uint8_t))
        if (self.s.arena == NULL or self.s.path == NULL or self.s.move_arena == NULL
                or self.s.rep == NULL or self.s.rep_flags == NULL):
            raise MemoryError()

    def __dealloc__(self):
        big_free(self.s.table)
        free(self.s.arena)
        free(self.s.move_arena)
        free(self.s.path)
        free(self.s.rep)
        free(self.s.rep_flags)
        pos_free(&self.s.pos)

    def set_hash(self, int megabytes) -> None:
        """Allocate the table (MemoryError keeps the old one)."""
        if megabytes < 1:
            raise ValueError("hash size must be at least 1 MB")
        cdef uint64_t buckets = (<uint64_t>megabytes << 20) // (BUCKET * sizeof(MateEntry))
        cdef MateEntry* table = <MateEntry*>big_zalloc(buckets * BUCKET * sizeof(MateEntry))
        if table == NULL:
            raise MemoryError(f"cannot allocate a {megabytes} MB mate table")
        big_free(self.s.table)
        self.s.table = table
        self.s.buckets = buckets

    def clear(self) -> None:
        if self.s.table != NULL:
            memset(self.s.table, 0, self.s.buckets * BUCKET * sizeof(MateEntry))

    def stop(self) -> None:
        """Ask the running solve to return as soon as possible (thread-safe)."""
        atomic_store_int(&self.stop_flag, 1)

    def clear_stop(self) -> None:
        """Forget an earlier stop() (see Searcher.clear_stop)."""
        atomic_store_int(&self.stop_flag, 0)

    def set_deadline(self, ms) -> None:
        """Time limit in ms from now (None: none); thread-safe."""
        atomic_store_i64(&self.deadline, 0 if ms is None else
                         monotonic_ns() + <int64_t>(max(ms, 0) * 1000000))

    def hashfull(self) -> int:
        """Permille of the first thousand table slots in use."""
        cdef int i, used = 0
        cdef int n = min(1000, self.s.buckets * BUCKET)
        for i in range(n):
            used += self.s.table[i].kind != KIND_EMPTY
        return used * 1000 // n if n else 0

    def stats(self) -> dict:
        """Counters of the last solve (for tuning)."""
        return {"nodes": self.s.nodes, "path_disproofs": self.s.path_disproofs,
                "contradictions": self.s.contradictions,
                "truncations": self.s.truncations,
                "lookahead_proofs": self.s.lookahead_proofs}

    def _contradictions(self) -> int:
        """Pairs of a proof and an unbounded disproof of one board whose hands overlap:
        one of them is wrong (a debugging aid)."""
        cdef uint64_t bi
        cdef int i, j
        cdef MateEntry* b
        cdef int count = 0
        for bi in range(self.s.buckets):
            b = &self.s.table[bi * BUCKET]
            for i in range(BUCKET):
                if b[i].kind != KIND_PROVEN:
                    continue
                for j in range(BUCKET):
                    if (b[j].kind == KIND_DISPROVEN and b[j].key == b[i].key
                            and b[j].bound == UNBOUNDED and hand_covers(b[j].hand, b[i].hand)):
                        count += 1
        return count

    def _probe(self, Position position not None, int bound=UNBOUNDED) -> tuple:
        """What the table says of a position for a search within `bound` plies:
        (pn, dn, length of the proof, proof or disproof hand) (a debugging aid)."""
        cdef Child c
        c.init_pn = 1
        c.init_dn = 1
        c.solved_hand = 0
        if self.s.table == NULL:
            return (1, 1, 0, 0)
        tt_look(&self.s, state(&position.pos).board_key,
                position.pos.hand[self.s.attacker], bound, &c)
        return (c.pn, c.dn, c.length, c.solved_hand)

    def table_usage(self) -> tuple:
        """(entries in use, capacity) over the whole table."""
        cdef uint64_t i, used = 0
        for i in range(self.s.buckets * BUCKET):
            used += self.s.table[i].kind != KIND_EMPTY
        return used, self.s.buckets * BUCKET

    def _emit_progress(self) -> None:
        if self.on_info is not None:
            elapsed = (monotonic_ns() - self.s.start_ns) // 1000000
            self.on_info({"nodes": self.s.nodes, "time_ms": elapsed,
                          "nps": self.s.nodes * 1000 // elapsed if elapsed else 0,
                          "hashfull": self.hashfull(), "mate_length": self.best_length})

    def solve(self, Position position not None, time_ms=None, long long nodes=0,
              on_info=None, bint shortest=True, bint clear_stop=True,
              bint published=True) -> MateResult:
        """Look for a mate for the side to move; position is not modified.

        With shortest=True, once a mate of length L is proved the solver looks for one
        of L - 2 plies, and so on until that fails or time runs out; the answer is the
        shortest line proved, against the longest defence.  With published=True the
        line passes over useless interpositions as published tsume lengths do; with
        False every defence counts (strict minimax)."""
        cdef Solver* s = &self.s
        self.published = published
        cdef int length, status
        if s.table == NULL:
            self.set_hash(64)
        if pos_copy(&s.pos, &position.pos) != 0 or not pos_reserve(&s.pos, MAX_PATH + 16):
            raise MemoryError()
        if clear_stop:
            self.stop_flag = 0
        self.set_deadline(time_ms)
        self.on_info = on_info
        s.attacker = s.pos.side
        s.nodes = 0
        s.path_disproofs = s.truncations = s.lookahead_proofs = s.contradictions = 0
        s.node_limit = nodes if nodes > 0 else 0
        s.aborted = False
        s.overflow = False
        s.stop_flag = &self.stop_flag
        s.deadline = &self.deadline
        s.start_ns = monotonic_ns()
        s.last_info_ns = s.start_ns
        s.owner = <void*>self
        s.max_ply = s.pos.sp + MAX_PATH
        self.best_length = 0
        if in_check(&s.pos):
            return MateResult("nomate")     # the attacker must not start in check
        status = self._prove(UNBOUNDED, &length)
        if status != 1:
            elapsed = (monotonic_ns() - s.start_ns) // 1000000
            if status == -1:
                return MateResult("nomate", (), s.nodes, elapsed)
            return MateResult("timeout", (), s.nodes, elapsed)
        pv = self._principal_variation(length)
        self.best_length = len(pv) if pv is not None else 0
        proved = length
        # then shorter mates, until 60% of the time; the line with the longest
        # defence settled, until 85%; else the line as the table's lengths say
        shorten = self._phase_deadline(time_ms, 60)
        while shortest and shorten and proved > 1 and not s.aborted:
            if self._prove(proved - 2, &length) != 1:
                break
            proved = length
            shorter = self._principal_variation(length)
            if shorter is not None:
                pv = shorter
                self.best_length = len(pv)
        line = None
        for settle in ([True, False] if shortest else [False]):
            if not self._phase_deadline(time_ms, 85 if settle else 0):
                if self._hard_stop():
                    break
                continue        # no time left to settle: read the line as it stands
            # the table's lengths are upper bounds, and entries may have been replaced:
            # read the line back, searching where the table does not decide
            line = self._exact_line(proved, settle)
            if line is not None:
                pv = line
                self.best_length = len(pv)
                break
        s.soft_deadline = 0
        elapsed = (monotonic_ns() - s.start_ns) // 1000000
        if pv is None:
            return MateResult("timeout", (), s.nodes, elapsed)
        return MateResult("mate", pv, s.nodes, elapsed)

    cdef bint _phase_deadline(self, time_ms, int percent):
        """Let the search go on until percent of time_ms (0: the real deadline).  False
        if that moment has passed, or stop, the deadline or the node limit has already
        ended the solve."""
        cdef Solver* s = &self.s
        s.soft_deadline = 0
        if s.aborted:
            if self._hard_stop():
                return False
            s.aborted = False
        if percent and time_ms is not None:
            s.soft_deadline = s.start_ns + <int64_t>(max(time_ms, 0) * percent * 10000)
            if monotonic_ns() >= s.soft_deadline:
                return False
        return True

    cdef bint _hard_stop(self):
        """Whether stop, the deadline or the node limit has ended the solve."""
        cdef int64_t deadline = atomic_load_i64(&self.deadline)
        return (atomic_load_int(&self.stop_flag) != 0
                or (deadline != 0 and monotonic_ns() >= deadline)
                or (self.s.node_limit != 0 and self.s.nodes >= self.s.node_limit))

    cdef int _prove(self, int bound, int* length):
        """Run df-pn at the root for a mate within bound plies: 1 proved (length set),
        -1 disproved (through repetitions on its own paths at worst), 0 otherwise."""
        cdef Solver* s = &self.s
        if s.path_depth:
            memset(s.path, 0, PATH_SLOTS * sizeof(uint64_t))
            s.path_depth = 0
        # a fresh root path key instead of clearing the 8 MB repetition table: that
        # clearing was most of the time of a short mate's re-searches
        self.salt += 1
        return self._prove_here(True, bound, path_key_after(self.salt, ROOT_PATH_KEY), length)

    cdef int _prove_here(self, bint or_node, int bound, uint64_t root_key, int* length):
        """df-pn at the current position (an attacker node if or_node) within bound
        plies, with the positions already on the path counted as repetitions.  root_key
        must be new to the repetition table (a fresh table or a fresh salt)."""
        cdef Solver* s = &self.s
        cdef Child root
        root.init_pn = 1
        root.init_dn = 1
        cdef int root_flags = 0
        s.arena_top = 0
        with nogil:
            while not s.aborted:
                mid(s, INF - 1, INF - 1, or_node, bound, root_key, &root)
                root_flags = rep_flags_of(s, root_key)
                if root_flags:
                    break
                tt_look(s, state(&s.pos).board_key, s.pos.hand[s.attacker], bound, &root)
                if root.pn == 0 or root.dn == 0:
                    break
        if root_flags:
            # disproved through repetitions on the root's own paths is a real disproof;
            # through a line cut off at the depth limit it is not
            return -1 if root_flags == FLAG_PATH else 0
        tt_look(s, state(&s.pos).board_key, s.pos.hand[s.attacker], bound, &root)
        if root.pn == 0:
            length[0] = root.length
            return 1
        if root.dn == 0:
            return -1
        return 0

    cdef int _prove_child(self, int m, int bound, int* length):
        """_prove_here for the attacker node after the defender's move m (the current
        position stays on the path while it runs)."""
        cdef Solver* s = &self.s
        cdef uint64_t id = path_id(state(&s.pos).board_key, s.pos.hand[s.attacker])
        cdef int status
        self.salt += 1
        path_add(s, id)
        pos_do_move(&s.pos, m)
        status = self._prove_here(True, bound, path_key_after(self.salt, 0), length)
        pos_undo_move(&s.pos)
        path_remove(s, id)
        return status

    cdef int _proven_length(self, int m, bint or_node, int bound) noexcept:
        """The length of the table's proof of the child after m within bound, or -1."""
        cdef Solver* s = &self.s
        cdef Child c
        c.init_pn = 1
        c.init_dn = 1
        tt_look(s, pos_board_key_after(&s.pos, m),
                child_hand(&s.pos, m, s.pos.hand[s.attacker], or_node), bound, &c)
        return c.length if c.pn == 0 else -1

    cdef bint _disproven_within(self, int m, int bound) noexcept:
        """Whether the table shows that the attacker node after the defender's move m
        has no mate within bound plies."""
        cdef Solver* s = &self.s
        cdef Child c
        c.init_pn = 1
        c.init_dn = 1
        tt_look(s, pos_board_key_after(&s.pos, m), s.pos.hand[s.attacker], bound, &c)
        return c.dn == 0

    cdef int _shortest_check(self, int* moves, int n, int value, int* pick_len):
        """At an attacker node whose mate takes `value` plies: the check with the
        shortest proof within value - 1 plies, searching for one if the table has none."""
        cdef int i, pick = -1, length
        for attempt in range(2):
            for i in range(n):
                length = self._proven_length(moves[i], True, value - 1)
                if length >= 0 and (pick < 0 or length < pick_len[0]):
                    pick = i
                    pick_len[0] = length
            if pick >= 0 or attempt == 1:
                break
            self.salt += 1
            if self._prove_here(True, value, path_key_after(self.salt, 0), &length) != 1:
                break
        return pick

    cdef int _longest_defence(self, int* moves, int n, int value, bint settle, int* pick_len):
        """At a defender node mated within `value` plies: the evasion after which the
        shortest mate is longest (with settle, exactly, by bounded searches that settle
        each candidate: proved within t - 2, or shown not to be; without, by the
        table's lengths), preferring a move to a drop on ties.  A useless interposition
        is passed over for the longest other defence, as published lengths do.  -1 if
        some evasion cannot be proved mated within value - 1."""
        cdef int lens[MAX_MOVES]
        cdef bint blocks[MAX_MOVES]
        cdef int i, length, other, block, other_len = 0, block_len = 0
        for i in range(n):
            lens[i] = self._proven_length(moves[i], False, value - 1)
            if lens[i] < 0:
                if self._prove_child(moves[i], value - 1, &length) != 1:
                    return -1
                lens[i] = length
            blocks[i] = self.published and _is_interposition(&self.s.pos, moves[i])
        other = self._longest_of(moves, n, lens, blocks, False, settle, &other_len)
        block = self._longest_of(moves, n, lens, blocks, True, settle, &block_len)
        # a block that only adds its own two plies (it is captured) and is then mated
        # without the piece is useless; one that holds out longer is a real defence
        if block >= 0 and (other < 0 or block_len > other_len + 2 or (
                block_len == other_len + 2 and not self._useless_interposition(
                    moves[block], block_len, settle))):
            pick_len[0] = block_len
            return block
        pick_len[0] = other_len
        return other

    cdef int _longest_of(self, int* moves, int n, int* lens, bint* blocks, bint want_blocks,
                         bint settle, int* pick_len):
        """_longest_defence among the evasions that are (or are not) interpositions;
        -1 if there are none."""
        cdef int i, t, length, drops
        while True:
            t = 0
            for i in range(n):
                if blocks[i] == want_blocks and lens[i] > t:
                    t = lens[i]
            if t == 0:
                return -1
            for drops in range(2):
                for i in range(n):
                    if (blocks[i] != want_blocks or lens[i] != t
                            or move_is_drop(moves[i]) != drops):
                        continue
                    if t > 1 and settle and not self._disproven_within(moves[i], t - 2):
                        if self._prove_child(moves[i], t - 2, &length) == 1:
                            lens[i] = length
                            continue
                        # not mated within t - 2 (or out of time: the best known)
                    pick_len[0] = t
                    return i

    cdef bint _useless_interposition(self, int m, int t, bint search):
        """Whether the interposition m, after which the mate takes t plies, is useless:
        the attacker captures the piece and then mates within the t - 1 plies left
        without it (the defender is given it back).  Without search, only what the
        table shows."""
        cdef Solver* s = &self.s
        cdef Pos* p = &s.pos
        cdef int caps[MAX_MOVES]
        cdef int sq = move_to(m)
        cdef int n, j, x, pt, length, defender = s.attacker ^ 1
        cdef uint32_t hand = p.hand[s.attacker]
        cdef uint64_t id_and, id_or
        cdef bint useless = False
        cdef Child c
        c.init_pn = 1
        c.init_dn = 1
        id_and = path_id(state(p).board_key, hand)
        path_add(s, id_and)
        pos_do_move(p, m)
        id_or = path_id(state(p).board_key, hand)
        path_add(s, id_or)
        n = generate(p, caps, GEN_CHECKS)
        for j in range(n):
            x = caps[j]
            if move_is_drop(x) or move_to(x) != sq:
                continue
            # a proof with the hand held before the capture needs no captured piece
            tt_look(s, pos_board_key_after(p, x), hand, t - 1, &c)
            if c.pn == 0:
                useless = True
                break
            if not search or s.aborted:
                continue
            pt = unpromoted(piece_type(p.board[sq]))
            pos_do_move(p, x)
            p.hand[s.attacker] -= hand_unit(pt)
            p.hand[defender] += hand_unit(pt)
            self.salt += 1
            useless = self._prove_here(False, t - 1, path_key_after(self.salt, 0), &length) == 1
            p.hand[s.attacker] += hand_unit(pt)
            p.hand[defender] -= hand_unit(pt)
            pos_undo_move(p)
            if useless:
                break
        path_remove(s, id_or)
        pos_undo_move(p)
        path_remove(s, id_and)
        return useless

    cdef object _exact_line(self, int value, bint settle):
        """The mating line when the root's mate takes `value` plies: at attacker nodes a
        check proved within the remaining length, at defender nodes the longest
        defence (settled by bounded searches where the table's lengths, which are upper
        bounds, do not decide, if settle).  Children whose proofs the table has lost
        are searched again.  None if time runs out or the proof cannot be completed."""
        cdef Solver* s = &self.s
        cdef Pos* p = &s.pos
        cdef int moves[MAX_MOVES]
        cdef int n, pick, pick_len = 0
        cdef bint or_node = True
        cdef list pv = [], ids = []
        cdef uint64_t id
        if s.path_depth:
            memset(s.path, 0, PATH_SLOTS * sizeof(uint64_t))
            s.path_depth = 0
        while len(pv) <= MAX_PATH and not s.aborted:
            n = generate(p, moves, GEN_CHECKS if or_node else GEN_LEGAL)
            if n == 0:
                break
            if or_node:
                pick = self._shortest_check(moves, n, value, &pick_len)
            else:
                pick = self._longest_defence(moves, n, value, settle, &pick_len)
            if pick < 0 or s.aborted:
                pv = None
                break
            id = path_id(state(p).board_key, p.hand[s.attacker])
            path_add(s, id)
            ids.append(id)
            pos_do_move(p, moves[pick])
            pv.append(moves[pick])
            or_node = not or_node
            value = pick_len
        for id in reversed(ids):
            path_remove(s, id)
        for _ in range(len(ids)):
            pos_undo_move(p)
        if pv is None or s.aborted or not _verify_mate_line(p, pv):
            return None
        return pv

    cdef object _principal_variation(self, int length):
        """The mate of at most `length` plies read from the table: at attacker nodes the
        shortest proved check, at defender nodes the evasion with the longest proved
        mate (preferring a non-drop on ties, so that a useless interposition is not
        chosen over a real defence).  Replayed for verification; None if the table
        no longer holds a complete proof."""
        cdef Solver* s = &self.s
        cdef Pos* p = &s.pos
        cdef int moves[MAX_MOVES]
        cdef int n, i, pick, pick_len, bound = length
        cdef Child c
        cdef bint or_node = True
        cdef list pv = []
        c.init_pn = 1
        c.init_dn = 1
        while bound >= 0 and len(pv) <= length:
            n = generate(p, moves, GEN_CHECKS if or_node else GEN_LEGAL)
            if n == 0:
                break
            pick = -1
            pick_len = 0
            for i in range(n):
                tt_look(s, pos_board_key_after(p, moves[i]),
                        child_hand(p, moves[i], p.hand[s.attacker], or_node),
                        child_bound(bound), &c)
                if c.pn != 0:
                    if not or_node:
                        pick = -2           # an evasion not (or no longer) proved
                        break
                    continue
                if (pick < 0 or (or_node and c.length < pick_len)
                        or (not or_node and (c.length > pick_len or (
                            c.length == pick_len and move_is_drop(moves[pick])
                            and not move_is_drop(moves[i]))))):
                    pick = i
                    pick_len = c.length
            if pick < 0:
                break
            pos_do_move(p, moves[pick])
            pv.append(moves[pick])
            or_node = not or_node
            bound -= 1
        for _ in range(len(pv)):
            pos_undo_move(p)
        return pv if _verify_mate_line(p, pv) else None


cdef bint _verify_mate_line(Pos* p, list pv):
    """Replay: odd length, every attacker move legal and checking, defender moves legal,
    final position checkmate.  p is restored."""
    cdef int moves[MAX_MOVES]
    cdef int n, i, k, m
    cdef bint ok = len(pv) % 2 == 1
    cdef int played = 0
    if ok:
        for k in range(len(pv)):
            m = pv[k]
            n = generate(p, moves, GEN_CHECKS if k % 2 == 0 else GEN_LEGAL)
            ok = False
            for i in range(n):
                if moves[i] == m:
                    ok = True
                    break
            if not ok:
                break
            pos_do_move(p, m)
            played += 1
        if ok:
            ok = in_check(p) and generate(p, moves, GEN_LEGAL) == 0
    for k in range(played):
        pos_undo_move(p)
    return ok
