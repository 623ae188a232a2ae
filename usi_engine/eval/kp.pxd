# The learned king-piece (KP) evaluation: its C-level interface.
#
# Each king has its own view of the board: every other piece by (kind, square) and each
# hand by counts, seen from that king's side (white's view is the board turned round)
# and mirrored left-right when the king stands on files 6-9, so 45 king squares index
# the weight table.  The score is the black king's sum minus the white king's sum.
# A search keeps both sums per ply (KPAcc) and updates them move by move.
from libc.stdint cimport int16_t, int32_t
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
    NET_HIDDEN = 32
    NET_QA = 127
    NET_QB = 64                  # output weights are in 1/64 cp per unit of x^2

cdef struct KPAcc:
    int32_t sum[2]               # by king colour; a missing king's view sums to 0
    int16_t acc[2][NET_HIDDEN]   # the network's accumulators (unused without one)

cdef struct KPNet:
    const int16_t* kp            # the KP table, KP_WEIGHTS values in 1/KP_SCALE cp
    const int16_t* ft            # W1, KP_WEIGHTS rows of NET_HIDDEN; NULL: the table alone
    const int16_t* ft_bias       # b1, NET_HIDDEN values
    const int16_t* out_w         # the side to move's king's NET_HIDDEN, then the other's
    int32_t out_bias             # in 1/NET_QB cp

cdef void kp_refresh(const Pos* p, const KPNet* net, KPAcc* acc) noexcept nogil
cdef void kp_update(const Pos* p, const KPNet* net, const KPAcc* parent,
                    KPAcc* child) noexcept nogil
cdef int kp_value(const Pos* p, const KPNet* net, const KPAcc* acc) noexcept nogil


cdef class Network:
    cdef KPNet net               # points into arrays, which never change
    cdef readonly dict arrays
