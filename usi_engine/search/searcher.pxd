# The Searcher's C-level layout, for the modules that reach into a search it ran
# (search/testing.pyx reads its table).
from libc.stdint cimport uint64_t

from usi_engine.core.position cimport Position
from usi_engine.core.tt cimport TT, HashMemory
from usi_engine.eval.kp cimport Network
from usi_engine.search.alphabeta cimport Context


cdef class Searcher:
    cdef TT tt
    cdef HashMemory memory
    cdef Context* ctx
    cdef Context** helpers        # threads - 1 helper contexts (lazy SMP)
    cdef int n_helpers
    cdef list helper_threads      # the running helpers' Python threads
    cdef int active_helpers       # helpers that took part in the last search
    cdef object on_info
    cdef int multipv
    cdef bint searching
    cdef list completed_lines     # [(move, score, seldepth, pv)] of the last whole iteration
    cdef object solver            # the df-pn solver inside this memory, built on first use
    cdef bint probing             # the solver is running the root mate probe
    cdef Network network          # the learned evaluation's weights; None: hand-written
    cdef bint network_chosen      # set_evaluation was called (else: the shipped network)
    cdef object pending_error     # raised in the main thread's IterationHook, re-raised
    cdef int pv_interval          # ms at least between two reported lines (0: every one)
    cdef bint extend_pv           # lengthen reported PVs from the table (ConsiderationMode)
    cdef int bound_pv_after_ms    # report aspiration fail-low/high lines from then on (-1: never)
    cdef long long last_pv_ms     # elapsed ms when a line was last reported (-1: none yet)
    cdef int held_depth           # a completed iteration not reported yet (PvInterval), or 0
    cdef Position root            # the root position (to extend PVs from)
    cdef double best_changes      # the best move's changes between iterations, halved each one
    cdef int stable_iterations    # iterations in a row that kept the best move
    cdef list iteration_scores    # the best line's score after each completed iteration

    cdef void _free_helpers(self)
    cdef int _main_search(self, int max_depth) except -1
    cdef int _after_iteration(self, int depth, int event, int previous_best) except -1
    cdef void _adopt_best_helper(self, int completed)
    cdef uint64_t _total_nodes(self)
    cdef void _adopt_partial_best(self, int previous_best)
    cdef bint _next_iteration_would_overrun(self, int previous_best)
    cdef bint _mate_settled(self, int depth)
    cdef bint _interval_passed(self, long long now)
