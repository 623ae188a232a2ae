# Included by search/alphabeta.pyx (one extension, so the search reads these as plain C globals):
# the search parameters tuned by games, their USI-option table and the reduction
# table derived from them.
# Search parameters tuned by games (bench/spsa_tune.py runs SPSA over them through
# USI options that exist only when USI_ENGINE_TUNE is set, so a GUI never lists them).
# Each is a C global read by the search; TUNABLES holds every default, once.
# (README.md, "Figures", has the match behind each value.)
cdef int RFP_MARGIN           # reverse futility: static score this far above beta, per ply
cdef int FUTILITY_BASE        # futility of a quiet move at reduced depth 0 ...
cdef int FUTILITY_PER_DEPTH   # ... and per ply of reduced depth beyond it
cdef int LMR_BASE_CENTI       # LMR_TABLE = base + log(depth) log(move number) / divisor,
cdef int LMR_DIVISOR_CENTI    # both in hundredths
cdef int LMR_HISTORY_DIVISOR  # history score worth one ply less (or more) reduction
cdef int ASPIRATION_DELTA     # first half-width of the aspiration window
cdef int QS_DELTA_MARGIN      # quiescence: skip a capture that cannot lift us this near alpha
cdef int CORR_HIST            # correction history on (1) or off (0)
cdef int PROBCUT_MARGIN       # ProbCut: beta plus this, to be beaten at reduced depth (0: off)
cdef int CUT_NODE_REDUCTION   # extra LMR plies at an expected cut node
cdef int PRUNE_CHECKS         # checks and losing captures like quiet moves: 1 reduced (LMR),
                              # 2 move-count pruned (quiet checks), 4 SEE-pruned (bit 4
                              # only with CapturePrune 0, whose rule otherwise decides)
cdef int RFP_DEPTH            # reverse futility up to this depth
cdef int QS_MATE1_PLIES       # quiescence plies (from its first) that test for a mate in one
cdef int HISTORY_BONUS_SCALE  # a cut-off's history bonus is this x depth^2
cdef int QS_MATE1_AFTER_STAND_PAT  # quiescence looks for a mate in one only below beta
cdef int NULL_MIN_DEPTH       # null move from this depth
cdef int NULL_EVAL_DIVISOR    # null move: one more ply of reduction per this much static
                              # score above beta, three at most (0: none)
cdef int RAZOR_MARGIN         # razoring: static score this far below alpha x depth^2, to
                              # depth 3, is settled by quiescence (0: off)
cdef int QUIET_SORT_LIMIT     # quiet moves sorted once, those below -this x depth left
                              # unsorted (0: the best picked from the rest each time)
cdef int QS_RECAPTURE_PLY     # quiescence from this ply on (0: never) searches only
                              # captures on the square of the previous move
cdef int QS_MOVE_COUNT        # quiescence (not in check) skips captures after this many,
                              # recaptures and promotions excepted (0: none skipped)
cdef int QS_EVASION_LIMIT     # quiescence in check, once not mated: at most this many
                              # quiet evasions (0: all)
cdef int RFP_IMPROVING        # reverse futility a ply's margin less while improving
cdef int CAPTURE_FUTILITY     # a capture (not a check) to depth 6 whose victim cannot lift
                              # the static score within this x (depth + 1) of alpha is
                              # pruned (0: never)
cdef int IIR_DEPTH            # from this depth (0: never), a PV or cut node without a table
                              # move is searched a ply shallower
cdef int QS_CHECKS            # quiescence's first ply: at most this many quiet checks that
                              # do not lose material, after the captures (0: none)
cdef int TT_EVAL              # node pruning reads the table's value where its bound says
                              # it is a better guess than the static score (0: off; 1
                              # against 0 after the SEE fix: +10 Elo [-36, +57] in 200 games)
