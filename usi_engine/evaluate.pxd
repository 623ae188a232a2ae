from usi_engine.position cimport Pos

cdef int evaluate(const Pos* p) noexcept nogil
cdef int piece_value(int pt) noexcept nogil
