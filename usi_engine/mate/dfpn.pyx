# cython: language_level=3
"""The df-pn core of the tsume solver: proof-number search over checking moves (OR
nodes, attacker to move) and evasions (AND nodes, defender to move).

- Repetition: reaching a position already on the current path is not a mate (all
  attacker moves are checks, so it is perpetual check).  Such disproofs depend on the
  path: they go to the repetition table, never to the main table.  A root disproved
  through lines cut off at the depth limit is reported as `timeout`, never `nomate`.
- df-pn+ initial estimates, delayed expansion of interpositions and non-promotions, a
  look-ahead for mates in one (and three) at new attacker nodes, and proof and
  disproof hands (`table.pyx`).
- Each node keeps its children's results while it is expanded, so a full table cannot
  make siblings evict each other's results for ever.
- Stored lengths are upper bounds; searches may be bounded to a number of plies.
  With `published`, lengths are counted as published tsume lengths count them: a
  useless interposition (a block captured by a check that then mates without the
  piece) and its capture add no plies (free-capture nodes, table.pxd).
- Nodes are counted, and stop, deadlines and Ctrl-C polled, through `control`.
"""
from libc.stdint cimport uint32_t, uint64_t

from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport (Pos, state, pos_do_move, pos_undo_move, pos_board_key_after,
                                  attackers_to)
from usi_engine.core.movegen cimport GEN_CHECKS, GEN_LEGAL, generate, gives_check
from usi_engine.core.mate1 cimport mate_in_one
from usi_engine.core.control cimport ctl_count
from usi_engine.mate.table cimport *

init_tables()


cdef bint USE_DFPN_PLUS = True
cdef bint USE_DELAY = True
cdef bint USE_HAND_SETS = True
cdef int LOOKAHEAD_DEPTH = 1
cdef int EPSILON_SHIFT = 1      # the child's threshold: second best * (1 + 2^-shift) + 1


def _set_heuristics(bint dfpn_plus=True, bint delay=True, bint hand_sets=True,
                    int lookahead=1, int epsilon_shift=1):
    """Switch the df-pn+ estimates, the delayed expansion, the generalised proof and
    disproof hands and the look-ahead at new attacker nodes
    (3: mates in one and three, 1: in one, 0: none) (for experiments and tests)."""
    global USE_DFPN_PLUS, USE_DELAY, USE_HAND_SETS, LOOKAHEAD_DEPTH, EPSILON_SHIFT
    USE_DFPN_PLUS = dfpn_plus
    USE_DELAY = delay
    USE_HAND_SETS = hand_sets
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
                      uint64_t tkey, Child* out) noexcept nogil:
    """At a new attacker node, play each check and look at the replies: none means
    mate in one; if every reply allows a mate in one, it is mate in three.  Either
    proves the node at once (stored for the child as well).  Otherwise the number of
    replies is the child's first proof number: a far better guess than any static
    estimate.  Free captures are left to the search (their piece must first be given
    back); a check's proof costs its plies (two at a free-capture node)."""
    cdef Pos* p = &s.pos
    cdef int* replies = &s.move_arena[s.arena_top]
    cdef int i, j, count
    cdef uint32_t proof
    cdef bint all_mated
    for i in range(n):
        if not kids[i].fresh or kids[i].free:
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
            tt_put_proven(s, tkey, proof, kids[i].cost, hand, 1)
            set_result(out, 0, INF, kids[i].cost, proof, 0)
            return True
        if (bound_minus(bound, kids[i].cost) >= 2 and count <= LOOKAHEAD_REPLIES
                and LOOKAHEAD_DEPTH >= 3):
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
                tt_put_proven(s, tkey, hand, kids[i].cost + 2, hand, count)
                set_result(out, 0, INF, kids[i].cost + 2, hand, 0)
                return True
        pos_undo_move(p)
        if USE_DFPN_PLUS:
            kids[i].pn = kids[i].init_pn = count
    return False