cdef int MCP_DEPTH             # move-count pruning of quiet moves up to this depth
cdef int FUTILITY_LMR_DEPTH    # futility pruning of quiet moves up to this reduced depth
cdef int NULL_BASE             # null move: reduction NULL_BASE + depth / NULL_DEPTH_DIVISOR
cdef int NULL_DEPTH_DIVISOR    # (4 + depth / 3 as in Stockfish-family searches, against
                              # 3 + depth / 4 before: 30% fewer nodes to depth 13 on
                              # opening positions, +16 Elo [-32, +64] in 200 games)
cdef int LMR_MIN_DEPTH         # late-move reductions from this depth
cdef int TT_CAPTURE_REDUCTION  # extra LMR plies for quiet moves when the table move is a
                              # capture (0: none; 1 scored +2 Elo [-46, +49], left off)
cdef int SINGULAR_DEPTH        # singular extension of the table move from this depth (0: off)
cdef int SINGULAR_MARGIN       # its search is against the table value less this x depth / 8
cdef int THREAT_ORDER          # quiet moves out of (into) a cheaper piece's attack ordered
                              # this much higher (lower); 0: off (16384 against 0: +37
                              # Elo [-11, +85] in 200 games at 100 ms)
cdef int LMR_DEEPER            # a reduced move that beats alpha is searched again a ply
                              # deeper when it beat the best so far by this + 2 x depth,
                              # a ply shallower when it came within 9 of it (0: off;
                              # 60 against 0: +21 Elo [-27, +69] in 200 games at 100 ms)
cdef int QS_CHECK_EXEMPT        # quiescence: a capture that gives check escapes the move
                              # count and delta pruning (as in YaneuraOu's; 0: off; 1
                              # against 0: +14 Elo [-34, +62] in 200 games at 100 ms)
cdef int QUIET_SEE_PRUNE          # a quiet move (no check) whose SEE loses more than this x
                              # (reduced depth)^2 is pruned, as in YaneuraOu (0: off; 25
                              # against 0: +17 Elo [-29, +65] in 200 games at 100 ms,
                              # hand-set eval)
cdef int PRUNE_PV               # the shallow-depth pruning of moves at PV nodes too (as in
                              # Stockfish-family searches; 0: non-PV nodes only; 1 against
                              # 0: +9 Elo [-38, +56] in 200 games at 100 ms, hand-set eval)
cdef int FUTILITY_HISTORY       # the reduced depth of futility and SEE pruning counts the
                              # move's history, killers and improving like its LMR (0: off)
cdef int COUNT_PRUNED           # move-count pruning and LMR count pruned moves too (0: only
                              # those searched; 1 against 0: -5 Elo [-52, +41], hand-set eval)
cdef int NULL_CUT_ONLY          # the null move only at expected cut nodes (as in YaneuraOu;
                              # 0: at every non-PV node; 1 against 0: +12 Elo [-34, +59],
                              # hand-set eval, left off: not measured with PrunePv on)
cdef int RFP_QUIET_TT_MOVE      # reverse futility also when the table move is quiet (1), or
                              # only without one or with a capture (0, as in YaneuraOu)
cdef int QUIET_CHECK_BONUS      # ordering bonus of a quiet direct check that loses at most a
                              # pawn by SEE (as YaneuraOu's picker: 16384; 0: none; 16384
                              # did not help on bench/blunder_suite.py; after the SEE fix,
                              # -37 Elo [-84, +9] in 200 games)
cdef int NULL_MARGIN_BASE       # the null move only where the static score stands at least
cdef int NULL_MARGIN_DEPTH      # this base less this x depth above beta (as YaneuraOu: 378 and
                              # 16; base 0: no margin, the score at beta suffices; 378
                              # against 0: -3 Elo [-51, +44] in 200 games, hand-set)
cdef int SINGULAR_MULTI         # singular extension of 2 or 3 plies by YaneuraOu's margins (1),
                              # or always 1 (0); with 1 the extensions ate the search
                              # (depth 8.9 a move at 300 ms against 15.0)
