cdef extern from "bigmem.h" nogil:
    void* big_zalloc(size_t bytes)
    void big_free(void* p)
