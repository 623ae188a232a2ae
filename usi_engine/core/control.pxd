# Stop flag, deadlines, node limit, Ctrl-C and progress reports: the one way the tree
# search (search/searcher.pyx), the tsume solver (mate*.pyx) and perft (core/position.pyx) are told
# to stop and report progress.
#
# The hot loops run without the GIL and call ctl_count() once per node; every 1024
# nodes it polls (ctl_poll): the stop flag and the hard deadline (written by other
# threads through ctl_stop / ctl_set_deadline), the phase deadline (the solver's own
# time slices), Ctrl-C (only on Python's main thread, where signals are handled: the
# GIL is taken about every 20 ms to run Python's signal handlers) and, every 500 ms,
# the owner's progress report (the GIL is taken for it).  A signal handler that raises
# (KeyboardInterrupt) aborts the loop; the exception is kept in `pending` and raised
# by ctl_raise_pending() once the GIL is held again.
from libc.stdint cimport int64_t, uint64_t
from cpython.exc cimport PyErr_CheckSignals
from cpython.ref cimport PyObject, Py_XINCREF, Py_XDECREF

from usi_engine.core.atomics cimport (atomic_load_int, atomic_store_int, atomic_load_i64,
                                 atomic_store_i64, monotonic_ns)

ctypedef void (*ctl_report_fn)(void* owner) noexcept nogil

cdef enum:
    CTL_POLL_MASK = 1023                # poll every 1024 nodes
    CTL_INFO_INTERVAL_NS = 500000000    # progress reports every 500 ms
    CTL_SIGNAL_INTERVAL_NS = 20000000   # Ctrl-C looked at every 20 ms


cdef struct Control:
    int stop                     # set by ctl_stop from any thread (atomic)
    int64_t hard_deadline        # absolute monotonic ns, 0 = none (atomic)
    int64_t soft_deadline        # the search's soft target (atomic; read between iterations)
    int64_t phase_deadline       # the solver's current time slice (0 = none; this thread only)
    uint64_t nodes
    uint64_t node_limit          # 0 = none
    int64_t start_ns
    int64_t clock_ns             # when the deadlines were last set: the clock's start (ponderhit)
    int64_t last_info_ns
    int64_t last_signal_ns
    bint aborted
    bint watch_signals           # running on Python's main thread
    PyObject* pending            # the exception a signal handler raised (owned)
    void* owner                  # passed to report
    ctl_report_fn report         # progress callback (takes the GIL itself), or NULL


cdef inline void ctl_stop(Control* c) noexcept nogil:
    """Ask the running loop to return as soon as possible (thread-safe)."""
    atomic_store_int(&c.stop, 1)


cdef inline void ctl_clear_stop(Control* c) noexcept nogil:
    atomic_store_int(&c.stop, 0)


cdef inline int64_t ctl_deadline_after(object ms, int64_t now=0):
    """The absolute deadline ms milliseconds from now (None: 0, no deadline)."""
    if ms is None:
        return 0
    return (now if now else monotonic_ns()) + <int64_t>(max(ms, 0) * 1000000)


cdef inline void ctl_start(Control* c, uint64_t node_limit, bint watch_signals) noexcept nogil:
    """Reset the counters for a new run (the stop flag and deadlines are kept: they are
    set by the caller, maybe from another thread, before the run starts)."""
    c.nodes = 0
    c.node_limit = node_limit
    c.aborted = False
    c.phase_deadline = 0
    c.start_ns = monotonic_ns()
    c.last_info_ns = c.start_ns
    c.last_signal_ns = c.start_ns
    c.watch_signals = watch_signals


cdef inline bint ctl_check_signals(Control* c) noexcept with gil:
    """Run Python's signal handlers; True (the exception kept) if one raised."""
    try:
        PyErr_CheckSignals()
    except BaseException as exc:
        if c.pending == NULL:
            c.pending = <PyObject*>exc
            Py_XINCREF(c.pending)
        return True
    return False


cdef inline int ctl_raise_pending(Control* c) except -1:
    """Raise the exception a signal handler raised during the run, if any (with the GIL)."""
    cdef object exc
    if c.pending != NULL:
        exc = <object>c.pending
        Py_XDECREF(c.pending)
        c.pending = NULL
        raise exc
    return 0


cdef inline void ctl_poll(Control* c) noexcept nogil:
    """Stop flag, deadlines, Ctrl-C; the periodic progress report."""
    cdef int64_t now, hard
    if atomic_load_int(&c.stop):
        c.aborted = True
        return
    now = monotonic_ns()
    hard = atomic_load_i64(&c.hard_deadline)
    if (hard and now >= hard) or (c.phase_deadline and now >= c.phase_deadline):
        c.aborted = True
        return
    if c.watch_signals and now - c.last_signal_ns >= CTL_SIGNAL_INTERVAL_NS:
        c.last_signal_ns = now
        if ctl_check_signals(c):
            c.aborted = True
            return
    if now - c.last_info_ns >= CTL_INFO_INTERVAL_NS:
        c.last_info_ns = now
        if c.report != NULL:
            c.report(c.owner)


cdef inline void ctl_count(Control* c) noexcept nogil:
    """Count a node: the node limit at once, the rest every 1024 nodes."""
    c.nodes += 1
    if c.node_limit and c.nodes >= c.node_limit:
        c.aborted = True
    elif (c.nodes & CTL_POLL_MASK) == 0:
        ctl_poll(c)


cdef inline int64_t ctl_elapsed_ms(const Control* c) noexcept nogil:
    return (monotonic_ns() - c.start_ns) // 1000000