cdef int make_children(Solver* s, int* moves, int n, Child* kids, bint or_node,
                       int free_sq, int bound) noexcept nogil:
    """The children of a node, with their keys, the attacker's hand after each move and
    the plies it costs.  At a free-capture node of a bounded search, each check that
    captures the block comes a second time as the free capture (the piece given back,
    no plies), after the others.  Returns their number (n or more)."""
    cdef const Pos* p = &s.pos
    cdef uint32_t hand = p.hand[s.attacker]
    cdef int i, m, count = n
    cdef Child* c
    # lengths are counted as published only in bounded searches (the shortest mate's):
    # the first proof's lengths are strict, upper bounds of the published ones
    cdef bint published = s.published and bound != UNBOUNDED
    for i in range(n):
        m = moves[i]
        c = &kids[i]
        c.move = m
        c.key = pos_board_key_after(p, m)
        c.hand = child_hand(p, m, hand, or_node)
        c.free = False
        c.free_sq = -1
        c.cost = 2 if or_node and free_sq >= 0 else 1
        if not or_node and published and is_interposition(p, m):
            c.cost = 0
            c.free_sq = move_to(m)
        # the lookups come after every child is made: start loading each bucket now
        tt_prefetch(s, child_table_key(c))
    if or_node and free_sq >= 0 and bound != UNBOUNDED:
        for i in range(n):
            m = moves[i]
            if move_is_drop(m) or move_to(m) != free_sq:
                continue
            kids[count] = kids[i]
            kids[count].free = True
            kids[count].cost = 0
            kids[count].hand = hand
            count += 1
    return count


cdef void link_free_captures(Child* kids, int n, int count) noexcept nogil:
    """A free capture is tried once the capture itself is refuted within its bound."""
    cdef int i, j
    for j in range(n, count):
        for i in range(n):
            if kids[i].move == kids[j].move:
                kids[j].prev = i
                break


cdef int enter_child(Solver* s, const Child* c) noexcept nogil:
    """Play the child's move; a free capture gives the piece back to the defender.
    Returns what leave_child needs."""
    cdef int pt = 0
    if c.free:
        pt = unpromoted(piece_type(s.pos.board[move_to(c.move)]))
    pos_do_move(&s.pos, c.move)
    if c.free:
        s.pos.hand[s.attacker] -= hand_unit(pt)
        s.pos.hand[s.attacker ^ 1] += hand_unit(pt)
    return pt


cdef void leave_child(Solver* s, const Child* c, int pt) noexcept nogil:
    if c.free:
        s.pos.hand[s.attacker] += hand_unit(pt)
        s.pos.hand[s.attacker ^ 1] -= hand_unit(pt)
    pos_undo_move(&s.pos)


cdef bint look_block_as_move(Solver* s, Child* c, int bound) noexcept nogil:
    """A block whose free-capture node the table does not hold may hold a proof as an
    ordinary attacker node (from a search that counted every ply): an upper bound of
    its length, which the child takes, counted as an ordinary move.  True if so."""
    cdef Child plain = c[0]
    if bound_minus(bound, 1) < 0:
        return False
    tt_look(s, plain.key, plain.hand, bound_minus(bound, 1), &plain)
    if plain.pn != 0:
        return False
    plain.cost = 1
    plain.free_sq = -1
    c[0] = plain
    return True


cdef inline void set_result(Child* out, uint32_t pn, uint32_t dn, int length,
                            uint32_t solved_hand, int flags) noexcept nogil:
    out.pn = pn
    out.dn = dn
    out.length = length
    out.solved_hand = solved_hand
    out.flags = flags


cdef inline uint64_t _child_path_key(uint64_t path_key, const Child* c) noexcept nogil:
    return path_key_after(path_key, c.move | FREE_MOVE_BIT if c.free else c.move)


cdef inline bint _look_child(Solver* s, Child* c, uint64_t path_key, int bound) noexcept nogil:
    """A child's values when its parent is expanded: a repetition of the path, a
    disproof that depends on this path, a move that costs more plies than the bound
    leaves, or the table's entry (False: none, the initial estimate).  From then on
    the parent keeps them, updated by its own searches of the child (and
    _refresh_child)."""
    cdef int child_limit = bound_minus(bound, c.cost)
    cdef bint known
    c.length = 0
    if path_contains(s, path_id(c.key, c.hand)):
        c.pn = INF; c.dn = 0; c.flags = FLAG_PATH
        return True
    c.flags = rep_flags_of(s, _child_path_key(path_key, c))
    if c.flags:
        c.pn = INF; c.dn = 0
        return True
    if child_limit < 0:
        c.pn = INF; c.dn = 0; c.solved_hand = full_hand()
        return True
    known = tt_look(s, child_table_key(c), c.hand, child_limit, c)
    if c.pn != 0 and c.dn != 0 and c.free_sq >= 0 and look_block_as_move(s, c, bound):
        return True
    return known


