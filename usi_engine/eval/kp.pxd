# The learned king-piece (KP) evaluation: its C-level interface.
#
# Each king has its own view of the board: every other piece by (kind, square) and each
# hand by counts, seen from that king's side (white's view is the board turned round)
# and mirrored left-right when the king stands on files 6-9, so 45 king squares index
# the weight table.  The score is the black king's sum minus the white king's sum.
# A search keeps both sums per ply (KPAcc) and updates them move by move.
from libc.stdint cimport int8_t, int16_t, int32_t
from usi_engine.core.position cimport Pos

cdef enum:
    KP_KING_BUCKETS = 45
    KP_BOARD_KINDS = 27          # 13 own kinds, 13 enemy kinds, the enemy king
    KP_HAND_SLOTS = 38           # 18 pawns, 4 lances, knights, silvers, golds, 2 bishops, rooks
    KP_HAND_BASE = KP_BOARD_KINDS * 81
    KP_FEATURES = KP_HAND_BASE + 2 * KP_HAND_SLOTS      # per king bucket: 2263
    KP_WEIGHTS = KP_KING_BUCKETS * KP_FEATURES           # 101835
    KP_SCALE = 8                 # weights are stored in 1/8 centipawn
    KP_MAX_ACTIVE = 80           # features of one view at most (39 on board, 38 in hand)
    # The optional network on top of the table (see usi_engine.training.learn_net): each king's
    # accumulator b1 + sum of W1[f] over its view's features, NET_QA standing for 1.0.
    # Two heads read the accumulators: the square head (kpnn.bin: NET_HIDDEN wide, the
    # output sum of w * clip(acc, 0, 1)^2) and the layered head (LAYER_1 and LAYER_2
    # clipped-ReLU layers of int8 weights over both accumulators, up to NET_MAX_HIDDEN
    # wide each; the integer kernels are eval/nnue_simd.h's, AVX2 where the CPU has it).
    NET_HIDDEN = 32
    NET_MAX_HIDDEN = 256         # the square and layered heads' widest accumulators
    ACC_MAX = 1024               # the widest accumulator (halfkp_1024x2-8-32)
    LAYER_MAX = 32               # the widest hidden layer (HalfKP's l1 is 32, 16 or 8)
    NET_QA = 127
    NET_QB = 64                  # output weights are in 1/64 cp per unit of x^2
    LAYER_1 = 32
    LAYER_2 = 32
    LAYER_SHIFT = 6              # a layer's int8 weights are in 1/64 (its sums >> 6, rounded)
    LAYER_OUT_DIV = 2032         # the output sum is in 1/(127 x 16) cp: its int16 weights
                                 # in 1/16 cp per unit of the last layer
    HEAD_NONE = 0                # the KP table alone
    HEAD_SQUARE = 1
    HEAD_LAYERS = 2
    HEAD_HALFKP = 3              # YaneuraOu's halfkp_{256x2-32-32, 512x2-16-32,
                                 # 1024x2-8-32} (nn.bin): its own features
                                 # (king square x BonaPiece), no KP table, the layered
                                 # head's shape with its arithmetic (sums >> 6 floored,
                                 # int8 output weights, the output / fv_scale)
    HALFKP_BONA = 1548           # BonaPieces a king square
    HALFKP_FEATURES = 81 * HALFKP_BONA
    HALFKP_SLOTS = 38            # pieces but the kings: an absent one is BonaPiece 0
    HALFKP_MAX_EVAL = 31753      # YaneuraOu's VALUE_MAX_EVAL

cdef struct KPAcc:
    int32_t sum[2]               # by king colour; a missing king's view sums to 0
    int16_t acc[2][ACC_MAX]      # the network's accumulators, `hidden` used

cdef struct KPNet:
    const int16_t* kp            # the KP table, KP_WEIGHTS values in 1/KP_SCALE cp
    int head                     # HEAD_NONE, HEAD_SQUARE or HEAD_LAYERS
    int hidden                   # the accumulators' width (0 with HEAD_NONE)
    const int16_t* ft            # W1, KP_WEIGHTS rows of `hidden`; NULL: the table alone
    const int16_t* ft_bias       # b1, `hidden` values
    const int16_t* out_w         # square head: the side to move's king's NET_HIDDEN, then
    int32_t out_bias             # the other's; the bias in 1/NET_QB cp
    const int8_t* l1_w           # layered head: LAYER_1 rows of 2 x hidden (the side to
    const int32_t* l1_b          # move's accumulator first), then LAYER_2 rows of
    const int8_t* l2_w           # LAYER_1, then LAYER_2 int16 output weights; biases
    const int32_t* l2_b          # in the units of the sums they join
    const int16_t* l3_w
    int32_t l3_b
    int fv_scale                 # HEAD_HALFKP: the output's divisor (FV_SCALE)
    int l1                       # the two hidden layers' widths (LAYER_1 and LAYER_2 but
    int l2                       # in HalfKP's wider shapes); l2_w's rows are l1_in wide,
    int l1_in                    # l1 rounded up to 32 (the AVX2 kernel's step)

cdef void kp_refresh(const Pos* p, const KPNet* net, KPAcc* acc) noexcept nogil
cdef void kp_update(const Pos* p, const KPNet* net, const KPAcc* parent,
                    KPAcc* child) noexcept nogil
cdef void kp_copy(const KPNet* net, const KPAcc* src, KPAcc* dst) noexcept nogil
cdef int kp_value(const Pos* p, const KPNet* net, const KPAcc* acc) noexcept nogil


cdef class Network:
    cdef KPNet net               # points into arrays, which never change
    cdef readonly dict arrays
    cdef void _point(self, int hidden, int out_bias)