cdef int ROOT_ORDER             # the root's moves after the last best one ordered by history as
                              # at other nodes (1, as Stockfish's root), or kept in the order
                              # of the last iteration's scores (0)
cdef int PV_LMR                 # plies less late-move reduction at PV nodes (YaneuraOu takes
                              # 3.7 to 5.6 plies off at nodes that were on a PV)
cdef int TT_PV_LMR              # plies less late-move reduction at a node that is or was on a
                              # PV (an exact table entry): Stockfish's ttPv rule (0: none;
                              # 4 with CutNodeReduction 3: -119 Elo [-203, -46], hand-set)
cdef int ROOT_LMR               # late-move reductions at the root too (1), or not (0)
cdef int HISTORY_SHAPE          # history sizes: 0, a cut-off's bonus and the earlier quiet
                              # moves' malus HistoryBonusScale x depth^2, one limit (16384);
                              # 1, YaneuraOu's (search/history.pxd: larger, malus above bonus,
                              # butterfly counted twice), which makes history move LMR
                              # (1 against 0: +17 Elo [-29, +65] in 200 games, hand-set;
                              # with SkipDominated 1, against neither: +72 [+25, +122])
cdef int LMR_SHAPE              # late-move reductions and the pruning of moves: 0, ours (log
                              # table in plies, quiet moves, checks and losing captures); 1,
                              # YaneuraOu's (in 1024ths of a ply, every late move, a node's
                              # PV past, cut nodes, history and cut-off counts; search/alphabeta.pyx,
                              # _yo_reduction), meant with HistoryShape 1 (with NodeShape 1
                              # and singular extension: +2 -19 =2 against YaneuraOu)
cdef int NODE_SHAPE             # pruning of whole nodes and the internal iterative reduction:
                              # 0, ours; 1, YaneuraOu's (search/alphabeta.pyx, _yo_node_prune; 40% less
                              # time to depth 12, yet -189 Elo [-245, -140] in 200 games;
                              # with the material evaluation on both sides, where no king
                              # term moves the static score, -130 [-194, -74] in 134)
cdef int SKIP_DOMINATED         # 1: no search looks at the non-promotions that a promotion
                              # dominates (movegen.drop_dominated), at the root neither
                              # (with HistoryShape 1, against neither: +72 Elo [+25, +122]
                              # in 200 games at 100 ms, hand-set)
cdef int PV_RESEARCH             # 1: a PV node searches a move again with the full window
                              # after any null-window fail high, beyond beta too (as
                              # Stockfish-family searches; 1 against 0: +30 Elo [-17, +77]
                              # in 200 games at 100 ms, hand-set, kept: no loss shown)
cdef int CONT_PLIES             # 1: continuation histories of the moves 3, 4 and 6 plies
                              # back order quiet moves too (search/history.pxd, far_cont_score;
                              # 9% fewer nodes to depth 12, -23 Elo [-69, +23] in 200 games)
cdef int PAWN_HISTORY           # 1: quiet moves ordered by a history per pawn placement too
                              # (search/history.pxd, pawn_hist; as in YaneuraOu's picker; 1 against
                              # 0: +24 Elo [-22, +72] in 200 games at 100 ms, hand-set,
                              # kept: no loss shown)
cdef int QS_PROMOTE_ONLY        # 1: quiescence (not in check) leaves out the non-promoting
                              # variant of a capture or move that could promote (16% fewer
                              # nodes to depth 12, yet -37 Elo [-85, +10] in 200 games)
cdef int EVASION_PRUNE          # in check, once a move has kept us from being mated (as in
                              # YaneuraOu's, whose shallow-depth pruning and LMR do not ask
                              # whether the node is in check): bit 1, a quiet evasion (an
                              # interposition, a king move) losing more than QuietSeePrune x
                              # (reduced depth)^2 by SEE is pruned; bit 2, late evasions are
                              # reduced as late quiet moves (0: every evasion searched whole;
                              # 3 against 0: -24 Elo [-71, +22] in 200 games, hand-set)
