# Flags and deadlines shared between the protocol thread and a searching thread.
from libc.stdint cimport int64_t

cdef extern from "atomics.h" nogil:
    int atomic_load_int(const int* p)
    void atomic_store_int(int* p, int v)
    int64_t atomic_load_i64(const int64_t* p)
    void atomic_store_i64(int64_t* p, int64_t v)
    int64_t monotonic_ns()
