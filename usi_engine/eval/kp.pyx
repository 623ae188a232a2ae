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

Optionally a network sits on top of the table (`Network(..., first=...)`): each king's
view also has an accumulator of `hidden` int16, the first layer's bias plus one row per
active feature, updated by the same few rows per move as the sums (the kernels of
eval/nnue_simd.h, AVX2 where the CPU has it).  The square head (kpnn.bin, 32 wide)
adds sum of w * clip(acc, 0, 1)^2 over both accumulators (the side to move's first);
the layered head (NNUE-style, up to 256 wide) feeds both clipped accumulators through
two int8 layers of 32 clipped-ReLU units to one output.

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

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t
from libc.string cimport memcmp, memcpy, memset
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.position cimport (Pos, Position, hand_count, pos_do_move, pos_undo_move,
                                  pos_copy, pos_free, pos_reserve)
from usi_engine.core.movegen cimport generate, GEN_LEGAL
from usi_engine.eval.walk cimport random_walk, WALK_MAX_PLIES
from libc.stdlib cimport malloc, free


cdef extern from "nnue_simd.h" nogil:
    enum: NNUE_MAX_ROWS
    void nnue_update(int16_t* dst, const int16_t* src, const int16_t** adds, int n_add,
                     const int16_t** subs, int n_sub, int n)
    void nnue_clip(const int16_t* v, int n, uint8_t* y)
    void nnue_affine(const uint8_t* x, int n, const int8_t* w, const int32_t* bias, int m,
                     int32_t* out)
    int nnue_simd_select(int want_avx2)
    int nnue_simd_avx2

init_tables()

WEIGHT_COUNT = KP_WEIGHTS
FEATURES_PER_BUCKET = KP_FEATURES
KING_BUCKETS = KP_KING_BUCKETS
SCALE = KP_SCALE
MAX_ACTIVE = KP_MAX_ACTIVE
HAND_SLOTS = KP_HAND_SLOTS
HIDDEN = NET_HIDDEN
MAX_HIDDEN = NET_MAX_HIDDEN
QA = NET_QA
QB = NET_QB
LAYER1 = LAYER_1
LAYER2 = LAYER_2
#: the nn.bin shapes evaluated: (accumulator width, layer 1, layer 2)
HALFKP_SHAPES = ((256, 32, 32), (512, 16, 32), (1024, 8, 32))
LAYER_SHIFT_BITS = LAYER_SHIFT
OUT_DIV = LAYER_OUT_DIV

nnue_simd_select(1)


def simd() -> str:
    """Which integer kernels the network runs on: "avx2" (chosen at import where the
    CPU and the OS support it) or "portable"."""
    return "avx2" if nnue_simd_avx2 else "portable"


def use_avx2(want: bool) -> str:
    """Choose the kernels: AVX2 if `want` and the CPU has it, else the portable C (both
    give the same integers; the tests compare them).  Returns `simd()`.  Not while a
    search runs."""
    nnue_simd_select(1 if want else 0)
    return simd()

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


# HalfKP (HEAD_HALFKP): BONA[c][piece code], the BonaPiece of a piece on square 0 of c's
# view (-1: a king or an empty square; promoted pawns, lances, knights and silvers count
# as golds), and HAND_BONA[c][owner][pt], that of the first piece of type pt in owner's
# hand (the k-th is k - 1 more)
cdef int BONA[2][32]
cdef int HAND_BONA[2][2][8]


cdef void _init_halfkp_tables() noexcept nogil:
    cdef int c, owner, pt, own
    cdef int board_base[16]
    cdef int hand_base[8]
    for pt in range(16):
        board_base[pt] = -1
    board_base[PAWN] = 90
    board_base[LANCE] = 252
    board_base[KNIGHT] = 414
    board_base[SILVER] = 576
    board_base[GOLD] = 738
    board_base[BISHOP] = 900
    board_base[HORSE] = 1062
    board_base[ROOK] = 1224
    board_base[DRAGON] = 1386
    for pt in range(PRO_PAWN, PRO_SILVER + 1):
        board_base[pt] = 738
    hand_base[:] = [0, 1, 39, 49, 59, 79, 85, 69]      # (types P L N S B R G)
    for c in range(2):
        for pt in range(32):
            BONA[c][pt] = -1
        for owner in range(2):
            own = owner == c
            for pt in range(1, 16):
                if board_base[pt] >= 0:
                    BONA[c][make_piece(owner, pt)] = board_base[pt] + (0 if own else 81)
            for pt in range(8):
                HAND_BONA[c][owner][pt] = 0
            for pt in range(PAWN, KING):
                HAND_BONA[c][owner][pt] = hand_base[pt] + (0 if own else
                                                           (19 if pt == PAWN else
                                                            3 if pt in (BISHOP, ROOK) else 5))


_init_tables()
_init_halfkp_tables()


cdef inline int _view_base(const KPNet* net, int viewer, int king, int* mirror) noexcept nogil:
    """The first weight index of viewer's features (king: its square), and whether the
    view is mirrored (KP only)."""
    if net.head == HEAD_HALFKP:
        mirror[0] = 0
        return (king if viewer == BLACK else 80 - king) * HALFKP_BONA
    mirror[0] = KING_MIRROR[viewer][king]
    return VIEW_SQ[viewer][mirror[0]][king] * KP_FEATURES


cdef inline int _board_index(const KPNet* net, int viewer, int mirror, int pc,
                             int sq) noexcept nogil:
    """The offset from the view's base of a piece on a square (-1: not a feature)."""
    if net.head == HEAD_HALFKP:
        if BONA[viewer][pc] < 0:
            return -1
        return BONA[viewer][pc] + (sq if viewer == BLACK else 80 - sq)
    return _board_feature(viewer, mirror, pc, sq)


cdef inline int _hand_index(const KPNet* net, int viewer, int owner, int pt,
                            int i) noexcept nogil:
    """The offset from the view's base of the i-th (0-based) piece of type pt in
    owner's hand."""
    if net.head == HEAD_HALFKP:
        return HAND_BONA[viewer][owner][pt] + i
    return _hand_feature(viewer, owner, pt, i)


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


# What one view's features changed by: the KP sum's change and the first layer's rows
# to add and to take away (a move changes at most two of each).
cdef struct _Delta:
    int32_t ds
    int n_add
    int n_sub
    const int16_t* adds[NNUE_MAX_ROWS]
    const int16_t* subs[NNUE_MAX_ROWS]


cdef inline void _change(const KPNet* net, _Delta* d, int index, int sign) noexcept nogil:
    """Feature `index` (a global weight index) comes in (sign 1) or goes (sign -1)."""
    if net.kp != NULL:
        d.ds += sign * net.kp[index]
    if net.ft == NULL:
        return
    if sign > 0:
        d.adds[d.n_add] = net.ft + <Py_ssize_t>index * net.hidden
        d.n_add += 1
    else:
        d.subs[d.n_sub] = net.ft + <Py_ssize_t>index * net.hidden
        d.n_sub += 1


cdef inline void _flush(const KPNet* net, _Delta* d, int16_t* acc) noexcept nogil:
    """Add the rows gathered so far to acc in place (nnue_simd.h), and forget them."""
    if net.ft != NULL and d.n_add + d.n_sub:
        nnue_update(acc, acc, d.adds, d.n_add, d.subs, d.n_sub, net.hidden)
    d.n_add = 0
    d.n_sub = 0


cdef inline void _update32(int16_t* dst, const int16_t* src, const _Delta* d) noexcept nogil:
    """nnue_update for the square head's NET_HIDDEN (32) values: a loop of fixed length
    that the compiler unrolls and vectorises inline, where the kernel's indirect call
    and run-time width cost the shipped network 4% of its speed."""
    cdef int i, k
    cdef const int16_t* row
    for i in range(NET_HIDDEN):
        dst[i] = src[i]
    for k in range(d.n_add):
        row = d.adds[k]
        for i in range(NET_HIDDEN):
            dst[i] = <int16_t>(dst[i] + row[i])
    for k in range(d.n_sub):
        row = d.subs[k]
        for i in range(NET_HIDDEN):
            dst[i] = <int16_t>(dst[i] - row[i])


cdef void _view_refresh(const Pos* p, const KPNet* net, int viewer, KPAcc* out) noexcept nogil:
    """One king's sum and accumulator from scratch (0 when that king is absent)."""
    cdef int king = p.king_sq[viewer]
    cdef int16_t* acc = out.acc[viewer]
    cdef _Delta d
    cdef int i
    d.ds = 0
    d.n_add = 0
    d.n_sub = 0
    if net.ft != NULL:
        for i in range(net.hidden):
            acc[i] = net.ft_bias[i] if king >= 0 else 0
    out.sum[viewer] = 0
    if king < 0:
        return
    cdef int mirror
    cdef int base = _view_base(net, viewer, king, &mirror)
    cdef bb_t b = p.occupied
    cdef int sq, pc, owner, pt, n, first, index
    cdef int pieces = 0
    while b:
        sq = bb_pop(&b)
        pc = p.board[sq]
        index = _board_index(net, viewer, mirror, pc, sq)
        if index >= 0 and (net.head == HEAD_HALFKP or KIND[viewer][pc] >= 0):
            _change(net, &d, base + index, 1)
            pieces += 1
            if d.n_add == NNUE_MAX_ROWS:
                _flush(net, &d, acc)
    for owner in range(2):
        for pt in range(PAWN, KING):
            n = hand_count(p.hand[owner], pt)
            first = base + _hand_index(net, viewer, owner, pt, 0)
            pieces += n
            for i in range(n):
                _change(net, &d, first + i, 1)
                if d.n_add == NNUE_MAX_ROWS:
                    _flush(net, &d, acc)
    if net.head == HEAD_HALFKP:
        # the pieces absent from the game (a handicap, a tsume) each switch on
        # BonaPiece 0; their number never changes within a game
        for i in range(HALFKP_SLOTS - pieces):
            _change(net, &d, base, 1)
            if d.n_add == NNUE_MAX_ROWS:
                _flush(net, &d, acc)
    _flush(net, &d, acc)
    out.sum[viewer] = d.ds


cdef void kp_refresh(const Pos* p, const KPNet* net, KPAcc* acc) noexcept nogil:
    _view_refresh(p, net, BLACK, acc)
    _view_refresh(p, net, WHITE, acc)


cdef void kp_copy(const KPNet* net, const KPAcc* src, KPAcc* dst) noexcept nogil:
    """dst = src, as far as the network uses it (a null move changes no feature)."""
    dst.sum[0] = src.sum[0]
    dst.sum[1] = src.sum[1]
    if net.ft != NULL:
        memcpy(dst.acc[0], src.acc[0], net.hidden * sizeof(int16_t))
        memcpy(dst.acc[1], src.acc[1], net.hidden * sizeof(int16_t))


cdef void kp_update(const Pos* p, const KPNet* net, const KPAcc* parent,
                    KPAcc* child) noexcept nogil:
    """child = parent's sums after the move that led to p (p.stack[p.sp].move)."""
    cdef int m = p.stack[p.sp].move
    cdef int captured = p.stack[p.sp].captured
    cdef int us = p.side ^ 1
    cdef int to = move_to(m)
    cdef int after = p.board[to]
    cdef int before, frm, pt, n, viewer, king, mirror, base, index
    cdef _Delta d
    for viewer in range(2):
        king = p.king_sq[viewer]
        if king < 0 or (viewer == us and piece_type(after) == KING):
            _view_refresh(p, net, viewer, child)
            continue
        base = _view_base(net, viewer, king, &mirror)
        d.ds = 0
        d.n_add = 0
        d.n_sub = 0
        index = _board_index(net, viewer, mirror, after, to)
        if index >= 0:          # (under HalfKP the enemy king is no feature)
            _change(net, &d, base + index, 1)
        if move_is_drop(m):
            pt = move_from(m) - MOVE_DROP_BASE
            n = hand_count(p.hand[us], pt)          # the dropped one was the (n+1)-th
            _change(net, &d, base + _hand_index(net, viewer, us, pt, n), -1)
        else:
            frm = move_from(m)
            before = after - PROMOTED if move_is_promotion(m) else after
            if index >= 0:
                _change(net, &d, base + _board_index(net, viewer, mirror, before, frm), -1)
            if captured != EMPTY:
                _change(net, &d, base + _board_index(net, viewer, mirror, captured, to), -1)
                pt = unpromoted(piece_type(captured))
                n = hand_count(p.hand[us], pt)      # the captured one is the n-th
                _change(net, &d, base + _hand_index(net, viewer, us, pt, n - 1), 1)
        child.sum[viewer] = parent.sum[viewer] + d.ds
        if net.head == HEAD_SQUARE:
            _update32(child.acc[viewer], parent.acc[viewer], &d)
        elif net.ft != NULL:
            nnue_update(child.acc[viewer], parent.acc[viewer], d.adds, d.n_add, d.subs,
                        d.n_sub, net.hidden)


@cython.cdivision(True)
cdef int _square_output(const KPNet* net, const int16_t* mine, const int16_t* theirs) noexcept nogil:
    """The square head's term in centipawns for the side whose accumulator is `mine`:
    sum of out_w * clip(acc, 0, QA)^2 over both, plus the bias, in int64 (no overflow
    whatever the weights), rounded towards zero."""
    cdef int64_t total = <int64_t>net.out_bias * (NET_QA * NET_QA)
    cdef int i, x
    for i in range(NET_HIDDEN):
        x = mine[i]
        x = 0 if x < 0 else (NET_QA if x > NET_QA else x)
        total += <int64_t>(net.out_w[i] * (x * x))
        x = theirs[i]
        x = 0 if x < 0 else (NET_QA if x > NET_QA else x)
        total += <int64_t>(net.out_w[NET_HIDDEN + i] * (x * x))
    return <int>(total // (NET_QA * NET_QA * NET_QB))


cdef inline uint8_t _clipped(int32_t v) noexcept nogil:
    """A layer's sum as the next layer's input: v / 2^LAYER_SHIFT rounded, clipped to
    0..127."""
    if v <= 0:
        return 0
    v = (v + (1 << (LAYER_SHIFT - 1))) >> LAYER_SHIFT
    return <uint8_t>(127 if v > 127 else v)


@cython.cdivision(True)
cdef int _layers_output(const KPNet* net, const int16_t* mine, const int16_t* theirs) noexcept nogil:
    """The layered head's term in centipawns for the side whose accumulator is `mine`:
    both accumulators clipped to 0..127, then two int8 layers with clipped ReLU, then
    the int16 output weights; the sum in 1/LAYER_OUT_DIV cp (rounded towards zero)."""
    cdef uint8_t x[2 * NET_MAX_HIDDEN]
    cdef int32_t y1[LAYER_1]
    cdef int32_t y2[LAYER_2]
    cdef uint8_t h1[LAYER_1]
    cdef uint8_t h2[LAYER_2]
    cdef int h = net.hidden, j
    cdef int32_t o = net.l3_b
    nnue_clip(mine, h, x)
    nnue_clip(theirs, h, &x[h])
    nnue_affine(x, 2 * h, net.l1_w, net.l1_b, LAYER_1, y1)
    for j in range(LAYER_1):
        h1[j] = _clipped(y1[j])
    nnue_affine(h1, LAYER_1, net.l2_w, net.l2_b, LAYER_2, y2)
    for j in range(LAYER_2):
        h2[j] = _clipped(y2[j])
        o += <int32_t>h2[j] * net.l3_w[j]
    return o // LAYER_OUT_DIV


cdef inline uint8_t _floored(int32_t v) noexcept nogil:
    """YaneuraOu's clipped ReLU: v >> 6 (floored), clipped to 0..127."""
    v >>= LAYER_SHIFT
    return <uint8_t>(0 if v < 0 else (127 if v > 127 else v))


@cython.cdivision(True)
cdef int _halfkp_output(const KPNet* net, const int16_t* mine, const int16_t* theirs) noexcept nogil:
    """YaneuraOu's value for the side whose accumulator is `mine`, in its internal
    units (which are this engine's): the output / fv_scale toward zero, clamped.  The
    second layer reads l1_in inputs, the first l1 of them the first layer's (the rest
    0, as the file's padded weights expect)."""
    cdef uint8_t x[2 * ACC_MAX]
    cdef int32_t y1[LAYER_MAX]
    cdef int32_t y2[LAYER_MAX]
    cdef uint8_t h1[LAYER_MAX]
    cdef uint8_t h2[LAYER_MAX]
    cdef int h = net.hidden, j
    cdef int32_t o = net.l3_b
    cdef int v
    nnue_clip(mine, h, x)
    nnue_clip(theirs, h, &x[h])
    nnue_affine(x, 2 * h, net.l1_w, net.l1_b, net.l1, y1)
    for j in range(net.l1):
        h1[j] = _floored(y1[j])
    for j in range(net.l1, net.l1_in):
        h1[j] = 0
    nnue_affine(h1, net.l1_in, net.l2_w, net.l2_b, net.l2, y2)
    for j in range(net.l2):
        h2[j] = _floored(y2[j])
        o += <int32_t>h2[j] * net.l3_w[j]
    v = o / net.fv_scale
    return HALFKP_MAX_EVAL if v > HALFKP_MAX_EVAL else (-HALFKP_MAX_EVAL if v < -HALFKP_MAX_EVAL
                                                        else v)


@cython.cdivision(True)
cdef int kp_value(const Pos* p, const KPNet* net, const KPAcc* acc) noexcept nogil:
    """Centipawns for the side to move (C division: rounded towards zero, so that a
    position and its colour-flipped twin score exactly opposite)."""
    cdef int32_t s = acc.sum[BLACK] - acc.sum[WHITE]
    cdef int v = (s if p.side == BLACK else -s) // KP_SCALE
    if net.head == HEAD_SQUARE:
        v += _square_output(net, acc.acc[p.side], acc.acc[p.side ^ 1])
    elif net.head == HEAD_LAYERS:
        v += _layers_output(net, acc.acc[p.side], acc.acc[p.side ^ 1])
    elif net.head == HEAD_HALFKP:
        v = _halfkp_output(net, acc.acc[p.side], acc.acc[p.side ^ 1])
    return v


# ---- Python API -----------------------------------------------------------------------

def _int16(values, count: int, what: str) -> np.ndarray:
    arr = np.ascontiguousarray(values, dtype=np.int16).reshape(-1).copy()
    if arr.shape[0] != count:
        raise ValueError(f"{what} has {count} values, not {arr.shape[0]}")
    return arr


def _in_range(values, count: int, what: str, dtype) -> np.ndarray:
    """`count` integers as a new array of `dtype`; ValueError when a value does not fit
    (a layer's weights or biases are never wrapped silently)."""
    arr = np.ascontiguousarray(values, dtype=np.int64).reshape(-1)
    if arr.shape[0] != count:
        raise ValueError(f"{what} has {count} values, not {arr.shape[0]}")
    info = np.iinfo(dtype)
    if arr.size and (arr.min() < info.min or arr.max() > info.max):
        raise ValueError(f"{what}: {np.dtype(dtype).name} values only ({info.min}..{info.max})")
    return arr.astype(dtype)


cdef class Network:
    """Weights of the learned evaluation: a KP table (WEIGHT_COUNT int16 in 1/8 cp)
    and, when `first` is given, the network on top of it, whose first layer int16
    [WEIGHT_COUNT, hidden] (QA is 1.0) and bias [hidden] make both kings'
    accumulators.  Then one of two heads:

    - the square head (`out`, `out_bias`; hidden = HIDDEN): the output weights [2 *
      HIDDEN] in 1/QB cp per unit of clip(acc)^2, the side to move's king's half first,
      and the bias in 1/QB cp;
    - the layered head (`layers` = (l1_w, l1_b, l2_w, l2_b, l3_w, l3_b); hidden a
      multiple of 32 up to MAX_HIDDEN): both accumulators clipped to 0..127 (the side
      to move's first) into LAYER1 int8 rows of 2 x hidden with int32 biases, each
      sum >> LAYER_SHIFT_BITS (rounded) clipped to 0..127, LAYER2 int8 rows of LAYER1
      likewise, then LAYER2 int16 output weights (1/16 cp per unit of 127) and an int32
      bias, the sum in 1/OUT_DIV cp.

    A `Searcher` searches with the Network it is given (`Searcher.set_evaluation`);
    the arrays are copied and never change, so one Network may serve several searchers
    at once.

    >>> import numpy as np
    >>> net = Network(np.zeros(WEIGHT_COUNT, dtype=np.int16))
    >>> net.evaluate("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    0
    """

    def __init__(self, weights, first=None, first_bias=None, out=None, int out_bias=0,
                 layers=None, halfkp=None, int fv_scale=16):
        if halfkp is not None:
            self._halfkp(halfkp, fv_scale)
            return
        arrays = {"kp": _int16(weights, KP_WEIGHTS, "a KP table")}
        hidden = 0
        if first is not None:
            if first_bias is None or (out is None) == (layers is None):
                raise ValueError("a network needs its first layer, its bias and one head "
                                 "(out, or layers)")
            size = np.asarray(first).size
            hidden = size // KP_WEIGHTS
            if layers is None and hidden != NET_HIDDEN:
                raise ValueError(f"the square head needs a first layer of width {NET_HIDDEN}")
            if (hidden * KP_WEIGHTS != size or hidden % 32 or not 0 < hidden <= NET_MAX_HIDDEN):
                raise ValueError(f"the first layer's width must be a multiple of 32 up to "
                                 f"{NET_MAX_HIDDEN} (it has {size} values)")
            arrays["first"] = _int16(first, KP_WEIGHTS * hidden, "the first layer")
            arrays["first_bias"] = _int16(first_bias, hidden, "the first layer's bias")
            if layers is None:
                arrays["out"] = _int16(out, 2 * NET_HIDDEN, "the output layer")
            else:
                if len(layers) != 6:
                    raise ValueError("layers: (l1_w, l1_b, l2_w, l2_b, l3_w, l3_b)")
                arrays["l1_w"] = _in_range(layers[0], LAYER_1 * 2 * hidden, "l1_w", np.int8)
                arrays["l1_b"] = _in_range(layers[1], LAYER_1, "l1_b", np.int32)
                arrays["l2_w"] = _in_range(layers[2], LAYER_2 * LAYER_1, "l2_w", np.int8)
                arrays["l2_b"] = _in_range(layers[3], LAYER_2, "l2_b", np.int32)
                arrays["l3_w"] = _in_range(layers[4], LAYER_2, "l3_w", np.int16)
                arrays["l3_b"] = _in_range([int(layers[5])], 1, "l3_b", np.int32)
        for array in arrays.values():
            array.flags.writeable = False
        self.arrays = arrays
        self._point(hidden, out_bias)

    def _halfkp(self, net, int fv_scale):
        """YaneuraOu's halfkp_256x2-32-32, 512x2-16-32 or 1024x2-8-32 (an
        eval.nnue_file.HalfKpNet)."""
        hidden, l1, l2 = net.shape
        if (hidden, l1, l2) not in HALFKP_SHAPES:
            raise ValueError(f"halfkp_{hidden}x2-{l1}-{l2}: only "
                             + ", ".join(f"halfkp_{a}x2-{b}-{c}" for a, b, c in HALFKP_SHAPES)
                             + " are evaluated")
        if not 1 <= fv_scale <= 128:
            raise ValueError(f"FV_SCALE {fv_scale}: 1..128")
        l1_in = (l1 + 31) // 32 * 32
        l2_w = np.zeros((l2, l1_in), dtype=np.int8)
        l2_w[:, :l1] = _in_range(net.l2_weight, l2 * l1, "l2_w", np.int8).reshape(l2, l1)
        arrays = {
            "first": _int16(net.ft_weight, HALFKP_FEATURES * hidden, "the feature weights"),
            "first_bias": _int16(net.ft_bias, hidden, "the feature bias"),
            "l1_w": _in_range(net.l1_weight, l1 * 2 * hidden, "l1_w", np.int8),
            "l1_b": _in_range(net.l1_bias, l1, "l1_b", np.int32),
            "l2_w": l2_w.reshape(-1),
            "l2_b": _in_range(net.l2_bias, l2, "l2_b", np.int32),
            "l3_w": _in_range(net.out_weight, l2, "the output weights", np.int8)
                    .astype(np.int16),
            "l3_b": _in_range(net.out_bias, 1, "the output bias", np.int32)}
        for array in arrays.values():
            array.flags.writeable = False
        self.arrays = arrays
        self._point(hidden, 0)
        self.net.head = HEAD_HALFKP
        self.net.fv_scale = fv_scale
        self.net.l1 = l1
        self.net.l2 = l2
        self.net.l1_in = l1_in

    @property
    def fv_scale(self) -> int:
        """HalfKP: the divisor of the output (YaneuraOu's FV_SCALE); 0 otherwise."""
        return self.net.fv_scale

    def set_fv_scale(self, int fv_scale) -> None:
        """Change FV_SCALE (1..128) of a HalfKP network (not while it searches)."""
        if self.net.head != HEAD_HALFKP:
            raise ValueError("FV_SCALE applies to a HalfKP network only")
        if not 1 <= fv_scale <= 128:
            raise ValueError(f"FV_SCALE {fv_scale}: 1..128")
        self.net.fv_scale = fv_scale

    cdef void _point(self, int hidden, int out_bias):
        """Aim the C view (self.net) at the arrays."""
        cdef const int16_t[::1] v16
        cdef const int8_t[::1] v8
        cdef const int32_t[::1] v32
        arrays = self.arrays
        memset(&self.net, 0, sizeof(KPNet))
        if "kp" in arrays:
            v16 = arrays["kp"]
            self.net.kp = &v16[0]
        self.net.head = HEAD_NONE
        self.net.hidden = hidden
        if "first" not in arrays:
            return
        v16 = arrays["first"]
        self.net.ft = &v16[0]
        v16 = arrays["first_bias"]
        self.net.ft_bias = &v16[0]
        if "out" in arrays:
            self.net.head = HEAD_SQUARE
            v16 = arrays["out"]
            self.net.out_w = &v16[0]
            self.net.out_bias = out_bias
            return
        self.net.head = HEAD_LAYERS
        v8 = arrays["l1_w"]
        self.net.l1_w = &v8[0]
        v32 = arrays["l1_b"]
        self.net.l1_b = &v32[0]
        v8 = arrays["l2_w"]
        self.net.l2_w = &v8[0]
        v32 = arrays["l2_b"]
        self.net.l2_b = &v32[0]
        v16 = arrays["l3_w"]
        self.net.l3_w = &v16[0]
        self.net.l3_b = arrays["l3_b"][0]
        self.net.l1 = LAYER_1
        self.net.l2 = LAYER_2
        self.net.l1_in = LAYER_1

    @property
    def has_net(self) -> bool:
        """Whether the weights include a network on top of the table."""
        return self.net.ft != NULL

    @property
    def head(self) -> str:
        """"table" (the KP table alone), "square", "layers" or "halfkp"."""
        return ("table", "square", "layers", "halfkp")[self.net.head]

    @property
    def hidden(self) -> int:
        """The accumulators' width (0 for the table alone)."""
        return self.net.hidden

    @property
    def out_bias(self) -> int:
        """The output layer's bias in 1/QB cp (0 without a network)."""
        return self.net.out_bias

    def table(self) -> np.ndarray:
        """A copy of the KP table (KeyError for a HalfKP network, which has none)."""
        return self.arrays["kp"].copy()

    def array(self, name: str) -> np.ndarray:
        """A copy of one part: "kp", and with a network "first", "first_bias", then
        "out" (square head) or "l1_w", "l1_b", "l2_w", "l2_b", "l3_w", "l3_b"."""
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
    cdef size_t width = s.net.hidden * sizeof(int16_t)
    return (fresh.sum[0] == s.acc[ply].sum[0] and fresh.sum[1] == s.acc[ply].sum[1]
            and (s.net.ft == NULL or (memcmp(fresh.acc[0], s.acc[ply].acc[0], width) == 0
                                      and memcmp(fresh.acc[1], s.acc[ply].acc[1], width) == 0)))


cdef dict _incremental_check(const KPNet* net, str sfen, int plies, unsigned int seed):
    cdef _WalkSums* sums = <_WalkSums*>malloc(sizeof(_WalkSums))
    if sums == NULL:
        raise MemoryError()
    sums.net = net
    try:
        return random_walk(sfen, plies, seed, _walk_update, _walk_agrees, sums)
    finally:
        free(sums)
