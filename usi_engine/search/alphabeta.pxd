# The tree search's C-level interface: the per-thread search state (Context), root
# moves, score constants, and the entry points the Searcher (search/searcher.pyx) drives.
from usi_engine.core.types cimport MAX_MOVES
from usi_engine.core.position cimport Pos
from usi_engine.core.tt cimport TT
from usi_engine.core.control cimport Control
from usi_engine.search.history cimport History
from usi_engine.eval.kp cimport KPAcc, KPNet
from usi_engine.eval.handwritten cimport HandSums
from libc.stdint cimport int16_t, int64_t, uint64_t

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


# The search's margins and reductions, each a Context's param[] index; their option
# names, defaults and ranges are TUNABLES (params.pxi), in this order.
cdef enum:
    RFP_MARGIN            # reverse futility: static score this far above beta, per ply ...
    RFP_DEPTH             # ... up to this depth
    FUTILITY_BASE         # futility of a quiet move at reduced depth 0 ...
    FUTILITY_PER_DEPTH    # ... and per ply of reduced depth beyond it ...
    FUTILITY_LMR_DEPTH    # ... up to this reduced depth
    MCP_DEPTH             # move-count pruning of quiet moves up to this depth
    QUIET_SEE_PRUNE       # a quiet move losing more than this x (reduced depth)^2 by SEE
    LMR_BASE              # late-move reductions: base + log(depth) log(move number) /
    LMR_DIVISOR           # divisor, both in hundredths of a ply ...
    LMR_HISTORY_DIVISOR   # ... a ply less (or more) per this much history score ...
    LMR_MIN_DEPTH         # ... from this depth ...
    PV_LMR                # ... and these plies less at PV nodes
    LMR_DEEPER            # a reduced move that beats alpha is searched again a ply deeper
                          # when it beat the best so far by this + 2 x depth
    ASPIRATION_DELTA      # first half-width of the aspiration window
    QS_DELTA_MARGIN       # quiescence: skip a capture that cannot lift us this near alpha
    QS_MOVE_COUNT         # quiescence skips captures after this many (but recaptures,
                          # promotions and checks)
    QS_EVASION_LIMIT      # quiescence in check, once not mated: at most this many quiet
                          # evasions
    PROB_CUT_MARGIN        # ProbCut: beta plus this, to be beaten at reduced depth
    NULL_MIN_DEPTH        # null move from this depth, reduced NULL_BASE + depth /
    NULL_BASE             # NULL_DEPTH_DIVISOR plies, one more per NULL_EVAL_DIVISOR of
    NULL_DEPTH_DIVISOR    # static score above beta (three at most)
    NULL_EVAL_DIVISOR
    IIR_DEPTH             # from this depth, a PV or cut node without a table move is
                          # searched a ply shallower (internal iterative reduction)
    QUIET_SORT_LIMIT      # quiet moves scoring below -this x depth are left unsorted
    THREAT_ORDER          # ordering bonus of a quiet move out of a cheaper piece's attack
    N_PARAMS


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
    uint64_t game_boards[64]      # a bit per board key (by its low 12 bits) met before the root
    int max_game_ply
    int entering_king_rule        # EKR_ code (core/position.pxd)
    int draw_value[2]             # a repetition draw's score for the side to move, by colour
    bint report_bounds            # iterate reports an aspiration fail-low/high (ctl.report)
    int bound                     # while reporting one: -1 fail low, 1 fail high, else 0
    int bound_value               # ... and the value that fell outside the window
    int seldepth
    Control ctl                   # nodes, limits, stop, deadlines, Ctrl-C, progress
    int current_depth
    History hist                  # killers, butterfly, counter-move, continuation
    int move_keys[MAX_PLY + 2]    # piece-to of the move made at each ply (NO_PIECE_TO: null)
    int static_evals[MAX_PLY + 2]   # per ply, -VALUE_INFINITE when in check
    const KPNet* kp_net           # the learned evaluation's weights; NULL: hand-written
    KPAcc kp_acc[MAX_PLY + 2]     # its sums per ply, updated move by move
    HandSums hand_sums[MAX_PLY + 2]   # the hand-written one's board and hand sums, likewise
    int pv[MAX_PLY][MAX_PLY]
    int pv_length[MAX_PLY]
    RootMove* root_moves
    int root_count
    int pv_index
    int param[N_PARAMS]           # the margins and reductions this search uses
    int lmr_table[64][64]         # late-move reductions by depth and move number
    int64_t sort_keys[MAX_MOVES]  # the move picker's scratch for sorting (not on the
                                  # stack: a search frame already holds a move list)


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
cdef void note_game_boards(Context* c) noexcept nogil
cdef void set_param(Context* c, int index, int value) noexcept nogil
cdef void default_params(Context* c) noexcept nogil


cdef inline bint is_mate_score(int v) noexcept nogil:
    """v is a mate score (for either side); no Python-level abs() in the hot code."""
    return v >= VALUE_MATE_IN_MAX_PLY or v <= -VALUE_MATE_IN_MAX_PLY


cdef inline int mate_plies(int v) noexcept nogil:
    """The mate distance in plies of a mate score v."""
    return VALUE_MATE - v if v > 0 else VALUE_MATE + v
