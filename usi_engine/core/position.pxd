# The moves on a C-level position (core/board.pxd) and the Python Position class,
# implemented in core/position.pyx.
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from usi_engine.core.control cimport Control
from usi_engine.core.types cimport *
from usi_engine.core.bitboard cimport *
from usi_engine.core.board cimport *

# ---- implemented in core/position.pyx ------------------------------------------------------
cdef bint pos_reserve(Pos* p, int extra) noexcept nogil
cdef void pos_do_move(Pos* p, int m) noexcept nogil
cdef void pos_undo_move(Pos* p) noexcept nogil
cdef void pos_do_null(Pos* p) noexcept nogil
cdef uint64_t pos_board_key_after(const Pos* p, int m) noexcept nogil
cdef uint64_t pos_key_after(const Pos* p, int m) noexcept nogil
cdef void pos_undo_null(Pos* p) noexcept nogil
cdef int pos_repetition(const Pos* p, int max_distance) noexcept nogil
cdef int pos_game_repetition(const Pos* p) noexcept nogil
cdef bint pos_declaration_win(const Pos* p) noexcept nogil
cdef int pos_declaration(const Pos* p, int rule) noexcept nogil
cdef int pos_try_move(const Pos* p) noexcept nogil
cdef bint pos_tried(const Pos* p, int color) noexcept nogil
cdef int pos_copy(Pos* dst, const Pos* src) noexcept nogil
cdef void pos_free(Pos* p) noexcept nogil
cdef uint64_t pos_perft(Pos* p, int depth, Control* c) noexcept nogil

cdef class Position:
    cdef Pos pos
    cdef void _set_from(self, const Pos* src) noexcept
