# Search contexts and lazy-SMP helpers (search/threads.pyx); the Searcher (search/searcher.pyx) calls them.
from usi_engine.search.alphabeta cimport Context

cdef enum:
    ITERATION_DONE = 0           # IterationHook: an iteration completed ...
    ITERATION_CUT = 1            # ... or was cut off by a stop (the last one)

# Called by the main thread's iterative deepening after each iteration, with the GIL;
# nonzero: stop deepening.
ctypedef int (*IterationHook)(void* owner, int depth, int event,
                              int previous_best) noexcept with gil

cdef int deepen(Context* c, int thread_index, int max_depth, int multipv,
                IterationHook after, void* owner) noexcept nogil
cdef Context* new_context() noexcept nogil
cdef void free_context(Context* c) noexcept nogil
cdef void forget_history(Context* c) noexcept nogil
cdef int prepare_helper(Context* h, const Context* main) noexcept nogil
