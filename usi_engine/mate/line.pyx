# cython: language_level=3
"""Reading the mating line back from the solver's table.

The table's lengths are upper bounds and entries may have been replaced, so the line
is read with searches where the table does not decide: at attacker nodes a check
proved within the remaining length, at defender nodes the longest defence, settled
by bounded searches.  Useless interpositions (a block captured at once, after which
the mate needs no more plies than the longest other defence and not the piece) are
not counted, as in published tsume lengths, unless the solve is strict
(`published=False`, every defence counts).  Every line is replayed before it is
returned: each attacker move checks, the last position is mate, the length is odd.
"""
from libc.stdint cimport uint32_t, uint64_t

from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport (Pos, state, in_check, pos_do_move, pos_undo_move,
                                  pos_board_key_after, hand_unit)
from usi_engine.core.movegen cimport GEN_CHECKS, GEN_LEGAL, generate
from usi_engine.mate.table cimport *
from usi_engine.mate.dfpn cimport prove_sub, prove_child

init_tables()


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


cdef int _proven_length(Solver* s, int m, bint or_node, int bound) noexcept:
    """The length of the table's proof of the child after m within bound, or -1."""
    cdef Child c
    c.init_pn = 1
    c.init_dn = 1
    tt_look(s, pos_board_key_after(&s.pos, m),
            child_hand(&s.pos, m, s.pos.hand[s.attacker], or_node), bound, &c)
    return c.length if c.pn == 0 else -1


cdef bint _disproven_within(Solver* s, int m, int bound) noexcept:
    """Whether the table shows that the attacker node after the defender's move m
    has no mate within bound plies."""
    cdef Child c
    c.init_pn = 1
    c.init_dn = 1
    tt_look(s, pos_board_key_after(&s.pos, m), s.pos.hand[s.attacker], bound, &c)
    return c.dn == 0


cdef int _shortest_check(Solver* s, int* moves, int n, int value, int* pick_len):
    """At an attacker node whose mate takes `value` plies: the check with the
    shortest proof within value - 1 plies, searching for one if the table has none."""
    cdef int i, pick = -1, length
    for attempt in range(2):
        for i in range(n):
            length = _proven_length(s, moves[i], True, value - 1)
            if length >= 0 and (pick < 0 or length < pick_len[0]):
                pick = i
                pick_len[0] = length
        if pick >= 0 or attempt == 1:
            break
        if prove_sub(s, True, value, &length) != 1:
            break
    return pick


cdef int _longest_defence(Solver* s, int* moves, int n, int value, bint settle, int* pick_len):
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
        lens[i] = _proven_length(s, moves[i], False, value - 1)
        if lens[i] < 0:
            if prove_child(s, moves[i], value - 1, &length) != 1:
                return -1
            lens[i] = length
        blocks[i] = s.published and _is_interposition(&s.pos, moves[i])
    other = _longest_of(s, moves, n, lens, blocks, False, settle, &other_len)
    block = _longest_of(s, moves, n, lens, blocks, True, settle, &block_len)
    # a block that only adds its own two plies (it is captured) and is then mated
    # without the piece is useless; one that holds out longer is a real defence
    if block >= 0 and (other < 0 or block_len > other_len + 2 or (
            block_len == other_len + 2 and not _useless_interposition(s, 
                moves[block], block_len, settle))):
        pick_len[0] = block_len
        return block
    pick_len[0] = other_len
    return other


cdef int _longest_of(Solver* s, int* moves, int n, int* lens, bint* blocks, bint want_blocks,
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
                if t > 1 and settle and not _disproven_within(s, moves[i], t - 2):
                    if prove_child(s, moves[i], t - 2, &length) == 1:
                        lens[i] = length
                        continue
                    # not mated within t - 2 (or out of time: the best known)
                pick_len[0] = t
                return i


cdef bint _useless_interposition(Solver* s, int m, int t, bint search):
    """Whether the interposition m, after which the mate takes t plies, is useless:
    the attacker captures the piece and then mates within the t - 1 plies left
    without it (the defender is given it back).  Without search, only what the
    table shows."""
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
        if not search or s.ctl.aborted:
            continue
        pt = unpromoted(piece_type(p.board[sq]))
        pos_do_move(p, x)
        p.hand[s.attacker] -= hand_unit(pt)
        p.hand[defender] += hand_unit(pt)
        useless = prove_sub(s, False, t - 1, &length) == 1
        p.hand[s.attacker] += hand_unit(pt)
        p.hand[defender] -= hand_unit(pt)
        pos_undo_move(p)
        if useless:
            break
    path_remove(s, id_or)
    pos_undo_move(p)
    path_remove(s, id_and)
    return useless


cdef object exact_line(Solver* s, int value, bint settle):
    """The mating line when the root's mate takes `value` plies: at attacker nodes a
    check proved within the remaining length, at defender nodes the longest
    defence (settled by bounded searches where the table's lengths, which are upper
    bounds, do not decide, if settle).  Children whose proofs the table has lost
    are searched again.  None if time runs out or the proof cannot be completed."""
    cdef Pos* p = &s.pos
    cdef int moves[MAX_MOVES]
    cdef int n, pick, pick_len = 0
    cdef bint or_node = True
    cdef list pv = [], ids = []
    cdef uint64_t id
    path_clear(s)
    while len(pv) <= MAX_PATH and not s.ctl.aborted:
        n = generate(p, moves, GEN_CHECKS if or_node else GEN_LEGAL)
        if n == 0:
            break
        if or_node:
            pick = _shortest_check(s, moves, n, value, &pick_len)
        else:
            pick = _longest_defence(s, moves, n, value, settle, &pick_len)
        if pick < 0 or s.ctl.aborted:
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
    if pv is None or s.ctl.aborted or not verify_mate_line(p, pv):
        return None
    return pv


cdef object principal_variation(Solver* s, int length):
    """The mate of at most `length` plies read from the table: at attacker nodes the
    shortest proved check, at defender nodes the evasion with the longest proved
    mate (preferring a non-drop on ties, so that a useless interposition is not
    chosen over a real defence).  Replayed for verification; None if the table
    no longer holds a complete proof."""
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
