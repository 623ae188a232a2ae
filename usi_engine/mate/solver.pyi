"""Type stub of the df-pn tsume solver's API (usi_engine/mate/solver.pyx; the table, the df-pn
core and the line reading are in table.pyx, dfpn.pyx and line.pyx).

    >>> from usi_engine.core.position import Position
    >>> from usi_engine.mate.solver import MateSolver
    >>> solver = MateSolver()
    >>> solver.set_hash(64)
    >>> solver.solve(Position("4k4/9/4P4/9/9/9/9/9/9 b G 1"), time_ms=1000).usi()
    'checkmate G*5b'
"""
from typing import Callable, Literal

from usi_engine.core.position import Position
from usi_engine.core.tt import HashMemory

class MateResult:
    """status: 'mate', 'nomate' or 'timeout'; pv: the mating line (moves as ints)."""
    status: Literal["mate", "nomate", "timeout"]
    pv: list[int]
    nodes: int
    time_ms: int
    shortest: bool
    """The length is proven: no shorter mate, and the line against the longest defence
    (False when a limit cut that work short: the length may change with more time)."""
    def __init__(self, status: str, pv: list[int] = ..., nodes: int = ..., time_ms: int = ...,
                 shortest: bool = ...) -> None: ...
    def usi(self) -> str:
        """'checkmate m1 ... mn', 'checkmate nomate' or 'checkmate timeout'."""

class MateSolver:
    """df-pn solver; one solve at a time.  stop() and set_deadline() may be called
    from another thread during solve(); Ctrl-C on the main thread interrupts it."""
    megabytes: int
    def set_hash(self, megabytes: int) -> None:
        """A table of its own (ValueError below 1 MB; MemoryError keeps the old one)."""
    def use_memory(self, memory: HashMemory, probe: bool = False) -> None:
        """Work inside a shared block (the whole, or with probe the search's probe slice)."""
    def clear(self) -> None:
        """Forget the table (at no cost)."""
    def stop(self) -> None:
        """Ask the running solve to return as soon as possible (thread-safe)."""
    def clear_stop(self) -> None: ...
    def set_deadline(self, ms: float | None) -> None:
        """Time limit in ms from now (None: none); thread-safe."""
    def hashfull(self) -> int:
        """Permille of the table in use (first thousand slots)."""
    def stats(self) -> dict[str, int]: ...
    def table_usage(self) -> tuple[int, int]:
        """(entries in use, capacity)."""
    def solve(self, position: Position, time_ms: float | None = None, nodes: int = 0,
              on_info: Callable[[dict], None] | None = None, shortest: bool = True,
              clear_stop: bool = True, published: bool = True, upper_bound: bool = False,
              defender_first: bool = False) -> MateResult:
        """Look for a mate for the side to move (position is not modified).

        shortest: prove that no shorter mate exists and settle the longest defences
        (else: the first mate proved); upper_bound: stop at the first line as long as
        its proof's bound.  published: useless interpositions are not counted, as in
        published tsume lengths (else: every defence counts).  defender_first: the side
        to move defends (the line begins with its reply; even length).  nodes bounds
        the whole solve.  The line is replayed before it is returned."""

def defender_moves_first(position: Position, root_is_and_node_if_checked: bool = True) -> bool:
    """Whether the side to move defends in a go mate (KomoringHeights' rule)."""

def _set_heuristics(dfpn_plus: bool = True, delay: bool = True, hand_sets: bool = True,
                    lookahead: int = 1, epsilon_shift: int = 1) -> None: ...
