# The df-pn core (mate/dfpn.pyx): bounded proof-number searches from the current position.
from libc.stdint cimport uint64_t
from usi_engine.mate.table cimport Solver, Child

cdef int make_children(Solver* s, int* moves, int n, Child* kids, bint or_node,
                       int free_sq, int bound) noexcept nogil
cdef bint look_block_as_move(Solver* s, Child* c, int bound) noexcept nogil
cdef int enter_child(Solver* s, const Child* c) noexcept nogil
cdef void leave_child(Solver* s, const Child* c, int pt) noexcept nogil
cdef int prove_here(Solver* s, bint or_node, int free_sq, int bound, uint64_t root_key,
                    int* length) noexcept
cdef int prove_root(Solver* s, int bound, int* length) noexcept
cdef int prove_sub(Solver* s, bint or_node, int free_sq, int bound, int* length) noexcept
