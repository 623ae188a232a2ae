# cython: language_level=3
"""The Searcher: iterative deepening over the tree search (search/alphabeta.pyx), lazy-SMP helper
threads, time decisions between iterations, the root mate probe, and the Python
boundary (results, progress reports).

The tree search is C code that runs without the GIL.  Through `control` it polls the
stop flag and the deadlines (written by the protocol thread through `stop()` and
`set_deadlines()`) every 1024 nodes, and takes the GIL only to report progress (at
the end of each iteration and about every 500 ms) and, on the main thread, to let
Ctrl-C through.  With `set_threads(n)`, n - 1 helper threads search the same root
on their own state and share the transposition table.

    >>> from usi_engine.core.position import Position
    >>> r = Searcher().search(Position(), depth=4)
    >>> r.depth, r.best != 0
    (4, True)
"""
import threading

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

from usi_engine.core.types cimport MAX_MOVES
from usi_engine.core.position cimport Position, pos_copy, pos_reserve, position_key
from usi_engine.core.position import _rule_code
from usi_engine.core.movegen cimport is_legal
from usi_engine.core.movegen cimport GEN_LEGAL, generate, drop_dominated
from usi_engine.core.tt cimport (TT, TTEntry, HashMemory, WRITER_SEARCH, WRITER_MATE, tt_attach,
                            tt_new_game, tt_new_search, tt_hashfull, tt_probe)
from usi_engine.core.atomics cimport atomic_load_int, atomic_load_i64, atomic_store_i64, monotonic_ns
from usi_engine.core.control cimport (ctl_stop, ctl_clear_stop, ctl_start, ctl_deadline_after,
                                 ctl_raise_pending, ctl_elapsed_ms)
from usi_engine.eval.kp cimport Network
from usi_engine.search.alphabeta cimport (MAX_PLY, MAX_ROOT_MOVES, VALUE_INFINITE, VALUE_MATE,
                                          VALUE_MATE_IN_MAX_PLY, NO_DEADLINE, RootMove, Context,
                                          iterate, value_from_tt, set_param, note_game_boards)
from usi_engine.search.alphabeta import TUNABLES, parameter_index
from usi_engine.search.threads cimport (deepen, new_context, free_context, forget_history,
                                        prepare_helper, ITERATION_CUT)


cdef int _after_iteration(void* owner, int depth, int event,
                          int previous_best) noexcept with gil:
    """The main thread's IterationHook: the Searcher's decisions between iterations;
    an exception (from a progress callback, Ctrl-C) stops deepening and is raised
    again when the search returns."""
    cdef Searcher searcher = <Searcher>owner
    try:
        return searcher._after_iteration(depth, event, previous_best)
    except BaseException as exc:
        searcher.pending_error = exc
        return 1


cdef void _report_progress(void* owner) noexcept with gil:
    try:
        (<Searcher>owner)._emit_progress()
    except BaseException:
        pass   # a broken callback must not kill the search


class SearchResult:
    """Outcome of `Searcher.search`: best and ponder moves (0 when none), score from the
    side to move's view (score_mate in plies when a mate was found, else None), depth
    reached, node count, time, principal variation; under MultiPV N > 1, ``lines``: the
    info dicts of all N lines of the last completed iteration, line 1 first (else [])."""
    __slots__ = ("best", "ponder", "score_cp", "score_mate", "depth", "seldepth", "nodes",
                 "time_ms", "pv", "lines")

    def __init__(self, best=0, ponder=0, score_cp=0, score_mate=None, depth=0, seldepth=0,
                 nodes=0, time_ms=0, pv=(), lines=()):
        self.best, self.ponder, self.score_cp, self.score_mate = best, ponder, score_cp, score_mate
        self.depth, self.seldepth, self.nodes, self.time_ms = depth, seldepth, nodes, time_ms
        self.pv = list(pv)
        self.lines = list(lines)

    def __repr__(self):
        return ("SearchResult(best={0.best}, score_cp={0.score_cp}, score_mate={0.score_mate}, "
                "depth={0.depth}, nodes={0.nodes})".format(self))


