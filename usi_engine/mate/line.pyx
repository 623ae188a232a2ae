# cython: language_level=3
"""Reading the mating line back from the solver's table.

The table's lengths are upper bounds and entries may have been replaced, so the line
is read with searches where the table does not decide: at attacker nodes a check
proved within the remaining length, at defender nodes the longest defence, settled
by bounded searches.  The lengths are the table's: with `published`, a useless
interposition (a block captured by a check that then mates without the piece) costs
no plies, and among equally long defences a block is the last choice, so that the
line passes over useless interpositions as published solutions do.  Every line is replayed before it is
returned: each attacker move checks, the last position is mate, the length is odd.
"""
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, free

from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport (Pos, state, in_check, pos_do_move, pos_undo_move)
from usi_engine.core.movegen cimport GEN_CHECKS, GEN_LEGAL, generate
from usi_engine.mate.table cimport *
from usi_engine.mate.dfpn cimport (make_children, enter_child, leave_child, prove_sub,
                                  look_block_as_move)

init_tables()


cdef int _proven_within(Solver* s, Child* c, int within) noexcept:
    """The length of the table's proof of the child within `within` plies, the plies
    its move costs included, or -1.  A block proved only as an ordinary move (by a
    search that counted every ply) becomes one."""
    cdef int limit = bound_minus(within, c.cost)
    if limit < 0:
        return -1
    c.init_pn = 1
    c.init_dn = 1
    tt_look(s, child_table_key(c), c.hand, limit, c)
    if c.pn != 0 and c.free_sq >= 0:
        look_block_as_move(s, c, within)
    return c.cost + c.length if c.pn == 0 else -1


cdef bint _disproven_within(Solver* s, Child* c, int within) noexcept:
    """Whether the table shows that the child has no mate within `within` plies."""
    cdef int limit = bound_minus(within, c.cost)
    if limit < 0:
        return True
    c.init_pn = 1
    c.init_dn = 1
    tt_look(s, child_table_key(c), c.hand, limit, c)
    return c.dn == 0


cdef int _prove_kid(Solver* s, Child* c, bint or_node, int within, int* length) noexcept:
    """A bounded search of the child of this node (an attacker node if or_node) for a
    mate within `within` plies, its move's cost included (length set to that)."""
    cdef uint64_t id
    cdef int limit = bound_minus(within, c.cost)
    cdef int status, taken
    if limit < 0:
        return -1
    id = path_id(state(&s.pos).board_key, s.pos.hand[s.attacker])
    path_add(s, id)
    taken = enter_child(s, c)
    status = prove_sub(s, not or_node, c.free_sq, limit, length)
    leave_child(s, c, taken)
    path_remove(s, id)
    if status == 1:
        length[0] += c.cost
    return status


cdef int _shortest_check(Solver* s, Child* kids, int n, int free_sq, int value,
                         int* pick_len):
    """At an attacker node whose mate takes `value` plies: the check with the
    shortest proof within value, searching for one if the table has none."""
    cdef int i, pick = -1, length
    for attempt in range(2):
        for i in range(n):
            length = _proven_within(s, &kids[i], value)
            if length >= 0 and (pick < 0 or length < pick_len[0]):
                pick = i
                pick_len[0] = length
        if pick >= 0 or attempt == 1:
            break
        if prove_sub(s, True, free_sq, value, &length) != 1:
            break
    return pick


cdef inline int _defence_rank(const Child* c) noexcept:
    """The order of preference among equally long defences: a move, a drop, a block
    (which, were it longest only with its own plies, would be useless)."""
    if c.free_sq >= 0:
        return 2
    return 1 if move_is_drop(c.move) else 0


cdef int _longest_defence(Solver* s, Child* kids, int n, int value, bint settle,
                          int* pick_len):
    """At a defender node mated within `value` plies: the evasion after which the
    mate is longest (with settle, exactly, by bounded searches that settle each
    candidate: proved within t - 2, or shown not to be; without, by the table's
    lengths), preferring a move to a drop and a drop to a block on ties.  A useless
    block counts as published lengths count it (its free capture costs no plies).
    -1 if some evasion cannot be proved mated within value."""
    cdef int lens[MAX_MOVES]
    cdef int i, t, rank, length
    for i in range(n):
        lens[i] = _proven_within(s, &kids[i], value)
        if lens[i] < 0:
            if _prove_kid(s, &kids[i], False, value, &length) != 1:
                return -1
            lens[i] = length
    while True:
        t = -1
        for i in range(n):
            if lens[i] > t:
                t = lens[i]
        for rank in range(3):
            for i in range(n):
                if lens[i] != t or _defence_rank(&kids[i]) != rank:
                    continue
                if t > 1 and settle and not _disproven_within(s, &kids[i], t - 2):
                    if _prove_kid(s, &kids[i], False, t - 2, &length) == 1:
                        lens[i] = length
                        continue
                    # not mated within t - 2 (or out of time: the best known)
                pick_len[0] = t
                return i


