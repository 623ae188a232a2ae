# cython: language_level=3
"""df-pn tsume solver (`go mate`): its Python API.

The solver is split by concern:

- `table` (table.pyx): the table (proof and disproof hands, replacement), the path set and
  the repetition table; the table works inside memory it is given (`use_memory`:
  the engine's one USI_Hash block, shared with the search) or its own (`set_hash`);
- `dfpn` (dfpn.pyx): the df-pn core, bounded searches for a mate within a number of plies;
- `line` (line.pyx): reading the mating line back with the longest defence;
- here: `MateSolver.solve`, which proves a mate, then looks for mates 2 plies
  shorter until none exists, then reads the line back, and the statistics.

Lengths: by default useless interpositions (a block captured at once, after which
the mate needs no more plies than the longest other defence and not the piece) are
not counted, as in published tsume lengths; `published=False` counts every defence
(strict minimax, as some tsume benchmarks do).  Every reported line is replayed
before it is returned.  Pawn-drop mate is excluded by the move generator; positions
without the attacker's king are fine.

    >>> from usi_engine.core.position import Position
    >>> MateSolver().solve(Position("4k4/9/4P4/9/9/9/9/9/9 b G 1")).usi()
    'checkmate G*5b'
"""
import threading
import time

from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memset
from cpython.ref cimport Py_XDECREF

from usi_engine.core.types cimport *
from usi_engine.core.position cimport (Position, state, in_check, pos_copy, pos_free, pos_reserve,
                                  hand_covers)
from usi_engine.core.atomics cimport atomic_load_int, atomic_load_i64, atomic_store_i64, monotonic_ns
from usi_engine.core.control cimport (Control, ctl_stop, ctl_clear_stop, ctl_start, ctl_deadline_after,
                                 ctl_raise_pending, ctl_elapsed_ms)
from usi_engine.core.tt cimport HashMemory, WRITER_MATE, WRITER_PROBE
from usi_engine.mate.table cimport *
from usi_engine.mate.dfpn cimport prove_root
from usi_engine.mate.line cimport exact_line, principal_variation

from usi_engine.mate.dfpn import _set_heuristics

__all__ = ["MateResult", "MateSolver", "defender_moves_first", "_set_heuristics"]

init_tables()


def defender_moves_first(position, bint root_is_and_node_if_checked=True) -> bool:
    """Whether the side to move is the defender of a `go mate` (the solve's
    defender_first), as KomoringHeights decides: not if it has no king; if the
    opponent has none; else if it is in check and root_is_and_node_if_checked (with
    both kings and a check, either side could be the attacker).

    >>> from usi_engine.core.position import Position
    >>> defender_moves_first(Position("4k4/9/4P4/9/9/9/9/9/9 b G 1"))
    False
    >>> defender_moves_first(Position("4k4/9/4P4/9/9/9/9/9/9 w G 1"))
    True
    """
    us = position.turn
    if position.king_square(us) < 0:
        return False
    if position.king_square(us ^ 1) < 0:
        return True
    return root_is_and_node_if_checked and position.is_check()


def _is_drop(int move) -> bool:
    return move_is_drop(move)


def _taken_at_once(int drop, int reply) -> bool:
    """A drop that the next move captures."""
    return move_is_drop(drop) and move_to(drop) == move_to(reply)


def _after_reply(on_info, int reply):
    """The progress callback of the solve after the defender's first reply: its lines
    begin with that reply, and their score is the side to move's, mated (negative)."""
    if on_info is None:
        return None

    def report(info):
        if "pv" in info:
            info = dict(info, pv=[reply] + list(info["pv"]),
                        score_mate=-(info["score_mate"] + 1))
        on_info(info)
    return report


class MateResult:
    """status is 'mate', 'nomate' or 'timeout'; pv the mating line (moves as ints).
    shortest: the line's length is proven the mate's length (no shorter mate exists
    and the line is against the longest defence); False when a limit ended the search
    for shorter mates or the settling of the defences first, or shortest=False was
    asked: the length may then differ with more time, either way."""
    __slots__ = ("status", "pv", "nodes", "time_ms", "shortest")

    def __init__(self, status, pv=(), nodes=0, time_ms=0, shortest=False):
        self.status, self.pv, self.nodes, self.time_ms = status, list(pv), nodes, time_ms
        self.shortest = bool(shortest)

    def usi(self) -> str:
        """The USI reply: 'checkmate m1 ... mn', 'checkmate nomate' or 'checkmate timeout'
        ('checkmate' alone: a defender-first solve whose side to move is already mated)."""
        from usi_engine.core.position import move_to_usi
        if self.status == "mate":
            return " ".join(["checkmate"] + [move_to_usi(m) for m in self.pv])
        return "checkmate " + self.status

    def __repr__(self):
        return f"MateResult({self.status!r}, plies={len(self.pv)}, nodes={self.nodes})"