def _score_fields(int v) -> dict:
    if v >= VALUE_MATE_IN_MAX_PLY:
        return {"score_mate": VALUE_MATE - v}
    if v <= -VALUE_MATE_IN_MAX_PLY:
        return {"score_mate": -(VALUE_MATE + v)}
    return {"score_cp": v}


#: The search's mate value (VALUE_MATE), for Python's side: notation/score.py's
#: MATE_VALUE must be the same number (tests/test_search.py holds them equal).
SEARCH_MATE_VALUE = VALUE_MATE

#: spend_factor's weights (see there): time per recent best-move change, per unit of
#: score lost against the last iterations, and the share kept when the move is settled.
INSTABILITY_WEIGHT = 0.8
FALLING_SCORE_SCALE = 250.0
SETTLED_ITERATIONS = 8
SETTLED_FACTOR = 0.75


def spend_factor(best_changes: float, score_drop: float, stable_iterations: int) -> float:
    """How much of its soft budget a move deserves, after an iteration: 1 + 0.8 for each
    recent change of the best move (``best_changes``: the changes between iterations,
    halved at each one), times 1 + ``score_drop``/250 within [0.75, 1.5] (the score lost
    against the mean of the last four iterations: a falling score wants a deeper look,
    a rising one less), times 0.75 once the move has held for 8 iterations.

    >>> spend_factor(0.0, 0.0, 3), spend_factor(1.0, 0.0, 0), spend_factor(0.0, 125.0, 3)
    (1.0, 1.8, 1.5)
    >>> spend_factor(0.0, -500.0, 9)
    0.5625
    """
    falling = min(max(1.0 + score_drop / FALLING_SCORE_SCALE, 0.75), 1.5)
    settled = SETTLED_FACTOR if stable_iterations >= SETTLED_ITERATIONS else 1.0
    return (1.0 + INSTABILITY_WEIGHT * best_changes) * falling * settled