cdef int CAPTURE_HISTORY        # 1: captures ordered by a capture history (by side, capturing
                              # piece-to and victim) added to their MVV-LVA key, raised by
                              # the captures that refute a node and lowered for those tried
                              # before any refutation (as in Stockfish-family searches; 1
                              # against 0: +21 Elo [-26, +68] in 200 games at 100 ms, hand-set)
cdef int HISTORY_EXTRAS         # YaneuraOu's and Stockfish's further history updates: bit 1,
                              # the quiet move that led to a node rises or falls in its
                              # butterfly with the change of the static score it caused;
                              # bit 2, a node where no move reached alpha rewards the quiet
                              # move that led to it (continuation histories and butterfly);
                              # bit 4, the best move of a node that ends between alpha and
                              # beta is rewarded as a cut-off's (4 against 0: +23 Elo [-24,
                              # +70] in 200 games; 3: -159 [-261, -78] in 70, stopped; 6
                              # against 4: +51 [+5, +98] in 200 games at 100 ms, hand-set;
                              # 7 against 6: -67 [-133, -6] in 110, stopped)
cdef int LOW_PLY_HISTORY        # 1: quiet moves at plies 0..4 ordered by a history of this
                              # search alone too (YaneuraOu's lowPlyHistory; search/history.pxd;
                              # 1 against 0: +30 Elo [-17, +77] in 200 games, hand-set)
cdef int CAPTURE_PRUNE          # 1: captures and checks near the leaves pruned as YaneuraOu's
                              # (futility of the victim plus capture history, SEE below
                              # -167 x depth; search/alphabeta.pyx, _prune_capture) instead of PruneChecks
                              # (1 against 0: +33 Elo [-14, +81] in 200 games, hand-set);
                              # 2: the SEE rule at any alpha, not only from a draw up
                              # (Stockfish's guard is for a stalemate, which shogi lacks)
cdef int QS_SHAPE               # YaneuraOu's quiescence details: bit 1, its results are stored
                              # as bounds only, never exact (so no node looks like a PV node
                              # through them); bit 2, the standing score is the table's value
                              # where its bound allows, and a result above beta is pulled
                              # halfway to it; bit 4, its futility (static score + 328 + the
                              # victim, raising the best score to that bound) and SEE pruning
                              # (below alpha - that base; any capture losing over 73) in
                              # place of the delta margin and SEE 0 (0: none; 7 against 0:
                              # -2 Elo [-48, +44] in 200 games at 100 ms, hand-set, 0.168
                              # in 98 against YaneuraOu where 0 scored 0.133; 4: -23
                              # [-69, +23] in 200)
cdef int CAPTURE_GAIN           # what futility counts a capture's victim as worth: 0, its
                              # board value (as YaneuraOu and Stockfish); 1, what the capture
                              # gains, board and hand value (SEE's value; -24 Elo [-72, +22]
                              # in 200 games)
cdef int DEEPER_ROOM            # a late move's re-search one ply deeper than the rest
                              # (LmrDeeper) only while the node's ply and depth sum to less
                              # than the iteration's depth plus this (0: always): the deeper
                              # re-search is at the parent's own depth, so a line of such
                              # moves never loses depth (a traced depth-9 search spent 91%
                              # of its nodes on one chain of depth-3 nodes from ply 6 to 40+;
                              # 3 against 0: -19 Elo [-66, +27] in 200 games)
cdef int REPETITION_HAND         # what a repetition of the board with more in hand for the
                              # side to move (a superior one; less: inferior, the negative)
                              # is worth inside the search, as YaneuraOu scores them (28000
                              # there, near a mate; 0: the position is searched on as any
                              # other, whose material already counts the difference;
                              # 28000 against 0: -10 Elo [-58, +36] in 200 games)