cdef inline bint _refresh_child(Solver* s, Child* c, int bound) noexcept nogil:
    """Before the child chosen is searched: re-read its table entry, which a search
    of a sibling may have changed through a transposition.  True if it did."""
    cdef uint32_t pn = c.pn, dn = c.dn
    if pn == 0 or dn == 0:
        return False
    if not tt_look(s, child_table_key(c), c.hand, bound_minus(bound, c.cost), c):
        c.pn = pn; c.dn = dn    # replaced: keep what the parent knew
        return False
    return c.pn != pn or c.dn != dn


cdef bint mid(Solver* s, uint32_t th_pn, uint32_t th_dn, bint or_node, int free_sq,
              int bound, uint64_t path_key, Child* out) noexcept nogil:
    """Multiple-iterative deepening df-pn below this node, looking for a mate in at most
    `bound` plies, until its proof or disproof number reaches its threshold (free_sq:
    a free-capture node after a block on that square; -1: none).  The result is stored
    in the table and in out (pn, dn, length, solved_hand, flags); False if the search
    was stopped first."""
    cdef Pos* p = &s.pos
    cdef uint64_t key = state(p).board_key
    cdef uint64_t tkey = free_capture_key(key, free_sq) if free_sq >= 0 else key
    cdef uint32_t hand = p.hand[s.attacker]
    cdef uint64_t id = path_id(key, hand)
    cdef uint64_t work_start = s.ctl.nodes
    cdef int n, i, best, length, flags, count, taken
    cdef uint32_t pn, dn, second, c_pn, c_dn, widest
    cdef int* moves
    cdef Child* kids
    cdef Child* c
    cdef bint active
    cdef Child result
    ctl_count(&s.ctl)
    if s.ctl.aborted:
        return False
    if s.arena_top + 3 * MAX_MOVES > ARENA_SIZE or s.path_depth >= MAX_PATH or p.sp + 2 >= s.max_ply:
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
            widest = disproof_hand_without_new_checks(p, full_hand())
            tt_put_disproven(s, tkey, widest, UNBOUNDED, hand, 1)
            set_result(out, INF, 0, 0, widest, 0)
        else:
            widest = proof_hand_needs_blockers(p, 0, hand)
            tt_put_proven(s, key, widest, 0, hand, 1)
            set_result(out, 0, INF, 0, widest, 0)
        return True
    if bound < ((0 if free_sq >= 0 else 1) if or_node else 2):
        # the mate, if any, is longer than allowed, whatever the hand
        tt_put_disproven(s, tkey, full_hand(), bound, hand, 1)
        set_result(out, INF, 0, 0, full_hand(), 0)
        return True
    kids = &s.arena[s.arena_top]
    count = make_children(s, moves, n, kids, or_node, free_sq, bound)
    s.arena_top += count
    for i in range(count):
        initial_estimate(p, kids[i].move, or_node, &kids[i])
        kids[i].fresh = not _look_child(s, &kids[i], path_key, bound)
    if or_node and LOOKAHEAD_DEPTH and _look_ahead(s, kids, count, hand, bound, tkey, out):
        s.lookahead_proofs += 1
        s.arena_top -= count
        return True
    link_delayed(p, kids, n, or_node)
    link_free_captures(kids, n, count)
    n = count
    path_add(s, id)
    while True:
        pn = INF if or_node else 0
        dn = 0 if or_node else INF
        best = -1
        second = INF
        length = 1 << 30 if or_node else 0
        flags = 0
        for i in range(n):
            c = &kids[i]
            # a delayed move counts once the move it waits for is settled: disproved
            # at an OR node, proved at an AND node
            active = c.prev < 0 or (kids[c.prev].dn == 0 if or_node else kids[c.prev].pn == 0)
            if or_node:
                if c.pn == 0 and c.cost + c.length < length:
                    length = c.cost + c.length
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
            else:
                if c.pn == 0 and c.cost + c.length > length:
                    length = c.cost + c.length
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
        if pn == 0 or dn == 0 or pn >= th_pn or dn >= th_dn or s.ctl.aborted:
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
        taken = enter_child(s, c)
        if mid(s, c_pn, c_dn, not or_node, c.free_sq, bound_minus(bound, c.cost),
               _child_path_key(path_key, c), &result):
            # the child's own result, whatever becomes of its table entry: with a full
            # table, siblings in one bucket could otherwise evict each other's results
            # for ever
            c.pn = result.pn; c.dn = result.dn; c.length = result.length
            c.solved_hand = result.solved_hand; c.flags = result.flags
        leave_child(s, c, taken)
    path_remove(s, id)
    if dn == 0 and flags:
        s.path_disproofs += 1
        rep_add(s, path_key, flags)
        set_result(out, INF, 0, 0, hand, flags)
    elif pn == 0:
        widest = _proof_hand(s, kids, n, or_node, hand, length) if USE_HAND_SETS else hand
        tt_put_proven(s, tkey, widest, length, hand, s.ctl.nodes - work_start)
        set_result(out, 0, INF, length, widest, 0)
    elif dn == 0:
        widest = _disproof_hand(s, kids, n, or_node, hand) if USE_HAND_SETS else hand
        tt_put_disproven(s, tkey, widest, bound, hand, s.ctl.nodes - work_start)
        set_result(out, INF, 0, 0, widest, 0)
    else:
        tt_put_unknown(s, tkey, hand, bound, pn, dn, s.ctl.nodes - work_start)
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
            if kids[i].pn == 0 and kids[i].cost + kids[i].length == length:
                proof = kids[i].solved_hand
                if not kids[i].free:
                    proof = hand_before_move(p, kids[i].move, proof)
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
    cdef uint32_t disproof = full_hand()
    cdef uint32_t d
    cdef int i, m
    if or_node:
        for i in range(n):
            d = kids[i].solved_hand
            if not kids[i].free:
                d = hand_before_move(p, kids[i].move, d)
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


