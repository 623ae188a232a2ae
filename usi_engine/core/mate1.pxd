# Mate in one ply (core/mate1.pyx).
from usi_engine.core.position cimport Pos

cdef int mate_in_one(const Pos* p) noexcept nogil
cdef int mate_in_one_near(const Pos* p) noexcept nogil
