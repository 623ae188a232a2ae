from usi_engine.core.position cimport Pos

cdef struct HandSums:
    int board[2]        # per colour: its board pieces' terms (material, distance to
                        # either king), kings excluded; kept move by move by the search
    int in_hand[2]      # per colour: the values of its pieces in hand, likewise

cdef int evaluate(const Pos* p) noexcept nogil
cdef int piece_value(int pt) noexcept nogil
cdef void hand_refresh(const Pos* p, HandSums* s) noexcept nogil
cdef void hand_update(const Pos* p, const HandSums* before, HandSums* after) noexcept nogil
cdef int hand_value(const Pos* p, const HandSums* s) noexcept nogil
