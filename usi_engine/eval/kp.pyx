# cython: language_level=3
"""The learned king-piece (KP) evaluation: features, the installed weights and the
per-ply incremental sums the search keeps.

Each king sees the board from its own side (white's view is the board turned round),
mirrored left-right when it stands on files 6-9 (shogi's rules are symmetric, so the
45 king squares of files 1-5 index the table).  Its features are every other piece on
the board by kind and square (13 own kinds, 13 enemy kinds, the enemy king) and both
hands as counts ("the i-th pawn in my hand").  With weights w, a position scores

    sum of w[black king's bucket, f] over black's view
  - sum of w[white king's bucket, f] over white's view

for black, in 1/8 centipawn (the same table serves both views, so the evaluation is
colour-symmetric by construction).  A move changes a few features of each view, so a
search updates both sums per ply (`kp_update`); only a king move recomputes that
king's view (`kp_refresh`).

Optionally a small network sits on top of the table (`Network(..., first=...)`): each king's view
also has an accumulator of NET_HIDDEN int16, the first layer's bias plus one row per
active feature, updated by the same few rows per move as the sums; the network adds
sum of w * clip(acc, 0, 1)^2 over both accumulators (the side to move's first).

The weight file formats and the training live in `usi_engine.eval.weights`,
`usi_engine.training.learn` and `usi_engine.training.learn_net`; this module holds what runs in the search.

    >>> import numpy as np
    >>> from usi_engine.eval import kp
    >>> kp.Network(np.zeros(kp.WEIGHT_COUNT, dtype=np.int16)).evaluate(
    ...     "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    0
"""
cimport cython
import numpy as np

from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint32_t
from libc.string cimport memcmp, memcpy, memset
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport (Pos, Position, hand_count, pos_do_move, pos_undo_move,
                                  pos_copy, pos_free, pos_reserve)
from usi_engine.core.movegen cimport generate, GEN_LEGAL
from usi_engine.eval.walk cimport random_walk, WALK_MAX_PLIES
from libc.stdlib cimport malloc, free

init_tables()

WEIGHT_COUNT = KP_WEIGHTS
FEATURES_PER_BUCKET = KP_FEATURES
KING_BUCKETS = KP_KING_BUCKETS
SCALE = KP_SCALE
MAX_ACTIVE = KP_MAX_ACTIVE
HAND_SLOTS = KP_HAND_SLOTS
HIDDEN = NET_HIDDEN
QA = NET_QA
QB = NET_QB

# VIEW_SQ[c][m][sq]: sq as king colour c sees it (turned round for white), mirrored
# left-right when m.  KING_MIRROR[c][k]: whether a king of colour c on k mirrors.
cdef uint8_t VIEW_SQ[2][2][81]
cdef uint8_t KING_MIRROR[2][81]
# KIND[c][piece code]: the feature kind of that piece in c's view; -1 for c's own king
# and for empty squares.
cdef int KIND[2][32]
# HAND_OFFSET[pt]: where piece type pt's counts start among one hand's 38 slots.
cdef int HAND_OFFSET[8]



cdef void _init_tables() noexcept nogil:
    cdef int c, m, sq, o, f, r, pt, owner
    # kinds 0..12: P L N S B R G +P +L +N +S +B +R of the viewer; 13..25 the enemy's
    cdef int type_index[16]
    for pt in range(16):
        type_index[pt] = -1
    type_index[PAWN] = 0
    type_index[LANCE] = 1
    type_index[KNIGHT] = 2
    type_index[SILVER] = 3
    type_index[BISHOP] = 4
    type_index[ROOK] = 5
    type_index[GOLD] = 6
    for pt in range(PRO_PAWN, DRAGON + 1):
        type_index[pt] = 7 + pt - PRO_PAWN
    for c in range(2):
        for sq in range(81):
            o = sq if c == BLACK else 80 - sq
            KING_MIRROR[c][sq] = square_file(o) > 4
            VIEW_SQ[c][0][sq] = o
            f = square_file(o)
            r = square_rank(o)
            VIEW_SQ[c][1][sq] = make_square(8 - f, r)
        for pt in range(32):
            KIND[c][pt] = -1
        for owner in range(2):
            for pt in range(1, 16):
                if type_index[pt] >= 0:
                    KIND[c][make_piece(owner, pt)] = type_index[pt] + (13 if owner != c else 0)
        KIND[c][make_piece(c ^ 1, KING)] = 26
    HAND_OFFSET[0] = 0
    HAND_OFFSET[PAWN] = 0
    HAND_OFFSET[LANCE] = 18
    HAND_OFFSET[KNIGHT] = 22
    HAND_OFFSET[SILVER] = 26
    HAND_OFFSET[GOLD] = 30
    HAND_OFFSET[BISHOP] = 34
    HAND_OFFSET[ROOK] = 36


