# YaneuraOu's PackedSfen (32 bytes) at C level; see core/packed.pyx for the format.
from libc.stdint cimport uint8_t
from usi_engine.core.position cimport Pos

cdef enum:
    PACKED_SFEN_BYTES = 32
    PSV_RECORD_BYTES = 40

cdef void pack_pos(const Pos* p, uint8_t* out) noexcept nogil
cdef int unpack_to_arrays(const uint8_t* packed, uint8_t* board81, uint8_t* hands,
                          int* side) noexcept nogil