cdef int prove_here(Solver* s, bint or_node, int free_sq, int bound, uint64_t root_key,
                    int* length) noexcept:
    """df-pn at the current position (an attacker node if or_node; a free-capture node
    after a block on free_sq, unless -1) within bound plies, with the positions already
    on the path counted as repetitions: 1 proved (length set), -1 disproved (through
    repetitions on its own paths at worst), 0 otherwise.  root_key must be new to the
    repetition table (a fresh salt)."""
    cdef uint64_t tkey
    cdef Child root
    root.init_pn = 1
    root.init_dn = 1
    cdef int root_flags = 0
    s.arena_top = 0
    tkey = state(&s.pos).board_key
    if free_sq >= 0:
        tkey = free_capture_key(tkey, free_sq)
    with nogil:
        while not s.ctl.aborted:
            mid(s, INF - 1, INF - 1, or_node, free_sq, bound, root_key, &root)
            root_flags = rep_flags_of(s, root_key)
            if root_flags:
                break
            tt_look(s, tkey, s.pos.hand[s.attacker], bound, &root)
            if root.pn == 0 or root.dn == 0:
                break
    if root_flags:
        # disproved through repetitions on the root's own paths is a real disproof;
        # through a line cut off at the depth limit it is not
        return -1 if root_flags == FLAG_PATH else 0
    tt_look(s, tkey, s.pos.hand[s.attacker], bound, &root)
    if root.pn == 0:
        length[0] = root.length
        return 1
    if root.dn == 0:
        return -1
    return 0


cdef int prove_root(Solver* s, int bound, int* length) noexcept:
    """prove_here at the root of the solve (nothing on the path)."""
    path_clear(s)
    # a fresh root path key instead of clearing the 8 MB repetition table: that
    # clearing was most of the time of a short mate's re-searches
    s.path_salt += 1
    rep_forget_stale(s)
    return prove_here(s, True, -1, bound, path_key_after(s.path_salt, ROOT_PATH_KEY), length)


cdef int prove_sub(Solver* s, bint or_node, int free_sq, int bound, int* length) noexcept:
    """prove_here below the root (the path so far stays on the path)."""
    s.path_salt += 1
    rep_forget_stale(s)
    return prove_here(s, or_node, free_sq, bound, path_key_after(s.path_salt, 0), length)