_init_tables()


cdef inline int _hand_feature(int viewer, int owner, int pt, int i) noexcept nogil:
    """The i-th (0-based) piece of type pt in owner's hand, in viewer's view."""
    return KP_HAND_BASE + (KP_HAND_SLOTS if owner != viewer else 0) + HAND_OFFSET[pt] + i


cdef inline int _board_feature(int viewer, int mirror, int pc, int sq) noexcept nogil:
    return KIND[viewer][pc] * 81 + VIEW_SQ[viewer][mirror][sq]


cdef int _view_features(const uint8_t* board, const uint8_t* hands, int viewer, int king,
                        int32_t* out) noexcept nogil:
    """Global weight indices of viewer's active features (king: viewer's king square);
    hands[owner * 8 + pt] are the counts.  Returns how many were written."""
    cdef int mirror = KING_MIRROR[viewer][king]
    cdef int base = VIEW_SQ[viewer][mirror][king] * KP_FEATURES
    cdef int n = 0, sq, pc, owner, pt, i
    for sq in range(81):
        pc = board[sq]
        if pc == EMPTY or KIND[viewer][pc] < 0:
            continue
        out[n] = base + _board_feature(viewer, mirror, pc, sq)
        n += 1
    for owner in range(2):
        for pt in range(PAWN, KING):
            for i in range(hands[owner * 8 + pt]):
                out[n] = base + _hand_feature(viewer, owner, pt, i)
                n += 1
    return n


cdef inline void _feature(const KPNet* net, int index, int sign, int32_t* s,
                          int16_t* acc) noexcept nogil:
    """Add (sign 1) or take away (sign -1) the feature at global index to one view's
    sum and, with a network, its accumulator (a row of NET_HIDDEN int16: vectorised)."""
    cdef const int16_t* row
    cdef int i
    s[0] += sign * net.kp[index]
    if net.ft != NULL:
        row = net.ft + <Py_ssize_t>index * NET_HIDDEN
        if sign > 0:
            for i in range(NET_HIDDEN):
                acc[i] = <int16_t>(acc[i] + row[i])
        else:
            for i in range(NET_HIDDEN):
                acc[i] = <int16_t>(acc[i] - row[i])


cdef void _view_refresh(const Pos* p, const KPNet* net, int viewer, KPAcc* out) noexcept nogil:
    """One king's sum and accumulator from scratch (0 when that king is absent)."""
    cdef int king = p.king_sq[viewer]
    cdef int16_t* acc = out.acc[viewer]
    cdef int32_t s = 0
    cdef int i
    if net.ft != NULL:
        for i in range(NET_HIDDEN):
            acc[i] = net.ft_bias[i] if king >= 0 else 0
    out.sum[viewer] = 0
    if king < 0:
        return
    cdef int mirror = KING_MIRROR[viewer][king]
    cdef int base = VIEW_SQ[viewer][mirror][king] * KP_FEATURES
    cdef bb_t b = p.occupied
    cdef int sq, pc, owner, pt, n, first
    while b:
        sq = bb_pop(&b)
        pc = p.board[sq]
        if KIND[viewer][pc] >= 0:
            _feature(net, base + _board_feature(viewer, mirror, pc, sq), 1, &s, acc)
    for owner in range(2):
        for pt in range(PAWN, KING):
            n = hand_count(p.hand[owner], pt)
            first = base + _hand_feature(viewer, owner, pt, 0)
            for i in range(n):
                _feature(net, first + i, 1, &s, acc)
    out.sum[viewer] = s


cdef void kp_refresh(const Pos* p, const KPNet* net, KPAcc* acc) noexcept nogil:
    _view_refresh(p, net, BLACK, acc)
    _view_refresh(p, net, WHITE, acc)