cdef object exact_line(Solver* s, int value, bint settle):
    """The mating line when the root's mate takes `value` plies: at attacker nodes a
    check proved within the remaining length, at defender nodes the longest
    defence (settled by bounded searches where the table's lengths, which are upper
    bounds, do not decide, if settle).  Children whose proofs the table has lost
    are searched again.  None if time runs out or the proof cannot be completed."""
    cdef Pos* p = &s.pos
    cdef int moves[MAX_MOVES]
    cdef Child* kids = <Child*>malloc(2 * MAX_MOVES * sizeof(Child))
    cdef int n, pick, pick_len = 0, free_sq = -1
    cdef bint or_node = True
    cdef list pv = [], ids = []
    cdef uint64_t id
    if kids == NULL:
        raise MemoryError()
    path_clear(s)
    while len(pv) <= MAX_PATH and not s.ctl.aborted:
        n = generate(p, moves, GEN_CHECKS if or_node else GEN_LEGAL)
        if n == 0:
            break
        n = make_children(s, moves, n, kids, or_node, free_sq, value)
        if or_node:
            pick = _shortest_check(s, kids, n, free_sq, value, &pick_len)
        else:
            pick = _longest_defence(s, kids, n, value, settle, &pick_len)
        if pick < 0 or s.ctl.aborted:
            pv = None
            break
        id = path_id(state(p).board_key, p.hand[s.attacker])
        path_add(s, id)
        ids.append(id)
        pos_do_move(p, kids[pick].move)
        pv.append(kids[pick].move)
        or_node = not or_node
        value = pick_len - kids[pick].cost
        free_sq = kids[pick].free_sq
    free(kids)
    for id in reversed(ids):
        path_remove(s, id)
    for _ in range(len(ids)):
        pos_undo_move(p)
    if pv is None or s.ctl.aborted or not verify_mate_line(p, pv):
        return None
    return pv


cdef int _table_pick(Solver* s, Child* kids, int n, bint or_node, int bound) noexcept:
    """principal_variation's choice: at an attacker node the check with the shortest
    proof within bound, at a defender node the evasion with the longest (-1 if some
    evasion is not, or no longer, proved)."""
    cdef int i, pick = -1, length, pick_len = 0
    for i in range(n):
        length = _proven_within(s, &kids[i], bound)
        if length < 0:
            if not or_node:
                return -1
            continue
        if (pick < 0 or (or_node and length < pick_len)
                or (not or_node and (length > pick_len or (
                    length == pick_len
                    and _defence_rank(&kids[i]) < _defence_rank(&kids[pick]))))):
            pick = i
            pick_len = length
    return pick


cdef object principal_variation(Solver* s, int length):
    """The mate of at most `length` plies read from the table: at attacker nodes the
    shortest proved check, at defender nodes the evasion with the longest proved
    mate (preferring a move to a drop and a drop to a block on ties, so that a useless
    interposition is not chosen over a real defence).  Replayed for verification;
    None if the table no longer holds a complete proof."""
    cdef Pos* p = &s.pos
    cdef int moves[MAX_MOVES]
    cdef Child* kids = <Child*>malloc(2 * MAX_MOVES * sizeof(Child))
    cdef int n, pick, free_sq = -1, bound = length
    cdef bint or_node = True
    cdef list pv = []
    if kids == NULL:
        raise MemoryError()
    while bound >= 0 and len(pv) <= MAX_PATH:
        n = generate(p, moves, GEN_CHECKS if or_node else GEN_LEGAL)
        if n == 0:
            break
        n = make_children(s, moves, n, kids, or_node, free_sq, bound)
        pick = _table_pick(s, kids, n, or_node, bound)
        if pick < 0:
            break
        pos_do_move(p, kids[pick].move)
        pv.append(kids[pick].move)
        or_node = not or_node
        bound = bound_minus(bound, kids[pick].cost)
        free_sq = kids[pick].free_sq
    free(kids)
    for _ in range(len(pv)):
        pos_undo_move(p)
    return pv if verify_mate_line(p, pv) else None


cdef bint verify_mate_line(Pos* p, list pv):
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
