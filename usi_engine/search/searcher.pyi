"""Type stub of the tree search (usi_engine/search/searcher.pyx).

    >>> from usi_engine.core.position import Position
    >>> from usi_engine.search.searcher import Searcher
    >>> result = Searcher().search(Position(), depth=4)
    >>> result.depth
    4

Without any limit (depth, nodes, soft_ms/hard_ms) a search runs until stop() is called
from another thread; give it a limit when calling it from a script.
"""
from typing import Any, Callable, Iterable

from usi_engine.eval.kp import Network
from usi_engine.mate.solver import MateSolver
from usi_engine.core.position import Position
from usi_engine.core.tt import HashMemory

SEARCH_MATE_VALUE: int

class SearchResult:
    """Outcome of a search.  best and ponder are moves (ints; 0 when none); the score is
    from the side to move's view: score_mate in plies (negative when being mated) when
    a mate was found, else None and score_cp in centipawns; pv is the principal
    variation; lines, under MultiPV N > 1, the progress dicts of all N lines of the
    last completed iteration (line 1 first), else empty."""
    best: int
    ponder: int
    score_cp: int
    score_mate: int | None
    depth: int
    seldepth: int
    nodes: int
    time_ms: int
    pv: list[int]
    lines: list[dict[str, Any]]
    def __init__(self, best: int = ..., ponder: int = ..., score_cp: int = ...,
                 score_mate: int | None = ..., depth: int = ..., seldepth: int = ...,
                 nodes: int = ..., time_ms: int = ..., pv: Iterable[int] = ...,
                 lines: Iterable[dict[str, Any]] = ...) -> None: ...

class Searcher:
    """Owns the transposition table, histories and its evaluation (the shipped network
    unless set_evaluation says otherwise); runs one search at a time.  search()
    blocks the calling thread (the GIL is released inside); stop() and set_deadlines()
    may be called from any other thread meanwhile."""
    def set_evaluation(self, network: Network | None) -> None:
        """Search with `network` from the next search on, or with the hand-written
        evaluation (None).  Without a call: the network shipped in the package."""
    def set_parameter(self, name: str, value: int) -> None:
        """Set one of the search's margins or reductions (TUNABLES; KeyError if
        unknown, ValueError if out of range) for this searcher's next searches."""
    def parameters(self) -> dict[str, int]:
        """The value of each search parameter, by name."""
    @property
    def evaluation(self) -> Network | None:
        """The network this searcher searches with (None: hand-written)."""
    def set_hash(self, megabytes: int) -> None:
        """(Re)allocate the transposition table (ValueError below 1 MB; MemoryError
        keeps the old one).  A search without a table first allocates 16 MB."""
    def use_memory(self, memory: HashMemory) -> None:
        """Use a block allocated elsewhere (e.g. in another thread) as the table
        memory.  Not during a search."""
    @property
    def hash_mb(self) -> int:
        """The size of the table memory in MB (0 before set_hash or use_memory)."""
    def release_memory(self) -> None:
        """Drop the table memory, so that a new block can be allocated without holding
        both."""
    def mate_solver(self) -> MateSolver:
        """The tsume solver working inside this searcher's memory (the whole block)."""
    def set_threads(self, threads: int) -> None:
        """Use `threads` search threads (1..256; ValueError otherwise) from the next
        search on: the main one and threads - 1 lazy-SMP helpers sharing the table.
        1 is deterministic; node-limited searches always use one.  Not during a
        search."""
    @property
    def threads(self) -> int:
        """The number of search threads."""
    @property
    def thread_nodes(self) -> list[int]:
        """Nodes searched by each thread in the last search, the main thread first."""
    def new_game(self) -> None:
        """Forget everything learnt: TT, killers, histories (at no cost)."""
    def hashfull(self) -> int:
        """Permille of the table in use."""
    def stop(self) -> None:
        """Ask the running search to return as soon as possible (thread-safe)."""
    def clear_stop(self) -> None:
        """Forget an earlier stop()."""
    def set_deadlines(self, soft_ms: float | None, hard_ms: float | None) -> None:
        """Replace the time limits, in ms from now; None means no limit (thread-safe)."""
    def search(self, position: Position, *, depth: int = 0, nodes: int = 0,
               soft_ms: float | None = None, hard_ms: float | None = None,
               multipv: int = 1, searchmoves: Iterable[int] | None = None,
               max_game_ply: int = 0, entering_king_rule: bool | str = True,
               on_info: Callable[[dict[str, Any]], None] | None = None,
               clear_stop: bool = True, mate_probe_ms: int = 0, draw_value: int = 0,
               pv_interval: int = 0, extend_pv: bool = False,
               bound_pv_after_ms: int = -1, clock: Any = None) -> SearchResult:
        """Search position (not modified) and return the best line found.

        Limits (0 or None: none; with none at all the search runs until stop()):
        depth in plies (at most 2**31 - 1; deeper than the search's own ply limit
        means that limit), nodes, and the time limits in ms from the call:
        soft_ms (no new iteration is started after it) and hard_ms (the search is cut
        off at once, keeping the last whole iteration).  multipv: lines to report;
        searchmoves: restrict the root to these moves; max_game_ply: the game is a draw
        after this move number (0: none); entering_king_rule: an EnteringKingRule value
        (CSARule27 = True, CSARule24, CSARule24H, CSARule27H, TryRule, NoEnteringKing =
        False); draw_value: a draw's worth in cp to the side to move at the root (the
        opponent counts minus that); pv_interval: ms at least between two reports (from
        depth 3; 0: every iteration); extend_pv: PVs lengthened from the table;
        bound_pv_after_ms: from then on (>= 0) aspiration fail-low/high lines are
        reported too, with "bound" "upper"/"lower"; on_info: called with a progress dict (depth, seldepth,
        nodes, nps, time_ms, hashfull, multipv, score_cp or score_mate, pv) at each
        iteration and about every 500 ms; mate_probe_ms: a df-pn probe first, for up
        to this many ms (a mate it proves is returned at once); clock: in place of
        soft_ms/hard_ms, an object whose attach(set_deadlines) the search calls as it
        starts and which calls set_deadlines again when its limits change
        (usi_engine.usi.clock.MoveClock)."""