cdef void kp_update(const Pos* p, const KPNet* net, const KPAcc* parent,
                    KPAcc* child) noexcept nogil:
    """child = parent's sums after the move that led to p (p.stack[p.sp].move)."""
    cdef int m = p.stack[p.sp].move
    cdef int captured = p.stack[p.sp].captured
    cdef int us = p.side ^ 1
    cdef int to = move_to(m)
    cdef int after = p.board[to]
    cdef int before, frm, pt, n, viewer, king, mirror, base
    cdef int16_t* acc
    cdef int32_t s
    for viewer in range(2):
        king = p.king_sq[viewer]
        if king < 0 or (viewer == us and piece_type(after) == KING):
            _view_refresh(p, net, viewer, child)
            continue
        mirror = KING_MIRROR[viewer][king]
        base = VIEW_SQ[viewer][mirror][king] * KP_FEATURES
        acc = child.acc[viewer]
        if net.ft != NULL:
            memcpy(acc, parent.acc[viewer], NET_HIDDEN * sizeof(int16_t))
        s = parent.sum[viewer]
        _feature(net, base + _board_feature(viewer, mirror, after, to), 1, &s, acc)
        if move_is_drop(m):
            pt = move_from(m) - MOVE_DROP_BASE
            n = hand_count(p.hand[us], pt)          # the dropped one was the (n+1)-th
            _feature(net, base + _hand_feature(viewer, us, pt, n), -1, &s, acc)
        else:
            frm = move_from(m)
            before = after - PROMOTED if move_is_promotion(m) else after
            _feature(net, base + _board_feature(viewer, mirror, before, frm), -1, &s, acc)
            if captured != EMPTY:
                _feature(net, base + _board_feature(viewer, mirror, captured, to), -1, &s, acc)
                pt = unpromoted(piece_type(captured))
                n = hand_count(p.hand[us], pt)      # the captured one is the n-th
                _feature(net, base + _hand_feature(viewer, us, pt, n - 1), 1, &s, acc)
        child.sum[viewer] = s


