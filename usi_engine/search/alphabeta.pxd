# The tree search's C-level interface: the per-thread search state (Context), root
# moves, score constants, and the entry points the Searcher (search/searcher.pyx) drives.
from usi_engine.core.types cimport MAX_MOVES
from usi_engine.core.position cimport Pos
from usi_engine.core.tt cimport TT
from usi_engine.core.control cimport Control
from usi_engine.search.history cimport History
from usi_engine.eval.kp cimport KPAcc, KPNet
from usi_engine.eval.handwritten cimport HandSums
from libc.stdint cimport int16_t

cdef enum:
    MAX_PLY = 128
    MAX_ROOT_MOVES = MAX_MOVES
    VALUE_INFINITE = 32001
    VALUE_MATE = 32000
    VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY
    VALUE_NONE = 32002
    QSEARCH_MAX_PLIES = 16
    MATE1_MIN_DEPTH = 1      # nodes at least this deep look for a mate in one first
    NO_DEADLINE = 0


cdef struct RootMove:
    int move
    int score
    int previous_score
    int seldepth
    int pv_length
    int pv[MAX_PLY]


cdef struct Context:
    Pos pos
    RootMove best_line            # root_moves[0] after the last completed iteration
    int completed_depth
    TT* tt
    int root_sp
    int max_game_ply
    bint entering_king_rule
    int seldepth
    Control ctl                   # nodes, limits, stop, deadlines, Ctrl-C, progress
    int current_depth
    History hist                  # killers, butterfly, counter-move, continuation
    int move_keys[MAX_PLY + 2]    # piece-to of the move made at each ply (NO_PIECE_TO: null)
    int static_evals[MAX_PLY + 2]   # per ply, -VALUE_INFINITE when in check
    const KPNet* kp_net           # the learned evaluation's weights; NULL: hand-written
    KPAcc kp_acc[MAX_PLY + 2]     # its sums per ply, updated move by move
    HandSums hand_sums[MAX_PLY + 2]   # the hand-written one's board sums, likewise
    int pv[MAX_PLY][MAX_PLY]
    int pv_length[MAX_PLY]
    RootMove* root_moves
    int root_count
    int pv_index


cdef inline int mate_in(int ply) noexcept nogil:
    return VALUE_MATE - ply


cdef inline int mated_in(int ply) noexcept nogil:
    return -VALUE_MATE + ply


cdef inline int value_to_tt(int v, int ply) noexcept nogil:
    """Mate scores are stored relative to the node, not the root."""
    if v >= VALUE_MATE_IN_MAX_PLY:
        return v + ply
    if v <= -VALUE_MATE_IN_MAX_PLY:
        return v - ply
    return v


cdef inline int value_from_tt(int v, int ply) noexcept nogil:
    if v >= VALUE_MATE_IN_MAX_PLY:
        return v - ply
    if v <= -VALUE_MATE_IN_MAX_PLY:
        return v + ply
    return v


cdef void iterate(Context* c, int depth, int multipv) noexcept nogil


cdef inline bint is_mate_score(int v) noexcept nogil:
    """v is a mate score (for either side); no Python-level abs() in the hot code."""
    return v >= VALUE_MATE_IN_MAX_PLY or v <= -VALUE_MATE_IN_MAX_PLY


cdef inline int mate_plies(int v) noexcept nogil:
    """The mate distance in plies of a mate score v."""
    return VALUE_MATE - v if v > 0 else VALUE_MATE + v
