# cython: language_level=3
"""The shogi position: board state, SFEN, do/undo with incremental Zobrist keys,
repetition and entering-king rules, perft, and the Python-facing `Position` class.  The text
forms (USI moves, SFEN, `position` commands) are in core/position_text.pxi, included here.

Example::

    >>> from usi_engine import Position
    >>> pos = Position()
    >>> len(pos.legal_moves())
    30
    >>> move = pos.push_usi("7g7f")      # the move played, as an int
    >>> pos.sfen()
    'lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2'
"""
import threading

from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

from usi_engine.core.control cimport Control, ctl_count, ctl_start, ctl_raise_pending
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.movegen cimport (GEN_CAPTURES, GEN_CHECKS, GEN_EVASIONS, GEN_LEGAL,
                                 GEN_QUIETS, CheckInfo, check_info_init, generate,
                                 gives_check, gives_check_by, has_legal_move,
                                 has_evasion, is_legal)

init_tables()

from usi_engine.notation.position_line import read_position_text
from usi_engine.notation.sfen import STARTPOS_SFEN
#: Room in every move buffer: more than any position can have (see core/types.pxd).
MAX_LEGAL_MOVES = MAX_MOVES

# ---- Zobrist keys -----------------------------------------------------------------------
# Bit 0 of the board key is the side to move (piece keys have it clear), so a key alone
# tells whose turn it is.  Hands are hashed additively: count * key per piece type, which
# makes adding or removing one piece a single addition.
cdef uint64_t ZOBRIST_BOARD[32][81]
cdef uint64_t ZOBRIST_HAND[2][8]
cdef uint64_t ZOBRIST_SIDE = 1