cdef enum:
    SEE_PRUNE_MARGIN = 200    # per ply: captures and checks losing more are pruned (PruneChecks)

#: (USI option name, default, min, max) of each tuned search parameter.
TUNABLES = (
    ("RfpMargin", 150, 50, 400),
    ("FutilityBase", 120, 0, 400),
    ("FutilityPerDepth", 120, 30, 400),
    ("LmrBase", 40, -100, 200),
    ("LmrDivisor", 190, 100, 500),
    ("LmrHistoryDivisor", 10000, 2000, 50000),
    ("AspirationDelta", 40, 10, 200),
    ("QsDeltaMargin", 200, 0, 800),
    ("CorrHist", 1, 0, 1),
    ("ProbCutMargin", 200, 0, 600),
    ("CutNodeReduction", 0, 0, 3),
    ("PruneChecks", 1, 0, 7),
    ("RfpDepth", 5, 0, 20),
    ("QsMate1Plies", 16, 0, 16),
    ("HistoryBonusScale", 1, 1, 16),
    ("QuietSortLimit", 2000, 0, 100000),
    ("QsMate1AfterStandPat", 1, 0, 1),
    ("NullMinDepth", 3, 1, 8),
    ("NullEvalDivisor", 200, 0, 1000),
    ("RazorMargin", 0, 0, 1000),
    ("QsRecapturePly", 0, 0, 16),
    ("QsMoveCount", 2, 0, 64),
    ("QsEvasionLimit", 2, 0, 64),
    ("RfpImproving", 0, 0, 1),
    ("CaptureFutility", 0, 0, 1000),
    ("IirDepth", 4, 0, 20),
    ("TtEval", 0, 0, 1),
    ("QsChecks", 0, 0, 16),
    ("McpDepth", 7, 0, 64),
    ("FutilityLmrDepth", 6, 0, 64),
    ("NullBase", 4, 1, 8),
    ("NullDepthDivisor", 3, 1, 16),
    ("LmrMinDepth", 3, 2, 8),
    ("TtCaptureReduction", 0, 0, 2),
    ("SingularDepth", 0, 0, 20),
    ("SingularMargin", 16, 0, 200),
    ("ThreatOrder", 16384, 0, 60000),
    ("LmrDeeper", 60, 0, 400),
    ("QsCheckExempt", 1, 0, 1),
    ("QuietSeePrune", 25, 0, 400),
    ("PrunePv", 1, 0, 1),
    ("FutilityHistory", 0, 0, 1),
    ("CountPruned", 0, 0, 1),
    ("NullCutOnly", 0, 0, 1),
    ("RfpQuietTtMove", 1, 0, 1),
    ("QuietCheckBonus", 0, 0, 60000),
    ("NullMarginBase", 0, 0, 2000),
    ("NullMarginDepth", 16, 0, 200),
    ("RootLmr", 1, 0, 1),
    ("SingularMulti", 0, 0, 1),
    ("RootOrder", 0, 0, 1),
    ("PvLmr", 1, 0, 8),
    ("TtPvLmr", 0, 0, 8),
    ("HistoryShape", 1, 0, 1),
    ("LmrShape", 0, 0, 1),
    ("NodeShape", 0, 0, 1),
    ("SkipDominated", 1, 0, 1),
    ("PvResearch", 1, 0, 1),
    ("ContPlies", 0, 0, 1),
    ("PawnHistory", 1, 0, 1),
    ("QsPromoteOnly", 0, 0, 1),
    ("EvasionPrune", 0, 0, 3),
    ("CaptureHistory", 1, 0, 1),
    ("HistoryExtras", 6, 0, 7),
    ("LowPlyHistory", 1, 0, 1),
    ("CapturePrune", 1, 0, 2),
    ("QsShape", 0, 0, 7),
    ("CaptureGain", 0, 0, 1),
    ("DeeperRoom", 0, 0, 64),
    ("RepetitionHand", 0, 0, 30000),
)

