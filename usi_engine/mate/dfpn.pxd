# The df-pn core (mate/dfpn.pyx): bounded proof-number searches from the current position.
from libc.stdint cimport uint64_t
from usi_engine.mate.table cimport Solver

cdef int prove_here(Solver* s, bint or_node, int bound, uint64_t root_key, int* length) noexcept
cdef int prove_root(Solver* s, int bound, int* length) noexcept
cdef int prove_sub(Solver* s, bint or_node, int bound, int* length) noexcept
cdef int prove_child(Solver* s, int m, int bound, int* length) noexcept
