# Included by alphabeta.pyx: the margins and reductions of the search, their table, and
# the reduction table derived from them.
#
# TUNABLES is the one declaration of each parameter: (USI option name, default, min,
# max), in the order of the enum in alphabeta.pxd, whose names (the option's in upper
# snake case) the search indexes a Context's param[] by (tests/test_tuning.py checks
# that the two agree).  Each Searcher holds its own values (Searcher.set_parameter).  The
# options exist only when USI_ENGINE_TUNE is set (usi/tuning.py), for tuning runs
# (bench/strength/spsa_tune.py); a GUI never lists them.  What each value was measured
# at: docs/decisions.md (a line a value tried, with its evidence).


#: (USI option name, default, min, max) of each search parameter, in Param's order.
TUNABLES = (
    ("RfpMargin", 150, 50, 400),
    ("RfpDepth", 5, 1, 20),
    ("FutilityBase", 42, 0, 400),
    ("FutilityPerDepth", 120, 30, 400),
    ("FutilityLmrDepth", 12, 0, 64),
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

_PARAM_INDEX = {spec[0]: i for i, spec in enumerate(TUNABLES)}
assert len(TUNABLES) == N_PARAMS, "TUNABLES and the parameter enum differ"


cdef void set_param(Context* c, int index, int value) noexcept nogil:
    """Give parameter `index` this value in context c (and the reductions that derive
    from it).  Late-move reductions grow with the log of the depth and of the move
    number (as in Stockfish-family searches): in shogi the quiet tail, drops included,
    is long."""
    cdef int d, m
    c.param[index] = value
    for d in range(64):
        for m in range(64):
            c.lmr_table[d][m] = 0 if d == 0 or m == 0 else <int>(
                c.param[LMR_BASE] / 100.0 + log(d) * log(m) * 100.0 / c.param[LMR_DIVISOR])


cdef int _DEFAULTS[N_PARAMS]
for _i, _spec in enumerate(TUNABLES):
    _DEFAULTS[_i] = _spec[1]


cdef void default_params(Context* c) noexcept nogil:
    """Every parameter at its default, in context c."""
    cdef int i
    for i in range(N_PARAMS):
        c.param[i] = _DEFAULTS[i]
    set_param(c, 0, _DEFAULTS[0])


def parameter_index(name: str, value: int) -> int:
    """The index of parameter `name` (KeyError if unknown), after checking that `value`
    is in its range (ValueError if not)."""
    i = _PARAM_INDEX[name]
    spec = TUNABLES[i]
    if not spec[2] <= int(value) <= spec[3]:
        raise ValueError(f"{name}: {value} is outside {spec[2]}..{spec[3]}")
    return i