cdef class Searcher:
    """Owns the table memory (USI_Hash), the transposition table, histories and its
    evaluation (the shipped network unless `set_evaluation` says otherwise); runs one
    search at a time.

    `search` blocks the calling thread (with the GIL released inside); `stop` and
    `set_deadlines` may be called from any other thread meanwhile; Ctrl-C on the main
    thread interrupts it (KeyboardInterrupt).  The memory is one block: the table
    uses it all but a slice (1/8, at most 16 MB) kept for the mate probe, and the
    tsume solver of `mate_solver()` (`go mate`) works inside the whole of it.
    """
    def __cinit__(self):
        memset(&self.tt, 0, sizeof(TT))
        self.ctx = new_context()
        if self.ctx == NULL:
            raise MemoryError()
        self.ctx.ctl.owner = <void*>self
        self.ctx.ctl.report = _report_progress
        self.helper_threads = []

    def __dealloc__(self):
        free_context(self.ctx)
        self._free_helpers()

    cdef void _free_helpers(self):
        cdef int i
        if self.helpers != NULL:
            for i in range(self.n_helpers):
                free_context(self.helpers[i])
            free(self.helpers)
        self.helpers = NULL
        self.n_helpers = 0

    def set_evaluation(self, network) -> None:
        """Search with `network` (a `usi_engine.eval.kp.Network`, e.g. an
        `EvalLoader`'s choice) from the next search on, or with the hand-written
        evaluation when it is None.  Without a call: the network shipped in the
        package.  Not during a search."""
        if network is not None and not isinstance(network, Network):
            raise TypeError(f"expected a kp.Network or None, not {type(network).__name__}")
        self.network = network
        self.network_chosen = True

    def set_parameter(self, name: str, int value) -> None:
        """Set one of the search's margins or reductions (`TUNABLES`: KeyError if
        unknown, ValueError if out of range) for this searcher's next searches.

        >>> s = Searcher(); s.set_parameter("RfpMargin", 160); s.parameters()["RfpMargin"]
        160
        """
        set_param(self.ctx, parameter_index(name, value), value)

    def parameters(self) -> dict:
        """The value of each of the search's parameters (`TUNABLES`), by name."""
        return {spec[0]: self.ctx.param[i] for i, spec in enumerate(TUNABLES)}

    @property
    def evaluation(self):
        """The `kp.Network` this searcher searches with (None: the hand-written
        evaluation)."""
        if not self.network_chosen:
            from usi_engine.eval.loader import shipped_network
            self.set_evaluation(shipped_network())
        return self.network

    @property
    def threads(self) -> int:
        """Search threads: the main one and threads - 1 helpers (lazy SMP)."""
        return 1 + self.n_helpers

    def set_threads(self, int threads) -> None:
        """Use `threads` search threads (1..256) from the next search on; 1 searches
        deterministically.  Not during a search."""
        cdef int i
        if not 1 <= threads <= 256:
            raise ValueError(f"threads must be in 1..256, not {threads}")
        if threads - 1 == self.n_helpers:
            return
        self._free_helpers()
        if threads == 1:
            return
        self.helpers = <Context**>calloc(threads - 1, sizeof(Context*))
        if self.helpers == NULL:
            raise MemoryError()
        for i in range(threads - 1):
            self.helpers[i] = new_context()
            if self.helpers[i] == NULL:
                self.n_helpers = i
                self._free_helpers()
                raise MemoryError()
            self.n_helpers = i + 1

    def set_hash(self, int megabytes) -> None:
        """Size the table memory: allocated and every page touched here, never during a
        search (MemoryError keeps the old memory)."""
        if megabytes < 1:
            raise ValueError("hash size must be at least 1 MB")
        if self.memory is not None and self.memory.size == (<size_t>megabytes << 20):
            return
        self.use_memory(HashMemory(megabytes))

    def use_memory(self, HashMemory memory not None) -> None:
        """Use a block allocated elsewhere (e.g. by another thread, as `isready` does) as
        the table memory.  Not during a search."""
        if tt_attach(&self.tt, memory.base, memory.probe_offset()) != 0:
            raise ValueError("memory too small for the hash table")
        self.memory = memory
        if self.solver is not None:
            self.solver.use_memory(memory)

    @property
    def hash_mb(self) -> int:
        """The size of the table memory in MB (0 before set_hash or use_memory)."""
        return self.memory.megabytes if self.memory is not None else 0

    def release_memory(self) -> None:
        """Drop the table memory (so that a new block can be allocated without holding
        both); the next search allocates 16 MB if nothing is given before it."""
        self.memory = None
        memset(&self.tt, 0, sizeof(TT))
        if self.solver is not None:
            self.solver = None

    def mate_solver(self):
        """The tsume solver working inside this searcher's memory (the whole block)."""
        from usi_engine.mate.solver import MateSolver
        if self.memory is None:
            self.set_hash(16)
        if self.solver is None:
            self.solver = MateSolver()
        self.solver.use_memory(self.memory)
        return self.solver

    def new_game(self) -> None:
        """Forget everything learnt: TT, killers, history, the solver's table; at no cost
        (nothing is cleared: the tables take a new salt and generation)."""
        if self.tt.table != NULL:
            tt_new_game(&self.tt)
        if self.solver is not None:
            self.solver.clear()
        forget_history(self.ctx)
        for i in range(self.n_helpers):
            forget_history(self.helpers[i])

    def hashfull(self) -> int:
        return tt_hashfull(&self.tt) if self.tt.table != NULL else 0

    def stop(self) -> None:
        """Ask the running search to return as soon as possible (thread-safe)."""
        cdef int i
        ctl_stop(&self.ctx.ctl)
        for i in range(self.n_helpers):
            ctl_stop(&self.helpers[i].ctl)
        if self.probing and self.solver is not None:
            self.solver.stop()

    def clear_stop(self) -> None:
        """Forget an earlier stop().  A caller that starts the search in another thread
        calls this first and then search(clear_stop=False), so that a stop() arriving
        in between is not lost."""
        ctl_clear_stop(&self.ctx.ctl)

    def set_deadlines(self, soft_ms, hard_ms) -> None:
        """Replace the time limits, in ms from now; None means no limit (thread-safe).

        Both are measured from one clock reading, which also becomes the start of
        the budget that the stop-between-iterations rule divides (at ponderhit the
        search itself has been running for a while)."""
        cdef int64_t now = monotonic_ns()
        atomic_store_i64(&self.ctx.ctl.clock_ns, now)
        atomic_store_i64(&self.ctx.ctl.soft_deadline, ctl_deadline_after(soft_ms, now))
        atomic_store_i64(&self.ctx.ctl.hard_deadline, ctl_deadline_after(hard_ms, now))

    def search(self, Position position not None, *, int depth=0, long long nodes=0,
               soft_ms=None, hard_ms=None, int multipv=1, searchmoves=None,
               int max_game_ply=0, entering_king_rule=True, on_info=None,
               bint clear_stop=True, int mate_probe_ms=0, int draw_value=0,
               int pv_interval=0, bint extend_pv=False, int bound_pv_after_ms=-1,
               clock=None):
        """Search position (which is not modified) and return a SearchResult.

        The time limits are soft_ms and hard_ms (ms from now), or the clock's: an
        object whose attach(set_deadlines) the search calls as it starts, and which
        calls set_deadlines again when its limits change (usi/clock.py's MoveClock:
        ponderhit starts it).

        entering_king_rule: an EnteringKingRule value (CSARule27, CSARule24, CSARule24H,
        CSARule27H, TryRule, NoEnteringKing; True is CSARule27, False NoEnteringKing).
        draw_value: what a draw by repetition (or by max_game_ply) is worth to the side to
        move at the root, in cp (the opponent counts it as minus that).
        Reports through on_info: every completed iteration, unless pv_interval (ms) has
        not passed since the last report (from depth 3 on: the line is then reported by
        the next progress report after the interval, or as the result); extend_pv
        lengthens each reported PV with the table's moves past its end;
        bound_pv_after_ms >= 0 also reports an aspiration fail-low/high (MultiPV 1,
        "bound" "upper"/"lower") once the search has run that long."""
        try:
            return self._search(position, depth, nodes, soft_ms, hard_ms, multipv,
                                searchmoves, max_game_ply, _rule_code(entering_king_rule),
                                on_info, clear_stop, mate_probe_ms, draw_value, pv_interval,
                                extend_pv, bound_pv_after_ms, clock)
        finally:
            self.on_info = None
            ctl_raise_pending(&self.ctx.ctl)

    def _search(self, Position position, int depth, long long nodes, soft_ms, hard_ms,
                int multipv, searchmoves, int max_game_ply, int entering_king_rule, on_info,
                bint clear_stop, int mate_probe_ms, int draw_value, int pv_interval,
                bint extend_pv, int bound_pv_after_ms, clock):
        cdef Context* c = self.ctx
        cdef int moves[MAX_MOVES]
        cdef int n, i, d, max_depth
        cdef set allowed
        if self.memory is None:
            self.set_hash(16)
        if self.memory.last_writer == WRITER_MATE:
            tt_new_game(&self.tt)       # the solver has written over the table
        self.memory.last_writer = WRITER_SEARCH
        if pos_copy(&c.pos, &position.pos) != 0 or not pos_reserve(&c.pos, MAX_PLY + 16):
            raise MemoryError()
        n = generate(&c.pos, moves, GEN_LEGAL)
        if searchmoves:
            allowed = set(searchmoves)
            n = _filter_moves(moves, n, allowed)
        else:
            n = drop_dominated(&c.pos, moves, n)    # (as everywhere in the search)
        c.root_count = n
        for i in range(n):
            memset(&c.root_moves[i], 0, sizeof(RootMove))
            c.root_moves[i].move = moves[i]
            c.root_moves[i].score = -VALUE_INFINITE
            c.root_moves[i].previous_score = -VALUE_INFINITE
            c.root_moves[i].pv[0] = moves[i]
            c.root_moves[i].pv_length = 1
        self.active_helpers = 0
        if n == 0:
            return SearchResult()
        if clear_stop:
            ctl_clear_stop(&c.ctl)
        if clock is None:
            self.set_deadlines(soft_ms, hard_ms)
        else:
            clock.attach(self.set_deadlines)
        c.tt = &self.tt
        c.kp_net = NULL if self.evaluation is None else &self.network.net
        c.root_sp = c.pos.sp
        note_game_boards(c)
        ctl_start(&c.ctl, nodes if nodes > 0 else 0,
                  threading.current_thread() is threading.main_thread())
        c.max_game_ply = max_game_ply
        c.entering_king_rule = entering_king_rule
        c.draw_value[c.pos.side] = draw_value
        c.draw_value[c.pos.side ^ 1] = -draw_value
        c.seldepth = 0
        self.on_info = on_info
        self.pv_interval = max(pv_interval, 0)
        self.extend_pv = extend_pv
        self.bound_pv_after_ms = bound_pv_after_ms
        c.report_bounds = bound_pv_after_ms >= 0 and on_info is not None
        c.bound = 0
        self.last_pv_ms = -1
        self.held_depth = 0
        self.root = position.copy() if extend_pv else None
        self.multipv = max(1, min(multipv, n))
        self.best_changes = 0.0
        self.stable_iterations = 0
        self.iteration_scores = []
        if mate_probe_ms > 0 and self.multipv == 1:
            found = self._mate_probe(position, mate_probe_ms, searchmoves)
            if found is not None:
                return found
        max_depth = depth if 0 < depth < MAX_PLY - 8 else MAX_PLY - 8
        tt_new_search(&self.tt)
        completed = 0
        self.completed_lines = []
        # node-limited searches stay on one thread: `go nodes` is then reproducible
        helpers = self.n_helpers if nodes <= 0 else 0
        try:
            self._start_helpers(helpers, max_depth)
            completed = self._main_search(max_depth)
        finally:
            self._stop_helpers()
        if self.held_depth and self.on_info is not None:
            # (PvInterval) the last completed iteration is reported before the result
            depth, self.held_depth = self.held_depth, 0
            for k in range(self.multipv):
                self.on_info(self._line_info(k, depth))
        if helpers and self.multipv == 1:
            self._adopt_best_helper(completed)
        return self._result(completed)

    cdef int _main_search(self, int max_depth) except -1:
        """The main thread's iterative deepening; returns the last completed depth."""
        cdef int completed
        self.pending_error = None
        with nogil:
            completed = deepen(self.ctx, 0, max_depth, self.multipv, _after_iteration,
                               <void*>self)
        if self.pending_error is not None:
            error, self.pending_error = self.pending_error, None
            raise error
        return completed

    cdef int _after_iteration(self, int depth, int event, int previous_best) except -1:
        """Between two iterations: report a completed one and say whether to stop (the
        search was stopped, a mate is settled, the next iteration would overrun the
        time); after one cut off mid-way, keep a better move it proved."""
        if event == ITERATION_CUT:
            # an iteration cut off mid-way may hold aspiration bounds, not scores;
            # but a move that beat the previous best in it was searched in full
            self._adopt_partial_best(previous_best)
            return 1
        self._snapshot_lines()
        self._emit_iteration(depth)
        return (self.ctx.ctl.aborted or self._mate_settled(depth)
                or self._next_iteration_would_overrun(previous_best))

    def _start_helpers(self, int count, int max_depth) -> None:
        cdef Context* h
        cdef int i
        self.active_helpers = count
        for i in range(count):
            h = self.helpers[i]
            if prepare_helper(h, self.ctx) != 0:
                raise MemoryError()
            t = threading.Thread(target=self._run_helper, args=(i, max_depth),
                                 name=f"usi_engine-helper-{i + 1}", daemon=True)
            self.helper_threads.append(t)
            t.start()

    def _run_helper(self, int i, int max_depth) -> None:
        cdef Context* h = self.helpers[i]
        with nogil:
            deepen(h, i + 1, max_depth, 1, NULL, NULL)

    def _stop_helpers(self) -> None:
        cdef int i
        for i in range(self.n_helpers):
            ctl_stop(&self.helpers[i].ctl)
        for t in self.helper_threads:
            t.join()
        self.helper_threads = []

    cdef void _adopt_best_helper(self, int completed):
        """A helper that completed a deeper iteration with a better score than the main
        thread's gives the move (the lazy-SMP vote of Stockfish-family engines)."""
        cdef Context* h
        cdef RootMove* best = NULL
        cdef int i, depth = completed
        cdef int score = self.completed_lines[0][1] if self.completed_lines else -VALUE_INFINITE
        for i in range(self.n_helpers):
            h = self.helpers[i]
            if h.completed_depth > depth and h.best_line.score > score:
                best, depth, score = &h.best_line, h.completed_depth, h.best_line.score
        if best != NULL:
            self.completed_lines = [(best.move, best.score, best.seldepth,
                                     [best.pv[k] for k in range(best.pv_length)])]

    @property
    def thread_nodes(self) -> list:
        """Nodes searched by each thread in the last search, the main thread first."""
        return [self.ctx.ctl.nodes] + [self.helpers[i].ctl.nodes
                                       for i in range(self.active_helpers)]

    cdef uint64_t _total_nodes(self):
        cdef uint64_t n = self.ctx.ctl.nodes
        cdef int i
        for i in range(self.active_helpers):
            n += self.helpers[i].ctl.nodes
        return n

    cdef void _adopt_partial_best(self, int previous_best):
        """After a cut-off iteration: a root move other than the previous best that
        holds a score was searched completely and beat the previous best's score at
        the new depth, so it is the better move; report it in place of the old line."""
        cdef RootMove* rm = &self.ctx.root_moves[0]
        if (self.multipv != 1 or rm.move == previous_best or rm.score == -VALUE_INFINITE
                or not self.completed_lines):
            return
        self.completed_lines = [(rm.move, rm.score, rm.seldepth,
                                 [rm.pv[i] for i in range(rm.pv_length)])]

    cdef bint _next_iteration_would_overrun(self, int previous_best):
        """Past the time this move deserves, or past the share of it after which the
        next iteration is unlikely to finish (60%).  What it deserves is the soft
        budget scaled by spend_factor: more while the best move changes or its score
        falls, less once it has held for many iterations; never past the hard deadline."""
        cdef int64_t soft = atomic_load_i64(&self.ctx.ctl.soft_deadline)
        cdef int64_t hard = atomic_load_i64(&self.ctx.ctl.hard_deadline)
        cdef int64_t now = monotonic_ns()
        cdef RootMove* rm = &self.ctx.root_moves[0]
        cdef int64_t clock = atomic_load_i64(&self.ctx.ctl.clock_ns)
        cdef int64_t budget
        # (the first iteration's best replaces the generator's first move: no change)
        cdef bint changed = bool(self.iteration_scores) and rm.move != previous_best
        self.best_changes = self.best_changes / 2 + changed
        self.stable_iterations = 0 if changed else self.stable_iterations + 1
        scores = self.iteration_scores
        earlier = [v for v in scores[max(0, len(scores) - 4):] if abs(v) < VALUE_MATE_IN_MAX_PLY]
        self.iteration_scores.append(rm.score)
        if soft == NO_DEADLINE:
            return False
        if hard != NO_DEADLINE and soft >= hard:
            # byoyomi: the time cannot be saved, and a cut-off iteration still
            # contributes its completed better moves
            return now >= soft
        drop = 0 if not earlier or abs(rm.score) >= VALUE_MATE_IN_MAX_PLY else (
            sum(earlier) / len(earlier) - rm.score)
        budget = <int64_t>((soft - clock) * spend_factor(self.best_changes, drop,
                                                          self.stable_iterations))
        if hard != NO_DEADLINE and clock + budget > hard:
            budget = hard - clock
        return now - clock >= budget * 6 // 10

    def _mate_probe(self, Position position, int time_ms, searchmoves):
        """A short df-pn run before the tree search, in the memory's probe slice: a
        proved mate is played at once, with its exact distance (alpha-beta would need
        the full depth to see it)."""
        from usi_engine.mate.solver import MateSolver
        if self.solver is None:
            self.solver = MateSolver()
        solver = self.solver
        solver.use_memory(self.memory, probe=True)
        solver.clear_stop()
        self.probing = True
        try:
            if atomic_load_int(&self.ctx.ctl.stop):
                return None
            result = solver.solve(position, time_ms=time_ms, clear_stop=False)
        finally:
            self.probing = False
        if result.status != "mate" or (searchmoves and result.pv[0] not in searchmoves):
            return None
        pv = result.pv
        info = {"depth": len(pv), "seldepth": len(pv), "nodes": result.nodes,
                "nps": result.nodes * 1000 // max(result.time_ms, 1), "time_ms": result.time_ms,
                "hashfull": solver.hashfull(), "multipv": 1, "pv": list(pv),
                "bound": None, "score_mate": len(pv)}
        if self.on_info is not None:
            self.on_info(info)
        return SearchResult(best=pv[0], ponder=pv[1] if len(pv) > 1 else 0, score_cp=0,
                            score_mate=len(pv), depth=len(pv), seldepth=len(pv),
                            nodes=result.nodes, time_ms=result.time_ms, pv=pv)

    cdef bint _mate_settled(self, int depth):
        # a mate found with every reply searched needs no deeper iteration
        cdef int v = self.ctx.root_moves[0].score
        return (abs(v) >= VALUE_MATE_IN_MAX_PLY and self.multipv == 1
                and VALUE_MATE - abs(v) <= depth)

    def _elapsed_ms(self) -> int:
        return ctl_elapsed_ms(&self.ctx.ctl)

    def _snapshot_lines(self) -> None:
        cdef Context* c = self.ctx
        cdef RootMove* rm
        cdef int k, v
        lines = []
        for k in range(self.multipv):
            rm = &c.root_moves[k]
            v = rm.score if rm.score != -VALUE_INFINITE else rm.previous_score
            lines.append((rm.move, v, rm.seldepth, [rm.pv[i] for i in range(rm.pv_length)]))
        self.completed_lines = lines

    def _line_info(self, int index, int depth) -> dict:
        """Report line `index` of the last completed iteration."""
        cdef Context* c = self.ctx
        move, v, seldepth, pv = self.completed_lines[index]
        elapsed = max(self._elapsed_ms(), 0)
        nodes = self._total_nodes()
        info = {"depth": depth, "seldepth": max(seldepth, depth), "nodes": nodes,
                "nps": nodes * 1000 // elapsed if elapsed > 0 else nodes * 1000,
                "time_ms": elapsed, "hashfull": self.hashfull(), "multipv": index + 1,
                "pv": self._extended(pv), "bound": None}
        if v == -VALUE_INFINITE:
            info["score_cp"] = 0
        else:
            info.update(_score_fields(v))
        return info

    def _extended(self, pv) -> list:
        """pv, lengthened (extend_pv) with the table's moves while they are legal and
        until a position repeats or MAX_PLY moves."""
        cdef Position pos
        cdef bint found
        cdef TTEntry te
        pv = list(pv)
        if not self.extend_pv or self.root is None or self.tt.table == NULL:
            return pv
        pos = self.root.copy()
        for m in pv:
            if not is_legal(&pos.pos, m):
                return pv
            pos.push(m)
        seen = set()
        while len(pv) < MAX_PLY:
            key = position_key(&pos.pos)
            if key in seen:
                break
            seen.add(key)
            tt_probe(&self.tt, key, &found, &te)
            if not found or te.move == 0 or not is_legal(&pos.pos, te.move):
                break
            pv.append(te.move)
            pos.push(te.move)
        return pv

    cdef bint _interval_passed(self, long long now):
        return self.last_pv_ms < 0 or now - self.last_pv_ms >= self.pv_interval

    def _emit_iteration(self, int depth) -> None:
        if self.on_info is None:
            return
        now = max(self._elapsed_ms(), 0)
        if depth >= 3 and self.pv_interval and not self._interval_passed(now):
            self.held_depth = depth       # (PvInterval) the next progress report prints it
            return
        self.held_depth = 0
        self.last_pv_ms = now
        for k in range(self.multipv):
            self.on_info(self._line_info(k, depth))

    def _emit_progress(self) -> None:
        """Every 500 ms (and at a reported fail-low/high): the last completed iteration's
        lines, all MultiPV of them (a GUI reads the newest block of lines), with the node
        count brought up to date where none was held back by PvInterval; at most once per
        PvInterval."""
        if self.on_info is None:
            return
        now = max(self._elapsed_ms(), 0)
        if self.ctx.bound != 0:
            self._emit_bound(now)
            return
        if not self.completed_lines or not self._interval_passed(now):
            return
        self.last_pv_ms = now
        if self.held_depth:
            depth, self.held_depth = self.held_depth, 0
            for k in range(self.multipv):
                self.on_info(self._line_info(k, depth))
            return
        for k in range(self.multipv):
            info = self._line_info(k, self.ctx.current_depth - 1)
            if k == 0:
                info["seldepth"] = max(self.ctx.seldepth, info["depth"])
            self.on_info(info)

    def _emit_bound(self, long long now) -> None:
        """An aspiration fail-low (upper bound) or fail-high (lower bound) of the
        iteration in progress, MultiPV 1 only (OutputFailLHPV)."""
        cdef Context* c = self.ctx
        cdef RootMove* rm = &c.root_moves[0]
        if (self.multipv != 1 or now < self.bound_pv_after_ms
                or not self._interval_passed(now)):
            return
        self.last_pv_ms = now
        nodes = self._total_nodes()
        info = {"depth": c.current_depth, "seldepth": max(c.seldepth, c.current_depth),
                "nodes": nodes, "nps": nodes * 1000 // now if now > 0 else nodes * 1000,
                "time_ms": now, "hashfull": self.hashfull(), "multipv": 1,
                "pv": [rm.pv[i] for i in range(rm.pv_length)],
                "bound": "upper" if c.bound < 0 else "lower"}
        info.update(_score_fields(c.bound_value))
        self.on_info(info)

    def _result(self, int completed) -> SearchResult:
        """The last completed iteration's best line (at depth 1, even a partial one: a
        move is owed however soon the search is stopped)."""
        cdef Context* c = self.ctx
        cdef RootMove* rm = &c.root_moves[0]
        if self.completed_lines:
            move, v, seldepth, pv = self.completed_lines[0]
        else:
            move, seldepth = rm.move, rm.seldepth
            v = rm.score if rm.score != -VALUE_INFINITE else rm.previous_score
            pv = [rm.pv[i] for i in range(rm.pv_length)]
        fields = _score_fields(v) if v != -VALUE_INFINITE else {"score_cp": 0}
        pv = self._extended(pv)      # (as reported, under extend_pv)
        lines = ([self._line_info(k, completed) for k in range(len(self.completed_lines))]
                 if self.multipv > 1 and len(self.completed_lines) == self.multipv else [])
        return SearchResult(best=move, ponder=pv[1] if len(pv) > 1 else 0, lines=lines,
                            score_cp=fields.get("score_cp", 0),
                            score_mate=fields.get("score_mate"), depth=completed,
                            seldepth=max(seldepth, completed), nodes=self._total_nodes(),
                            time_ms=self._elapsed_ms(), pv=pv)


cdef int _filter_moves(int* moves, int n, set allowed):
    cdef int i, k = 0
    for i in range(n):
        if moves[i] in allowed:
            moves[k] = moves[i]
            k += 1
    return k