@cython.cdivision(True)
cdef int _net_output(const KPNet* net, const int16_t* mine, const int16_t* theirs) noexcept nogil:
    """The network's term in centipawns for the side whose accumulator is `mine`:
    sum of out_w * clip(acc, 0, QA)^2 over both, plus the bias, in int64 (no overflow
    whatever the weights), rounded towards zero."""
    cdef int64_t total = <int64_t>net.out_bias * (NET_QA * NET_QA)
    cdef int32_t part = 0
    cdef int i, x
    for i in range(NET_HIDDEN):
        x = mine[i]
        x = 0 if x < 0 else (NET_QA if x > NET_QA else x)
        total += <int64_t>(net.out_w[i] * (x * x))
        x = theirs[i]
        x = 0 if x < 0 else (NET_QA if x > NET_QA else x)
        total += <int64_t>(net.out_w[NET_HIDDEN + i] * (x * x))
    return <int>(total // (NET_QA * NET_QA * NET_QB))


@cython.cdivision(True)
cdef int kp_value(const Pos* p, const KPNet* net, const KPAcc* acc) noexcept nogil:
    """Centipawns for the side to move (C division: rounded towards zero, so that a
    position and its colour-flipped twin score exactly opposite)."""
    cdef int32_t s = acc.sum[BLACK] - acc.sum[WHITE]
    cdef int v = (s if p.side == BLACK else -s) // KP_SCALE
    if net.ft != NULL:
        v += _net_output(net, acc.acc[p.side], acc.acc[p.side ^ 1])
    return v


# ---- Python API -----------------------------------------------------------------------

def _int16(values, count: int, what: str) -> np.ndarray:
    arr = np.ascontiguousarray(values, dtype=np.int16).reshape(-1).copy()
    if arr.shape[0] != count:
        raise ValueError(f"{what} has {count} values, not {arr.shape[0]}")
    return arr


cdef class Network:
    """Weights of the learned evaluation: a KP table (WEIGHT_COUNT int16 in 1/8 cp)
    and, when `first` is given, the network on top of it: first layer int16
    [WEIGHT_COUNT, HIDDEN] (QA is 1.0), its bias [HIDDEN], the output weights
    [2 * HIDDEN] in 1/QB cp (the side to move's king's half first) and the output
    bias in 1/QB cp.  A `Searcher` searches with the Network it is given
    (`Searcher.set_evaluation`); the arrays are copied and never change, so one
    Network may serve several searchers at once.

    >>> import numpy as np
    >>> net = Network(np.zeros(WEIGHT_COUNT, dtype=np.int16))
    >>> net.evaluate("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    0
    """

    def __init__(self, weights, first=None, first_bias=None, out=None, int out_bias=0):
        cdef const int16_t[::1] kv, fv, bv, ov
        arrays = {"kp": _int16(weights, KP_WEIGHTS, "a KP table")}
        if first is not None:
            if first_bias is None or out is None:
                raise ValueError("a network needs its first layer, its bias and its output")
            arrays["first"] = _int16(first, KP_WEIGHTS * NET_HIDDEN, "the first layer")
            arrays["first_bias"] = _int16(first_bias, NET_HIDDEN, "the first layer's bias")
            arrays["out"] = _int16(out, 2 * NET_HIDDEN, "the output layer")
        for array in arrays.values():
            array.flags.writeable = False
        kv = arrays["kp"]
        self.net.kp = &kv[0]
        self.net.ft = NULL
        self.net.ft_bias = NULL
        self.net.out_w = NULL
        self.net.out_bias = out_bias
        if first is not None:
            fv = arrays["first"]
            bv = arrays["first_bias"]
            ov = arrays["out"]
            self.net.ft = &fv[0]
            self.net.ft_bias = &bv[0]
            self.net.out_w = &ov[0]
        self.arrays = arrays

    @property
    def has_net(self) -> bool:
        """Whether the weights include the network on top of the table."""
        return self.net.ft != NULL

    @property
    def out_bias(self) -> int:
        """The output layer's bias in 1/QB cp (0 without a network)."""
        return self.net.out_bias

    def table(self) -> np.ndarray:
        """A copy of the KP table."""
        return self.arrays["kp"].copy()

    def array(self, name: str) -> np.ndarray:
        """A copy of one part: "kp", and with a network "first", "first_bias", "out"."""
        return self.arrays[name].copy()

    def evaluate(self, str sfen) -> int:
        """The score of a position (any `Position` text) for the side to move, in
        centipawns, computed from scratch."""
        cdef Position pos = Position(sfen)
        cdef KPAcc acc
        kp_refresh(&pos.pos, &self.net, &acc)
        return kp_value(&pos.pos, &self.net, &acc)

    def incremental_check(self, str sfen, int plies, unsigned int seed) -> dict:
        """Random legal walk of `plies` moves from `sfen` (with undos mixed in),
        comparing the incrementally updated sums with a from-scratch sum after every
        move and undo.  Returns a dict: checks, mismatches, and how many moves of each
        kind were made (drops, captures, promotions, king_moves)."""
        return _incremental_check(&self.net, sfen, plies, seed)


def features(board: np.ndarray, hands: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Active weight indices of n positions given as arrays (board uint8[n,81] of piece
    codes, hands uint8[n,2,8] of counts by piece type, side uint8[n]): an int32 array
    [n, 2, MAX_ACTIVE], [:, 0] the black king's view and [:, 1] the white king's,
    padded with WEIGHT_COUNT (a view whose king is absent is all padding)."""
    cdef const uint8_t[:, ::1] b = np.ascontiguousarray(board, dtype=np.uint8)
    cdef const uint8_t[:, :, ::1] h = np.ascontiguousarray(hands, dtype=np.uint8)
    cdef Py_ssize_t n = b.shape[0]
    if b.shape[1] != 81 or h.shape[0] != n or h.shape[1] != 2 or h.shape[2] != 8:
        raise ValueError("expected board [n, 81] and hands [n, 2, 8]")
    out = np.full((n, 2, KP_MAX_ACTIVE), KP_WEIGHTS, dtype=np.int32)
    cdef int32_t[:, :, ::1] o = out
    cdef Py_ssize_t i
    cdef int viewer, sq, king, pt, total
    cdef int32_t* dst
    cdef int limit[8]
    limit[:] = [0, 18, 4, 4, 4, 2, 2, 4]
    for i in range(n):
        for pt in range(PAWN, KING):
            if h[i, 0, pt] > limit[pt] or h[i, 1, pt] > limit[pt]:
                raise ValueError(f"position {i}: too many pieces of type {pt} in hand")
        for sq in range(81):
            if b[i, sq] >= 32:
                raise ValueError(f"position {i}: bad piece code {b[i, sq]} on square {sq}")
    with nogil:
        for i in range(n):
            for viewer in range(2):
                king = -1
                for sq in range(81):
                    if b[i, sq] == make_piece(viewer, KING):
                        king = sq
                        break
                if king < 0:
                    continue
                dst = &o[i, viewer, 0]
                _view_features(&b[i, 0], &h[i, 0, 0], viewer, king, dst)
    return out


cdef struct _WalkSums:
    const KPNet* net
    KPAcc acc[WALK_MAX_PLIES + 1]


cdef void _walk_update(void* sums, const Pos* p, int ply) noexcept nogil:
    cdef _WalkSums* s = <_WalkSums*>sums
    if ply == 0:
        kp_refresh(p, s.net, &s.acc[0])
    else:
        kp_update(p, s.net, &s.acc[ply - 1], &s.acc[ply])


cdef bint _walk_agrees(void* sums, const Pos* p, int ply) noexcept nogil:
    cdef _WalkSums* s = <_WalkSums*>sums
    cdef KPAcc fresh
    kp_refresh(p, s.net, &fresh)
    return (fresh.sum[0] == s.acc[ply].sum[0] and fresh.sum[1] == s.acc[ply].sum[1]
            and (s.net.ft == NULL or memcmp(fresh.acc, s.acc[ply].acc, sizeof(fresh.acc)) == 0))


cdef dict _incremental_check(const KPNet* net, str sfen, int plies, unsigned int seed):
    cdef _WalkSums* sums = <_WalkSums*>malloc(sizeof(_WalkSums))
    if sums == NULL:
        raise MemoryError()
    sums.net = net
    try:
        return random_walk(sfen, plies, seed, _walk_update, _walk_agrees, sums)
    finally:
        free(sums)
