# Search contexts and lazy-SMP helpers (search/threads.pyx); the Searcher (search/searcher.pyx) calls them.
from usi_engine.search.alphabeta cimport Context

cdef void helper_search(Context* c, int index, int max_depth) noexcept nogil
cdef Context* new_context() noexcept nogil
cdef void free_context(Context* c) noexcept nogil
cdef void forget_history(Context* c) noexcept nogil
cdef int prepare_helper(Context* h, const Context* main) noexcept nogil
