# Included by alphabeta.pyx (one extension, so the search reads these as plain C globals):
# the margins and reductions of the search, their table, and the reduction table derived
# from them.
#
# TUNABLES is the one declaration of each parameter: (USI option name, default, min,
# max), in the order of the enum below, whose names (the option's in upper snake case)
# the search indexes PARAM[] by (tests/test_tuning.py checks that the two agree).  The
# options exist only when USI_ENGINE_TUNE is set (usi/tuning.py), for tuning runs
# (bench/strength/spsa_tune.py); a GUI never lists them.  What each value was measured
# at: docs/experiment-log.md.

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

#: (USI option name, default, min, max) of each search parameter, in Param's order.
TUNABLES = (
    ("RfpMargin", 150, 50, 400),
    ("RfpDepth", 5, 1, 20),
    ("FutilityBase", 120, 0, 400),
    ("FutilityPerDepth", 120, 30, 400),
    ("FutilityLmrDepth", 6, 0, 64),
    ("McpDepth", 7, 0, 64),
    ("QuietSeePrune", 25, 0, 400),
    ("LmrBase", 40, -100, 200),
    ("LmrDivisor", 190, 100, 500),
    ("LmrHistoryDivisor", 10000, 2000, 50000),
    ("LmrMinDepth", 3, 2, 8),
    ("PvLmr", 1, 0, 8),
    ("LmrDeeper", 60, 0, 400),
    ("AspirationDelta", 40, 10, 200),
    ("QsDeltaMargin", 200, 0, 800),
    ("QsMoveCount", 2, 1, 64),
    ("QsEvasionLimit", 2, 1, 64),
    ("ProbCutMargin", 200, 50, 600),
    ("NullMinDepth", 3, 1, 8),
    ("NullBase", 4, 1, 8),
    ("NullDepthDivisor", 3, 1, 16),
    ("NullEvalDivisor", 200, 50, 1000),
    ("IirDepth", 4, 2, 20),
    ("QuietSortLimit", 2000, 0, 100000),
    ("ThreatOrder", 16384, 0, 60000),
)

cdef enum:
    SEE_PRUNE_MARGIN = 200    # per ply: late captures and checks losing more are reduced

cdef int PARAM[N_PARAMS]   # the value of each Param, for every search of the process

# Late-move reductions grow with the log of the depth and of the move number (as in
# Stockfish-family searches): in shogi the quiet tail, drops included, is long.
cdef int LMR_TABLE[64][64]


cdef void _init_reductions() noexcept nogil:
    cdef int d, m
    for d in range(64):
        for m in range(64):
            LMR_TABLE[d][m] = 0 if d == 0 or m == 0 else <int>(
                PARAM[LMR_BASE] / 100.0 + log(d) * log(m) * 100.0 / PARAM[LMR_DIVISOR])


_PARAM_INDEX = {spec[0]: i for i, spec in enumerate(TUNABLES)}
assert len(TUNABLES) == <int>N_PARAMS, "TUNABLES and the parameter enum differ"


def set_search_parameter(name: str, value: int) -> None:
    """Set one of the TUNABLES (KeyError if unknown, ValueError if out of range) for
    every search of this process; call it only while no search runs.

    >>> set_search_parameter("RfpMargin", 160); search_parameters()["RfpMargin"]
    160
    """
    cdef int i = _PARAM_INDEX[name]
    spec = TUNABLES[i]
    v = int(value)
    if not spec[2] <= v <= spec[3]:
        raise ValueError(f"{name}: {v} is outside {spec[2]}..{spec[3]}")
    PARAM[i] = v
    _init_reductions()


def search_parameters() -> dict:
    """The current value of each of the TUNABLES, by name."""
    return {spec[0]: PARAM[i] for i, spec in enumerate(TUNABLES)}


for _name, _default, _low, _high in TUNABLES:
    set_search_parameter(_name, _default)