cdef uint64_t _splitmix64(uint64_t* s) noexcept nogil:
    s[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = s[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef void _init_zobrist() noexcept nogil:
    cdef uint64_t seed = 20261121
    cdef int pc, sq, c, pt
    for pc in range(32):
        for sq in range(81):
            ZOBRIST_BOARD[pc][sq] = _splitmix64(&seed) & ~(<uint64_t>1)
    for c in range(2):
        for pt in range(8):
            ZOBRIST_HAND[c][pt] = _splitmix64(&seed) & ~(<uint64_t>1)


_init_zobrist()

# ---- board edits ---------------------------------------------------------------------
cdef inline void _put(Pos* p, int sq, int pc) noexcept nogil:
    cdef bb_t b = bb_square(sq)
    p.board[sq] = pc
    p.by_color[piece_color(pc)] |= b
    p.by_type[piece_type(pc)] |= b
    p.occupied |= b


cdef inline void _remove(Pos* p, int sq) noexcept nogil:
    cdef int pc = p.board[sq]
    cdef bb_t b = ~bb_square(sq)
    p.board[sq] = EMPTY
    p.by_color[piece_color(pc)] &= b
    p.by_type[piece_type(pc)] &= b
    p.occupied &= b


cdef bint pos_reserve(Pos* p, int extra) noexcept nogil:
    """Make room for `extra` more states on the undo stack; False if out of memory."""
    cdef int want = p.sp + 1 + extra
    cdef int cap
    cdef StateInfo* grown
    if want <= p.capacity:
        return True
    cap = p.capacity * 2 if p.capacity else 256
    while cap < want:
        cap *= 2
    grown = <StateInfo*>realloc(p.stack, cap * sizeof(StateInfo))
    if grown == NULL:
        return False
    p.stack = grown
    p.capacity = cap
    return True


cdef inline bb_t _checkers_after(const Pos* p, int us, int to, int pc,
                                int frm) noexcept nogil:
    """The pieces of us that check the other king once pc stands on to, having left frm
    (-1 for a drop).  Their king was not in check before (it was our move), so only the
    moved piece can check directly, and only a slider on the line through frm can have
    been uncovered: the rest of the board needs no look."""
    cdef int ek = p.king_sq[us ^ 1]
    cdef bb_t checkers = 0, uncovered
    cdef int s
    if ek < 0:
        return 0
    if piece_attacks_square(pc, to, ek, p.occupied):
        checkers = bb_square(to)
    if frm >= 0:
        uncovered = usi_tables.line[ek][frm] & p.by_color[us] & sliders(p)
        while uncovered:
            s = bb_pop(&uncovered)
            if piece_attacks_square(p.board[s], s, ek, p.occupied):
                checkers |= bb_square(s)
    return checkers


cdef void pos_do_move(Pos* p, int m) noexcept nogil:
    """Play the legal move m.  The undo stack grows by itself when full (hot loops
    reserve ahead with pos_reserve so that they never reallocate in the middle)."""
    if p.sp + 1 >= p.capacity:
        pos_reserve(p, 256)
    cdef StateInfo* prev = &p.stack[p.sp]
    cdef StateInfo* st = &p.stack[p.sp + 1]
    cdef int us = p.side
    cdef int them = us ^ 1
    cdef int to = move_to(m)
    cdef uint64_t board_key = prev.board_key ^ ZOBRIST_SIDE
    cdef uint64_t hand_key = prev.hand_key
    cdef int pt, pc, frm, captured = EMPTY
    if move_is_drop(m):
        pt = move_dropped_type(m)
        pc = make_piece(us, pt)
        p.hand[us] -= hand_unit(pt)
        hand_key -= ZOBRIST_HAND[us][pt]
        _put(p, to, pc)
        board_key ^= ZOBRIST_BOARD[pc][to]
    else:
        frm = move_from(m)
        pc = p.board[frm]
        captured = p.board[to]
        if captured != EMPTY:
            _remove(p, to)
            board_key ^= ZOBRIST_BOARD[captured][to]
            pt = unpromoted(piece_type(captured))
            p.hand[us] += hand_unit(pt)
            hand_key += ZOBRIST_HAND[us][pt]
        _remove(p, frm)
        board_key ^= ZOBRIST_BOARD[pc][frm]
        if move_is_promotion(m):
            pc += PROMOTED
        _put(p, to, pc)
        board_key ^= ZOBRIST_BOARD[pc][to]
        if piece_type(pc) == KING:
            p.king_sq[us] = to
    p.side = them
    p.game_ply += 1
    p.sp += 1
    st.board_key = board_key
    st.hand_key = hand_key
    st.hand[0] = p.hand[0]
    st.hand[1] = p.hand[1]
    st.move = m
    st.captured = captured
    st.checkers = _checkers_after(p, us, to, pc, -1 if move_is_drop(m) else frm)
    st.continuous_check[us] = prev.continuous_check[us] + 2 if st.checkers else 0
    st.continuous_check[them] = prev.continuous_check[them]
    st.plies_from_null = prev.plies_from_null + 1


cdef uint64_t pos_board_key_after(const Pos* p, int m) noexcept nogil:
    """Board key (pieces and side, not hands) of the position after the legal move m."""
    cdef uint64_t key = p.stack[p.sp].board_key ^ ZOBRIST_SIDE
    cdef int to = move_to(m)
    cdef int frm, pc
    if move_is_drop(m):
        return key ^ ZOBRIST_BOARD[make_piece(p.side, move_dropped_type(m))][to]
    frm = move_from(m)
    pc = p.board[frm]
    if p.board[to] != EMPTY:
        key ^= ZOBRIST_BOARD[p.board[to]][to]
    key ^= ZOBRIST_BOARD[pc][frm]
    if move_is_promotion(m):
        pc += PROMOTED
    return key ^ ZOBRIST_BOARD[pc][to]


cdef uint64_t pos_key_after(const Pos* p, int m) noexcept nogil:
    """position_key of the position after the legal move m, without playing it (the
    search prefetches the move's table bucket while it still decides on the move)."""
    cdef uint64_t hand_key = p.stack[p.sp].hand_key
    cdef int captured
    if move_is_drop(m):
        hand_key -= ZOBRIST_HAND[p.side][move_dropped_type(m)]
    else:
        captured = p.board[move_to(m)]
        if captured != EMPTY:
            hand_key += ZOBRIST_HAND[p.side][unpromoted(piece_type(captured))]
    return pos_board_key_after(p, m) ^ hand_key


cdef void pos_do_null(Pos* p) noexcept nogil:
    """Pass the turn (for null-move pruning; never while in check)."""
    if p.sp + 1 >= p.capacity:
        pos_reserve(p, 256)
    cdef StateInfo* prev = &p.stack[p.sp]
    cdef StateInfo* st = &p.stack[p.sp + 1]
    memcpy(st, prev, sizeof(StateInfo))
    st.board_key ^= ZOBRIST_SIDE
    st.move = MOVE_NONE
    st.captured = EMPTY
    st.checkers = 0          # the side now to move cannot be in check: we were to move
    st.continuous_check[p.side] = 0
    st.plies_from_null = 0
    p.side ^= 1
    p.game_ply += 1
    p.sp += 1


cdef void pos_undo_null(Pos* p) noexcept nogil:
    p.sp -= 1
    p.side ^= 1
    p.game_ply -= 1


cdef void pos_undo_move(Pos* p) noexcept nogil:
    """Take back the last move played with pos_do_move."""
    cdef StateInfo* st = &p.stack[p.sp]
    cdef int m = st.move
    cdef int to = move_to(m)
    cdef int frm, pc
    p.sp -= 1
    p.side ^= 1
    p.game_ply -= 1
    cdef int us = p.side
    if move_is_drop(m):
        _remove(p, to)
    else:
        frm = move_from(m)
        pc = p.board[to]
        _remove(p, to)
        if move_is_promotion(m):
            pc -= PROMOTED
        _put(p, frm, pc)
        if piece_type(pc) == KING:
            p.king_sq[us] = frm
        if st.captured != EMPTY:
            _put(p, to, st.captured)
    p.hand[0] = p.stack[p.sp].hand[0]
    p.hand[1] = p.stack[p.sp].hand[1]


cdef int pos_repetition(const Pos* p, int max_distance) noexcept nogil:
    """Has this board (same side to move) occurred within max_distance plies?  The first
    recurrence is what a search needs: a draw, a win or loss when one side has been
    checking all along, or a gain/loss of material in hand on the same board."""
    cdef const StateInfo* st = &p.stack[p.sp]
    cdef const StateInfo* prev
    cdef int us = p.side
    cdef int end = max_distance if max_distance < p.sp else p.sp
    cdef int i
    if st.plies_from_null < end:
        end = st.plies_from_null
    for i in range(4, end + 1, 2):
        prev = &p.stack[p.sp - i]
        if prev.board_key != st.board_key:
            continue
        if prev.hand[us] == st.hand[us]:
            if st.continuous_check[us ^ 1] >= i:
                return REPETITION_WIN
            if st.continuous_check[us] >= i:
                return REPETITION_LOSE
            return REPETITION_DRAW
        if hand_covers(st.hand[us], prev.hand[us]):
            return REPETITION_SUPERIOR
        if hand_covers(prev.hand[us], st.hand[us]):
            return REPETITION_INFERIOR
    return REPETITION_NONE


cdef int pos_game_repetition(const Pos* p) noexcept nogil:
    """The game rule (sennichite): the fourth occurrence of a position ends the game in
    a draw, unless one side gave check with every move since the first occurrence;
    that side loses.  Returns REPETITION_NONE/DRAW/WIN/LOSE for the side to move."""
    cdef const StateInfo* st = &p.stack[p.sp]
    cdef const StateInfo* prev
    cdef int us = p.side
    cdef int seen = 0
    cdef int first = 0
    cdef int i
    for i in range(4, p.sp + 1, 2):
        prev = &p.stack[p.sp - i]
        if prev.board_key == st.board_key and prev.hand[us] == st.hand[us]:
            seen += 1
            first = i
    if seen < 3:
        return REPETITION_NONE
    if st.continuous_check[us ^ 1] >= first:
        return REPETITION_WIN
    if st.continuous_check[us] >= first:
        return REPETITION_LOSE
    return REPETITION_DRAW


cdef bint pos_declaration_win(const Pos* p) noexcept nogil:
    """Entering-king declaration under the CSA 27-point rule, for the side to move:
    king in the enemy camp and not in check, at least ten other pieces there, and
    (5 per bishop/rook, 1 per other piece, counting the camp and the hand) at least
    28 points for black or 27 for white."""
    return pos_declaration(p, EKR_27) == DECLARE_WIN


cdef inline int _piece_points(const Pos* p) noexcept nogil:
    """The points of every piece on the board (kings included, 1 each) and in both hands:
    56 in an even game, less in a handicap game."""
    cdef int c, points
    cdef uint32_t h
    cdef bb_t big = p.by_type[BISHOP] | p.by_type[ROOK] | p.by_type[HORSE] | p.by_type[DRAGON]
    points = bb_popcount(p.occupied) + 4 * bb_popcount(big)
    for c in range(2):
        h = p.hand[c]
        points += (hand_count(h, PAWN) + hand_count(h, LANCE) + hand_count(h, KNIGHT)
                   + hand_count(h, SILVER) + hand_count(h, GOLD))
        points += 5 * (hand_count(h, BISHOP) + hand_count(h, ROOK))
    return points


cdef int pos_declaration(const Pos* p, int rule) noexcept nogil:
    """Whether the side to move may declare under a points rule (EKR_24, EKR_24H,
    EKR_27, EKR_27H; DECLARE_NONE for the others): king in the enemy camp and not in
    check, at least ten other pieces there, and enough points (5 per bishop/rook, 1 per
    other piece, counting the camp and the hand): under the 27-point rule 28 for black
    and 27 for white win; under the 24-point rule 31 win and 24 to 30 draw.  The "H"
    rules are for handicap games (YaneuraOu's reading): white, the upper hand, needs the
    points of the pieces it gave up (56 less all the pieces' points) fewer."""
    cdef int us = p.side
    cdef int k = p.king_sq[us]
    cdef bb_t camp, big
    cdef int count, points, win, draw
    cdef uint32_t h = p.hand[us]
    if rule == EKR_27 or rule == EKR_27H:
        win = 28 if us == BLACK else 27
        draw = win
    elif rule == EKR_24 or rule == EKR_24H:
        win = 31
        draw = 24
    else:
        return DECLARE_NONE
    if k < 0 or not bb_test(usi_tables.zone[us], k) or p.stack[p.sp].checkers:
        return DECLARE_NONE
    camp = p.by_color[us] & usi_tables.zone[us] & ~bb_square(k)
    count = bb_popcount(camp)
    if count < 10:
        return DECLARE_NONE
    big = camp & (p.by_type[BISHOP] | p.by_type[ROOK] | p.by_type[HORSE] | p.by_type[DRAGON])
    points = count + 4 * bb_popcount(big)
    points += (hand_count(h, PAWN) + hand_count(h, LANCE) + hand_count(h, KNIGHT)
               + hand_count(h, SILVER) + hand_count(h, GOLD))
    points += 5 * (hand_count(h, BISHOP) + hand_count(h, ROOK))
    if us == WHITE and (rule == EKR_24H or rule == EKR_27H):
        points += 56 - _piece_points(p)
    if points >= win:
        return DECLARE_WIN
    if points >= draw:
        return DECLARE_DRAW
    return DECLARE_NONE


cdef inline int _try_square(int color) noexcept nogil:
    """The square the enemy king starts on: 5a for black's king, 5i for white's."""
    return 4 * 9 + (0 if color == BLACK else 8)


cdef int pos_try_move(const Pos* p) noexcept nogil:
    """Under the try rule: the side to move's king move onto the enemy king's starting
    square (5a for black, 5i for white), which wins at once, when it is legal (adjacent,
    not onto our own piece, not into an attack); else 0."""
    cdef int us = p.side
    cdef int k = p.king_sq[us]
    cdef int t = _try_square(us)
    if k < 0 or not bb_test(usi_tables.step[KING][k], t) or bb_test(p.by_color[us], t):
        return 0
    if is_attacked(p, us ^ 1, t, p.occupied & ~bb_square(k)):
        return 0
    return make_move(k, t, False)


cdef bint pos_tried(const Pos* p, int color) noexcept nogil:
    """The king of `color` stands on the enemy king's starting square (a won try)."""
    return p.king_sq[color] == _try_square(color)


cdef int pos_copy(Pos* dst, const Pos* src) noexcept nogil:
    """Deep-copy src into dst (dst's old stack is freed).  Returns 0, or -1 when out of
    memory (dst is then empty)."""
    cdef StateInfo* stack = <StateInfo*>malloc(src.capacity * sizeof(StateInfo))
    if dst.stack != NULL and dst.stack != src.stack:
        free(dst.stack)
    if stack == NULL:
        memset(dst, 0, sizeof(Pos))
        return -1
    memcpy(dst, src, sizeof(Pos))
    memcpy(stack, src.stack, (src.sp + 1) * sizeof(StateInfo))
    dst.stack = stack
    return 0


cdef void pos_free(Pos* p) noexcept nogil:
    free(p.stack)
    p.stack = NULL
    p.capacity = 0
    p.sp = 0


cdef uint64_t pos_perft(Pos* p, int depth, Control* c) noexcept nogil:
    """Leaf count at depth; the last ply is counted by list length (bulk counting).
    Nodes 2 or more plies from the leaves are counted on c (if not NULL), which polls
    stop and Ctrl-C: once it is aborted the count is cut short."""
    cdef int moves[MAX_MOVES]
    cdef int n, i
    cdef uint64_t total = 0
    if depth <= 0:
        return 1
    n = generate(p, moves, GEN_LEGAL)
    if depth == 1:
        return n
    if c != NULL and depth >= 2:
        ctl_count(c)
    for i in range(n):
        if c != NULL and c.aborted:
            break
        pos_do_move(p, moves[i])
        total += pos_perft(p, depth - 1, c)
        pos_undo_move(p)
    return total


cdef void _compute_root_state(Pos* p) noexcept nogil:
    """Fill stack[0] from the pieces and hands already placed on p."""
    cdef StateInfo* st = &p.stack[0]
    cdef uint64_t board_key = ZOBRIST_SIDE if p.side == WHITE else 0
    cdef uint64_t hand_key = 0
    cdef int sq, c, pt
    for sq in range(81):
        if p.board[sq] != EMPTY:
            board_key ^= ZOBRIST_BOARD[p.board[sq]][sq]
    for c in range(2):
        for pt in range(PAWN, KING):
            hand_key += ZOBRIST_HAND[c][pt] * <uint64_t>hand_count(p.hand[c], pt)
    p.sp = 0
    st.board_key = board_key
    st.hand_key = hand_key
    st.hand[0] = p.hand[0]
    st.hand[1] = p.hand[1]
    st.move = MOVE_NONE
    st.captured = EMPTY
    st.continuous_check[0] = 0
    st.continuous_check[1] = 0
    st.plies_from_null = 0
    if p.king_sq[p.side] >= 0:
        st.checkers = attackers_to(p, p.side ^ 1, p.king_sq[p.side], p.occupied)
    else:
        st.checkers = 0


include "position_text.pxi"


cdef inline bint _small_move(object move):
    """True for an int that fits a move value (moves are 15-bit)."""
    if type(move) is int or isinstance(move, int):
        return 0 < move <= 0x7FFF
    return False


# ---- the Python API ------------------------------------------------------------------------
cdef list _move_list(const int* moves, int n):
    cdef list out = PyList_New(n)
    cdef object obj
    cdef int i
    for i in range(n):
        obj = _MOVE_OBJECTS[moves[i]]
        Py_INCREF(obj)
        PyList_SET_ITEM(out, i, obj)
    return out


BLACK_COLOR = BLACK
WHITE_COLOR = WHITE

REPETITION_NAMES = {
    REPETITION_NONE: "none", REPETITION_DRAW: "draw", REPETITION_WIN: "win",
    REPETITION_LOSE: "lose", REPETITION_SUPERIOR: "superior", REPETITION_INFERIOR: "inferior",
}


#: EnteringKingRule values, in the order of core/position.pxd's EKR_ codes.
ENTERING_KING_RULES = ("NoEnteringKing", "CSARule24", "CSARule24H", "CSARule27",
                       "CSARule27H", "TryRule")
DECLARATION_NAMES = ("none", "win", "draw")


def _rule_code(rule) -> int:
    """The EKR_ code of an EnteringKingRule value (a name, any case; True: CSARule27,
    False: NoEnteringKing); ValueError otherwise."""
    if rule is True:
        return EKR_27
    if rule is False or rule is None:
        return EKR_NONE
    for code, name in enumerate(ENTERING_KING_RULES):
        if str(rule).lower() == name.lower():
            return code
    raise ValueError(f"unknown entering-king rule {rule!r}; expected one of "
                     + " ".join(ENTERING_KING_RULES))


cdef class Position:
    """Position(sfen=None)
--

A shogi position with its move history.

    `sfen` is an SFEN (``board side hand [move number]``), or the text that follows
    USI's ``position``: ``startpos`` or ``sfen <SFEN>``, optionally followed by
    ``moves m1 m2 ...`` (played in turn, so the history is kept); None is the start
    position.  One side may lack its king (a tsume's attacker), not both.

    Moves are plain ints (see `move_to_usi`/`usi_to_move`).  Construction, `push`,
    `push_usi` and `set_sfen` validate their input and raise ValueError naming what
    was wrong, leaving the position unchanged.  Positions pickle and deep-copy with
    their history.

    >>> pos = Position()                       # the standard start position
    >>> m = pos.parse_usi("2g2f")
    >>> pos.push(m); pos.turn                  # 1 = white to move
    1
    >>> pos.pop() == m
    True
    >>> Position("8k/9/9/9/9/9/9/9/9 b G 1").perft(1)   # tsume: no attacking king
    80
    >>> Position("startpos moves 7g7f 3c3d").history_length
    2
    """

    def __cinit__(self):
        memset(&self.pos, 0, sizeof(Pos))
        if not pos_reserve(&self.pos, 255):
            raise MemoryError()

    def __init__(self, sfen: str | None = None):
        """Set up from an SFEN, ``startpos``/``sfen <SFEN>`` [``moves ...``], or None."""
        self.set_sfen(STARTPOS_SFEN if sfen is None else sfen)

    def __dealloc__(self):
        pos_free(&self.pos)

    cdef void _set_from(self, const Pos* src) noexcept:
        pos_copy(&self.pos, src)

    # -- setting up ---------------------------------------------------------------------
    def set_sfen(self, str sfen) -> None:
        """Replace the position and its history with the SFEN text (or ``startpos`` /
        ``sfen <SFEN>``, each optionally followed by ``moves m1 m2 ...``)."""
        cdef Pos scratch
        if not isinstance(sfen, str):
            raise ValueError(f"sfen must be a string, not {type(sfen).__name__}")
        memset(&scratch, 0, sizeof(Pos))
        if not pos_reserve(&scratch, 255):
            raise MemoryError()
        try:
            _parse_position_into(&scratch, sfen)
        except Exception:
            pos_free(&scratch)
            raise
        pos_free(&self.pos)
        self.pos = scratch          # takes ownership of scratch's stack

    def sfen(self) -> str:
        """The position as SFEN, with hands in canonical order and the move number."""
        return _format_sfen(&self.pos)

    def copy(self) -> Position:
        """An independent copy, history included."""
        cdef Position other = Position.__new__(Position)
        if pos_copy(&other.pos, &self.pos) != 0:
            raise MemoryError()
        return other

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo) -> Position:
        return self.copy()

    def __reduce__(self):
        """Pickle as the starting SFEN and the moves played since (the history counts
        for repetitions)."""
        return (Position, (self.usi_position(),))

    def usi_position(self) -> str:
        """``sfen <starting SFEN> [moves m1 m2 ...]``: the text of a USI ``position``
        command (without the word) that rebuilds this position with its history;
        ``Position(pos.usi_position())`` equals pos, history included."""
        cdef Position root = self.copy()
        moves = []
        while root.pos.sp > 0:
            moves.append(move_to_usi(root.pos.stack[root.pos.sp].move))
            pos_undo_move(&root.pos)
        text = "sfen " + root.sfen()
        if moves:
            text += " moves " + " ".join(reversed(moves))
        return text

    # -- state -----------------------------------------------------------------------------
    @property
    def turn(self) -> int:
        """Colour to move: 0 black (sente), 1 white (gote)."""
        return self.pos.side

    @property
    def ply(self) -> int:
        """The SFEN move number of this position (1 at the start of a game)."""
        return self.pos.game_ply

    @property
    def key(self) -> int:
        """64-bit Zobrist key of board, hands and side to move (bit 0 = side)."""
        return position_key(&self.pos)

    @property
    def history_length(self) -> int:
        """How many moves have been pushed since the position was set."""
        return self.pos.sp

    def piece_at(self, int sq) -> int:
        """Piece code on square index sq (0 empty; type | colour << 4)."""
        if not 0 <= sq < 81:
            raise ValueError(f"square index out of range: {sq}")
        return self.pos.board[sq]

    def hand(self, int color) -> dict:
        """Pieces held by colour as {letter: count}, e.g. {'P': 2, 'B': 1}."""
        if color not in (BLACK, WHITE):
            raise ValueError(f"colour must be 0 or 1, not {color}")
        return {_SFEN_LETTERS[pt - 1]: hand_count(self.pos.hand[color], pt)
                for pt in range(PAWN, KING) if hand_count(self.pos.hand[color], pt)}

    def king_square(self, int color) -> int:
        """Square index of that colour's king, or -1 when it has none."""
        return self.pos.king_sq[color & 1]

    def is_check(self) -> bool:
        """Is the side to move in check?"""
        return in_check(&self.pos)

    def is_checkmate(self) -> bool:
        """In check with no legal move (a pawn-drop mate cannot arise: it is illegal)."""
        return in_check(&self.pos) and not has_legal_move(&self.pos)

    def has_evasion(self) -> bool:
        """In check: is there any legal reply?  (Same answer as bool(legal_moves()),
        found faster.)"""
        return has_evasion(&self.pos)

    def is_stalemate(self) -> bool:
        """No legal move while not in check (the side to move loses in shogi)."""
        return not in_check(&self.pos) and not has_legal_move(&self.pos)

    def repetition(self, int max_distance=1 << 30) -> str:
        """First-recurrence status looking back max_distance plies: 'none', 'draw',
        'win'/'lose' (perpetual check by the opponent/us), 'superior'/'inferior'."""
        return REPETITION_NAMES[pos_repetition(&self.pos, max_distance)]

    def game_repetition(self) -> str:
        """Sennichite under the game rule (fourth occurrence): 'none', 'draw', or
        'win'/'lose' for the side to move when one side checked throughout."""
        return REPETITION_NAMES[pos_game_repetition(&self.pos)]

    def declaration_win(self, rule: str = "CSARule27") -> bool:
        """Can the side to move declare a win under an entering-king rule (by default the
        CSA 27-point rule; see `declaration`)?"""
        return self.declaration(rule) == "win"

    def declaration(self, rule: str = "CSARule27") -> str:
        """What the side to move may declare under `rule` (an EnteringKingRule value:
        NoEnteringKing, CSARule24, CSARule24H, CSARule27, CSARule27H, TryRule): 'win',
        'draw' (the 24-point rule's 24 to 30 points) or 'none'.  Under TryRule, 'win'
        when the king can step onto the enemy king's starting square (`try_move`)."""
        code = _rule_code(rule)
        if code == EKR_TRY:
            return "win" if pos_try_move(&self.pos) else "none"
        return DECLARATION_NAMES[pos_declaration(&self.pos, code)]

    def try_move(self) -> int:
        """The king move that wins under the try rule (onto 5a for black, 5i for white),
        or 0."""
        return pos_try_move(&self.pos)

    # -- moves ------------------------------------------------------------------------------
    def legal_moves(self) -> list:
        """Every legal move, as ints."""
        cdef int moves[MAX_MOVES]
        cdef int n = generate(&self.pos, moves, GEN_LEGAL)
        return _move_list(moves, n)

    def captures(self) -> list:
        """Legal moves that capture or promote."""
        cdef int moves[MAX_MOVES]
        return _move_list(moves, generate(&self.pos, moves, GEN_CAPTURES))

    def quiets(self) -> list:
        """Legal moves that neither capture nor promote (drops included)."""
        cdef int moves[MAX_MOVES]
        return _move_list(moves, generate(&self.pos, moves, GEN_QUIETS))

    def evasions(self) -> list:
        """The legal moves when in check; empty when not in check."""
        cdef int moves[MAX_MOVES]
        return _move_list(moves, generate(&self.pos, moves, GEN_EVASIONS))

    def checks(self) -> list:
        """Legal moves that give check."""
        cdef int moves[MAX_MOVES]
        return _move_list(moves, generate(&self.pos, moves, GEN_CHECKS))

    def is_legal(self, move) -> bool:
        """Is the move value legal here?  Any int is safe to ask about."""
        return _small_move(move) and is_legal(&self.pos, move)

    def gives_check(self, move) -> bool:
        """Does the legal move give check?  ValueError if it is not legal."""
        if not self.is_legal(move):
            raise ValueError(f"illegal move {move}")
        return gives_check(&self.pos, move)

    def _gives_check_by_check_info(self, move) -> bool:
        """gives_check the way the search asks it at nodes with many moves (the
        node's check squares and discoverers worked out first): for the tests that
        hold the two ways to the same answers.  ValueError if the move is not legal."""
        cdef CheckInfo ci
        if not self.is_legal(move):
            raise ValueError(f"illegal move {move}")
        check_info_init(&self.pos, &ci)
        return gives_check_by(&self.pos, &ci, move)

    def key_after(self, move) -> int:
        """The key the position will have after the legal move, without playing it
        (the search prefetches the table entry of a move this way).  ValueError if the
        move is not legal.

        >>> p = Position(); m = p.parse_usi("7g7f"); k = p.key_after(m); p.push(m)
        >>> p.key == k
        True
        """
        if not self.is_legal(move):
            raise ValueError(f"illegal move {move}")
        return pos_key_after(&self.pos, move)

    def parse_usi(self, str text) -> int:
        """The legal move written as USI text; ValueError if malformed or illegal."""
        cdef int m = usi_to_move(text)
        if not is_legal(&self.pos, m):
            raise ValueError(f"illegal move {text!r} in {self.sfen()}")
        return m

    def push(self, move) -> None:
        """Play a legal move; ValueError (position unchanged) if it is not legal."""
        if not (_small_move(move) and is_legal(&self.pos, move)):
            raise ValueError(f"illegal move {move} in {self.sfen()}")
        if self.pos.sp + 1 >= self.pos.capacity and not pos_reserve(&self.pos, 1):
            raise MemoryError()
        pos_do_move(&self.pos, move)

    def push_usi(self, str text) -> int:
        """Play a move given as USI text and return its value."""
        cdef int m = self.parse_usi(text)
        if not pos_reserve(&self.pos, 1):
            raise MemoryError()
        pos_do_move(&self.pos, m)
        return m

    def pop(self) -> int:
        """Take back the last move and return it; IndexError when there is none."""
        if self.pos.sp == 0:
            raise IndexError("pop from a position with no moves played")
        cdef int m = self.pos.stack[self.pos.sp].move
        pos_undo_move(&self.pos)
        return m

    def move_to_usi(self, int move) -> str:
        return move_to_usi(move)

    def perft(self, int depth) -> int:
        """Number of leaf positions depth plies ahead (legal moves only)."""
        if depth < 0:
            raise ValueError(f"perft depth must be >= 0, got {depth}")
        if not pos_reserve(&self.pos, depth + 1):
            raise MemoryError()
        cdef uint64_t n
        cdef Control control
        memset(&control, 0, sizeof(Control))
        ctl_start(&control, 0, threading.current_thread() is threading.main_thread())
        with nogil:
            n = pos_perft(&self.pos, depth, &control)
        ctl_raise_pending(&control)      # Ctrl-C: KeyboardInterrupt
        return n

    def divide(self, int depth) -> dict:
        """{usi move: perft(depth - 1) after it} for each legal move (depth >= 1)."""
        if depth < 1:
            raise ValueError(f"divide depth must be >= 1, got {depth}")
        result = {}
        for m in self.legal_moves():
            pos_do_move(&self.pos, m)
            result[move_to_usi(m)] = self.perft(depth - 1)
            pos_undo_move(&self.pos)
        return result

    # -- display -----------------------------------------------------------------------------
    def __str__(self) -> str:
        lines = ["white hand: " + _hand_text(self.pos.hand[WHITE], WHITE),
                 "   9  8  7  6  5  4  3  2  1",
                 "  +--------------------------+"]
        for r in range(9):
            cells = []
            for f in range(8, -1, -1):
                pc = self.pos.board[make_square(f, r)]
                cells.append(" ." if pc == EMPTY else _piece_text(pc).rjust(2))
            lines.append(f"{_RANKS[r]} |" + " ".join(cells) + " |")
        lines.append("  +--------------------------+")
        lines.append("black hand: " + _hand_text(self.pos.hand[BLACK], BLACK))
        lines.append("{} to move, move {}{}".format(
            "black" if self.pos.side == BLACK else "white", self.pos.game_ply,
            ", in check" if in_check(&self.pos) else ""))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Position({self.sfen()!r})"

    def __eq__(self, other):
        if not isinstance(other, Position):
            return NotImplemented
        return self.sfen().rsplit(" ", 1)[0] == other.sfen().rsplit(" ", 1)[0]

    def __hash__(self):
        return self.key