#: TUNABLES that switch a technique (or pick among variants) rather than set a margin:
#: measured by matches one at a time, left out of SPSA runs.  A margin whose 0 means
#: "off" is one too: SPSA's first step from 0 would switch the technique on.
SWITCHES = frozenset({"CorrHist", "CutNodeReduction", "PruneChecks", "QsMate1Plies",
                      "QuietSortLimit", "QsMate1AfterStandPat", "ProbCutMargin",
                      "RazorMargin", "QsRecapturePly", "QsMoveCount", "QsEvasionLimit",
                      "RfpImproving", "CaptureFutility", "IirDepth", "TtEval", "QsChecks",
                      "LmrMinDepth", "TtCaptureReduction", "SingularDepth",
                      "ThreatOrder", "LmrDeeper", "QsCheckExempt",
                      "QuietSeePrune", "PrunePv", "FutilityHistory",
                      "CountPruned", "NullCutOnly", "RfpQuietTtMove",
                      "QuietCheckBonus", "NullMarginBase", "RootLmr",
                      "SingularMulti", "RootOrder", "TtPvLmr", "HistoryShape",
                      "LmrShape", "NodeShape", "SkipDominated",
                      "PvResearch", "ContPlies", "PawnHistory", "QsPromoteOnly",
                      "EvasionPrune", "CaptureHistory", "HistoryExtras",
                      "LowPlyHistory", "CapturePrune", "QsShape",
                      "CaptureGain", "DeeperRoom", "RepetitionHand"})

# Late-move reductions grow with the log of the depth and of the move number (as in
# Stockfish-family searches): in shogi the quiet tail, drops included, is long.
cdef int LMR_TABLE[64][64]


# LmrShape 1: YaneuraOu's table, 1024ths of a ply: 21.6 ln(i), by depth and move number.
cdef int YO_REDUCTIONS[256]


cdef void _init_reductions() noexcept nogil:
    cdef int d, m
    YO_REDUCTIONS[0] = 0
    for m in range(1, 256):
        YO_REDUCTIONS[m] = <int>(2763 / 128.0 * log(m))
    for d in range(64):
        for m in range(64):
            LMR_TABLE[d][m] = 0 if d == 0 or m == 0 else <int>(
                LMR_BASE_CENTI / 100.0 + log(d) * log(m) * 100.0 / LMR_DIVISOR_CENTI)


cdef int* _TUNED[70]             # the global behind each of TUNABLES, in its order