cdef void _report(void* owner) noexcept with gil:
    try:
        (<MateSolver>owner)._emit_progress()
    except BaseException:
        pass     # a broken callback must not kill the solve


cdef class MateSolver:
    """df-pn solver; one solve at a time.  Its table lives in memory of its own
    (`set_hash`) or in a block it shares (`use_memory`).  `stop` and `set_deadline`
    may be called from another thread during `solve`; Ctrl-C on the main thread
    interrupts `solve` (KeyboardInterrupt)."""
    cdef Solver s
    cdef HashMemory memory
    cdef size_t region_offset, region_size
    cdef int writer              # WRITER_MATE (whole block) or WRITER_PROBE (its slice)
    cdef object on_info
    cdef int best_length
    cdef object best_pv          # the shortest mate proved so far (a tuple), or None

    def __cinit__(self):
        if solver_init(&self.s) != 0:
            solver_free(&self.s)
            raise MemoryError()
        self.s.ctl.owner = <void*>self
        self.s.ctl.report = _report
        self.writer = WRITER_MATE

    def __dealloc__(self):
        solver_free(&self.s)
        pos_free(&self.s.pos)
        Py_XDECREF(self.s.ctl.pending)
        self.s.ctl.pending = NULL

    def set_hash(self, int megabytes) -> None:
        """Give the solver a table of its own of this many MB (MemoryError keeps the
        old one)."""
        self.use_memory(HashMemory(megabytes))

    def use_memory(self, HashMemory memory not None, bint probe=False) -> None:
        """Work inside memory (shared with a search's table): the whole block, or with
        probe the slice the search leaves for its mate probe.  The table starts empty
        whenever another table has written over its region since its last solve."""
        cdef size_t offset = memory.probe_offset() if probe else 0
        cdef size_t size = memory.size - offset
        if size < BUCKET * sizeof(MateEntry):
            raise ValueError("memory too small for the mate table")
        if memory is self.memory and offset == self.region_offset and size == self.region_size:
            return
        self.memory = memory
        self.region_offset = offset
        self.region_size = size
        self.writer = WRITER_PROBE if probe else WRITER_MATE
        table_attach(&self.s, memory.base + offset, size)

    @property
    def megabytes(self) -> int:
        """The table's size in MB (0 before set_hash or use_memory)."""
        return self.region_size >> 20

    def clear(self) -> None:
        """Forget the table (at no cost: nothing is written)."""
        if self.s.table != NULL:
            table_forget(&self.s)

    def stop(self) -> None:
        """Ask the running solve to return as soon as possible (thread-safe)."""
        ctl_stop(&self.s.ctl)

    def clear_stop(self) -> None:
        """Forget an earlier stop() (see Searcher.clear_stop)."""
        ctl_clear_stop(&self.s.ctl)

    def set_deadline(self, ms) -> None:
        """Time limit in ms from now (None: none); thread-safe."""
        atomic_store_i64(&self.s.ctl.hard_deadline, ctl_deadline_after(ms))

    def hashfull(self) -> int:
        """Permille of the first thousand table slots in use."""
        cdef int i, used = 0
        cdef int n = min(1000, self.s.buckets * BUCKET)
        for i in range(n):
            used += entry_live(&self.s, &self.s.table[i])
        return used * 1000 // n if n else 0

    def stats(self) -> dict:
        """Counters of the last solve (for tuning)."""
        return {"nodes": self.s.ctl.nodes, "path_disproofs": self.s.path_disproofs,
                "contradictions": self.s.contradictions,
                "truncations": self.s.truncations,
                "lookahead_proofs": self.s.lookahead_proofs,
                "repetition_entries": self.s.rep_count}

    def _contradictions(self) -> int:
        """Pairs of a proof and an unbounded disproof of one board whose hands overlap:
        one of them is wrong (a debugging aid)."""
        cdef uint64_t bi
        cdef int i, j
        cdef MateEntry* b
        cdef int count = 0
        for bi in range(self.s.buckets):
            b = &self.s.table[bi * BUCKET]
            for i in range(BUCKET):
                if b[i].kind != KIND_PROVEN or not entry_live(&self.s, &b[i]):
                    continue
                for j in range(BUCKET):
                    if (b[j].kind == KIND_DISPROVEN and entry_live(&self.s, &b[j])
                            and b[j].key == b[i].key and b[j].bound == UNBOUNDED
                            and hand_covers(b[j].hand, b[i].hand)):
                        count += 1
        return count

    def _probe(self, Position position not None, int bound=UNBOUNDED) -> tuple:
        """What the table says of a position for a search within `bound` plies:
        (pn, dn, length of the proof, proof or disproof hand) (a debugging aid)."""
        cdef Child c
        c.init_pn = 1
        c.init_dn = 1
        c.solved_hand = 0
        if self.s.table == NULL:
            return (1, 1, 0, 0)
        tt_look(&self.s, state(&position.pos).board_key,
                position.pos.hand[self.s.attacker], bound, &c)
        return (c.pn, c.dn, c.length, c.solved_hand)

    def table_usage(self) -> tuple:
        """(entries in use, capacity) over the whole table."""
        cdef uint64_t i, used = 0
        for i in range(self.s.buckets * BUCKET):
            used += entry_live(&self.s, &self.s.table[i])
        return used, self.s.buckets * BUCKET

    def _emit_progress(self) -> None:
        if self.on_info is not None:
            elapsed = ctl_elapsed_ms(&self.s.ctl)
            nodes = self.s.ctl.nodes
            info = {"nodes": nodes, "time_ms": elapsed,
                    "nps": nodes * 1000 // elapsed if elapsed else 0,
                    "hashfull": self.hashfull(), "mate_length": self.best_length}
            if self.best_pv is not None:
                info["score_mate"] = len(self.best_pv)
                info["pv"] = list(self.best_pv)
            self.on_info(info)

    cdef void _found(self, pv, str note):
        """A (shorter or settled) mate line: kept for the progress lines, and said."""
        self.best_pv = tuple(pv)
        self.best_length = len(pv)
        if self.on_info is not None and note:
            try:
                self.on_info({"string": note})
            except BaseException:
                pass     # a broken callback must not kill the solve

    def solve(self, Position position not None, time_ms=None, long long nodes=0,
              on_info=None, bint shortest=True, bint clear_stop=True,
              bint published=True, bint upper_bound=False,
              bint defender_first=False) -> MateResult:
        """Look for a mate for the side to move; position is not modified.

        With shortest=True, once a mate of length L is proved the solver looks for one
        of L - 2 plies, and so on until that fails or time runs out; the answer is the
        shortest line proved, against the longest defence.  With upper_bound as well,
        it stops at the first line as long as the length its proof bounds (never
        shorter than the mate, not proven shortest: KomoringHeights' PostSearchLevel
        UpperBound); shortest=False stops at the first mate found (its None).  With
        published=True the line passes over useless interpositions as published tsume
        lengths do; with False every defence counts (strict minimax).  The side to
        move may start in check (its first move then parries it with a check).  With
        defender_first the side to move defends: the line begins with its reply and
        has even length (an empty line: it is already mated; see
        `defender_moves_first`).  `nodes` (0: none) bounds the nodes of the whole
        solve.  Ctrl-C (on the main thread) raises KeyboardInterrupt within a few
        milliseconds."""
        if defender_first:
            return self._solve_defender_first(position, time_ms, nodes, on_info, shortest,
                                              clear_stop, published, upper_bound)
        if self.s.table == NULL:
            self.set_hash(64)
        if self.memory.last_writer != self.writer or self.s.published != published:
            # another table wrote over this memory, or its lengths were counted the
            # other way (published or strict)
            table_forget(&self.s)
        self.memory.last_writer = self.writer
        self.s.published = published
        try:
            return self._solve(position, time_ms, nodes, on_info, shortest, clear_stop,
                               published, upper_bound)
        finally:
            self.on_info = None
            ctl_raise_pending(&self.s.ctl)

    def _solve_defender_first(self, Position position, time_ms, long long nodes, on_info,
                              bint shortest, bint clear_stop, bint published,
                              bint upper_bound):
        """Every reply of the side to move, each followed by the opponent's mate: mate
        if all are mated (the longest, as published: a drop taken at once does not
        count), else nomate or timeout."""
        started = time.monotonic()
        replies = position.legal_moves()
        total_nodes = 0
        proven = True
        longest = None          # (published length, a non-drop, line)
        for k, reply in enumerate(replies):
            used_ms = int((time.monotonic() - started) * 1000)
            if (time_ms is not None and used_ms >= time_ms) or (nodes and total_nodes >= nodes):
                return MateResult("timeout", (), total_nodes, used_ms)
            child = position.copy()
            child.push(reply)
            # each reply its share of the time left, so that the first one's search for
            # shorter mates does not leave the others none
            result = self.solve(
                child, time_ms=None if time_ms is None
                else (time_ms - used_ms) // (len(replies) - k),
                nodes=nodes - total_nodes if nodes else 0,
                on_info=_after_reply(on_info, reply), shortest=shortest,
                clear_stop=clear_stop and k == 0, published=published,
                upper_bound=upper_bound)
            total_nodes += result.nodes
            if result.status != "mate":
                return MateResult(result.status, (), total_nodes,
                                  int((time.monotonic() - started) * 1000))
            proven = proven and result.shortest
            line = [reply] + result.pv
            length = len(line)
            if published and _taken_at_once(reply, result.pv[0]):
                length -= 2         # a useless interposition and its capture
            key = (length, not _is_drop(reply), line)
            if longest is None or key[:2] > longest[:2]:
                longest = key
        elapsed = int((time.monotonic() - started) * 1000)
        return MateResult("mate", longest[2] if longest else (), total_nodes, elapsed,
                          shortest and proven)

    def _solve(self, Position position, time_ms, long long nodes, on_info, bint shortest,
               bint clear_stop, bint published, bint upper_bound):
        cdef Solver* s = &self.s
        cdef int length, status
        s.published = published
        if pos_copy(&s.pos, &position.pos) != 0 or not pos_reserve(&s.pos, MAX_PATH + 16):
            raise MemoryError()
        if clear_stop:
            ctl_clear_stop(&s.ctl)
        self.set_deadline(time_ms)
        self.on_info = on_info
        self.best_pv = None
        s.attacker = s.pos.side
        s.path_disproofs = s.truncations = s.lookahead_proofs = s.contradictions = 0
        ctl_start(&s.ctl, nodes if nodes > 0 else 0,
                  threading.current_thread() is threading.main_thread())
        s.overflow = False
        s.max_ply = s.pos.sp + MAX_PATH
        self.best_length = 0
        status = prove_root(s, UNBOUNDED, &length)
        if status != 1:
            elapsed = ctl_elapsed_ms(&s.ctl)
            if status == -1:
                return MateResult("nomate", (), s.ctl.nodes, elapsed)
            return MateResult("timeout", (), s.ctl.nodes, elapsed)
        pv = principal_variation(s, length)
        if pv is not None:
            self._found(pv, f"mate in {len(pv)} found; looking for a shorter one"
                        if shortest and len(pv) > 1 else "")
        proved = length
        if upper_bound and pv is not None and len(pv) == proved:
            return MateResult("mate", pv, s.ctl.nodes, ctl_elapsed_ms(&s.ctl), False)
        # then shorter mates, until 60% of the time; the line with the longest
        # defence settled, until 85%; else the line as the table's lengths say
        shorten = self._phase_deadline(time_ms, 60)
        no_shorter = proved <= 1        # proven: no mate of fewer plies exists
        while shortest and shorten and proved > 1 and not s.ctl.aborted:
            status = prove_root(s, proved - 2, &length)
            if status != 1:
                no_shorter = status == -1
                break
            proved = length
            shorter = principal_variation(s, length)
            if shorter is not None:
                pv = shorter
                self._found(pv, f"mate in {len(pv)} found; looking for a shorter one")
                if upper_bound and len(pv) == proved:
                    return MateResult("mate", pv, s.ctl.nodes, ctl_elapsed_ms(&s.ctl), False)
            no_shorter = proved <= 1
        line = None
        settled = False
        for settle in ([True, False] if shortest else [False]):
            if not self._phase_deadline(time_ms, 85 if settle else 0):
                if self._hard_stop():
                    break
                continue        # no time left to settle: read the line as it stands
            # the table's lengths are upper bounds, and entries may have been replaced:
            # read the line back, searching where the table does not decide
            if settle and self.on_info is not None:
                try:
                    self.on_info({"string": f"settling the longest defence against the "
                                            f"mate in {len(pv) if pv is not None else proved}"})
                except BaseException:
                    pass
            line = exact_line(s, proved, settle)
            if line is not None:
                pv = line
                self._found(pv, "")
                settled = settle
                break
        s.ctl.phase_deadline = 0
        elapsed = ctl_elapsed_ms(&s.ctl)
        if pv is None:
            return MateResult("timeout", (), s.ctl.nodes, elapsed)
        return MateResult("mate", pv, s.ctl.nodes, elapsed,
                          shortest and no_shorter and settled)

    cdef bint _phase_deadline(self, time_ms, int percent):
        """Let the search go on until percent of time_ms (0: the real deadline).  False
        if that moment has passed, or stop, the deadline or the node limit has already
        ended the solve."""
        cdef Solver* s = &self.s
        s.ctl.phase_deadline = 0
        if s.ctl.aborted:
            if self._hard_stop():
                return False
            s.ctl.aborted = False
        if percent and time_ms is not None:
            s.ctl.phase_deadline = s.ctl.start_ns + <int64_t>(max(time_ms, 0) * percent * 10000)
            if monotonic_ns() >= s.ctl.phase_deadline:
                return False
        return True

    cdef bint _hard_stop(self):
        """Whether stop, the deadline, the node limit or Ctrl-C has ended the solve."""
        cdef Control* c = &self.s.ctl
        cdef int64_t deadline = atomic_load_i64(&c.hard_deadline)
        return (atomic_load_int(&c.stop) != 0 or c.pending != NULL
                or (deadline != 0 and monotonic_ns() >= deadline)
                or (c.node_limit != 0 and c.nodes >= c.node_limit))