cdef void _point_tuned() noexcept nogil:
    _TUNED[0] = &RFP_MARGIN
    _TUNED[1] = &FUTILITY_BASE
    _TUNED[2] = &FUTILITY_PER_DEPTH
    _TUNED[3] = &LMR_BASE_CENTI
    _TUNED[4] = &LMR_DIVISOR_CENTI
    _TUNED[5] = &LMR_HISTORY_DIVISOR
    _TUNED[6] = &ASPIRATION_DELTA
    _TUNED[7] = &QS_DELTA_MARGIN
    _TUNED[8] = &CORR_HIST
    _TUNED[9] = &PROBCUT_MARGIN
    _TUNED[10] = &CUT_NODE_REDUCTION
    _TUNED[11] = &PRUNE_CHECKS
    _TUNED[12] = &RFP_DEPTH
    _TUNED[13] = &QS_MATE1_PLIES
    _TUNED[14] = &HISTORY_BONUS_SCALE
    _TUNED[15] = &QUIET_SORT_LIMIT
    _TUNED[16] = &QS_MATE1_AFTER_STAND_PAT
    _TUNED[17] = &NULL_MIN_DEPTH
    _TUNED[18] = &NULL_EVAL_DIVISOR
    _TUNED[19] = &RAZOR_MARGIN
    _TUNED[20] = &QS_RECAPTURE_PLY
    _TUNED[21] = &QS_MOVE_COUNT
    _TUNED[22] = &QS_EVASION_LIMIT
    _TUNED[23] = &RFP_IMPROVING
    _TUNED[24] = &CAPTURE_FUTILITY
    _TUNED[25] = &IIR_DEPTH
    _TUNED[26] = &TT_EVAL
    _TUNED[27] = &QS_CHECKS
    _TUNED[28] = &MCP_DEPTH
    _TUNED[29] = &FUTILITY_LMR_DEPTH
    _TUNED[30] = &NULL_BASE
    _TUNED[31] = &NULL_DEPTH_DIVISOR
    _TUNED[32] = &LMR_MIN_DEPTH
    _TUNED[33] = &TT_CAPTURE_REDUCTION
    _TUNED[34] = &SINGULAR_DEPTH
    _TUNED[35] = &SINGULAR_MARGIN
    _TUNED[36] = &THREAT_ORDER
    _TUNED[37] = &LMR_DEEPER
    _TUNED[38] = &QS_CHECK_EXEMPT
    _TUNED[39] = &QUIET_SEE_PRUNE
    _TUNED[40] = &PRUNE_PV
    _TUNED[41] = &FUTILITY_HISTORY
    _TUNED[42] = &COUNT_PRUNED
    _TUNED[43] = &NULL_CUT_ONLY
    _TUNED[44] = &RFP_QUIET_TT_MOVE
    _TUNED[45] = &QUIET_CHECK_BONUS
    _TUNED[46] = &NULL_MARGIN_BASE
    _TUNED[47] = &NULL_MARGIN_DEPTH
    _TUNED[48] = &ROOT_LMR
    _TUNED[49] = &SINGULAR_MULTI
    _TUNED[50] = &ROOT_ORDER
    _TUNED[51] = &PV_LMR
    _TUNED[52] = &TT_PV_LMR
    _TUNED[53] = &HISTORY_SHAPE
    _TUNED[54] = &LMR_SHAPE
    _TUNED[55] = &NODE_SHAPE
    _TUNED[56] = &SKIP_DOMINATED
    _TUNED[57] = &PV_RESEARCH
    _TUNED[58] = &CONT_PLIES
    _TUNED[59] = &PAWN_HISTORY
    _TUNED[60] = &QS_PROMOTE_ONLY
    _TUNED[61] = &EVASION_PRUNE
    _TUNED[62] = &CAPTURE_HISTORY
    _TUNED[63] = &HISTORY_EXTRAS
    _TUNED[64] = &LOW_PLY_HISTORY
    _TUNED[65] = &CAPTURE_PRUNE
    _TUNED[66] = &QS_SHAPE
    _TUNED[67] = &CAPTURE_GAIN
    _TUNED[68] = &DEEPER_ROOM
    _TUNED[69] = &REPETITION_HAND


_point_tuned()
_TUNED_INDEX = {spec[0]: i for i, spec in enumerate(TUNABLES)}
assert len(TUNABLES) == len(_TUNED_INDEX) == 70


def set_search_parameter(name: str, value: int) -> None:
    """Set one of the TUNABLES (KeyError if unknown, ValueError if out of range) for
    every search of this process; call it only while no search runs.

    >>> set_search_parameter("RfpMargin", 160); search_parameters()["RfpMargin"]
    160
    """
    cdef int i = _TUNED_INDEX[name]
    spec = TUNABLES[i]
    v = int(value)
    if not spec[2] <= v <= spec[3]:
        raise ValueError(f"{name}: {v} is outside {spec[2]}..{spec[3]}")
    _TUNED[i][0] = v
    _init_reductions()


def search_parameters() -> dict:
    """The current value of each of the TUNABLES, by name."""
    return {spec[0]: _TUNED[i][0] for i, spec in enumerate(TUNABLES)}


for _name, _default, _low, _high in TUNABLES:
    set_search_parameter(_name, _default)
