# The fixed sizes the search takes from YaneuraOu (and, where named, Stockfish) without
# tuning them here: the history updates, the correction-history shares, the reward of
# the opponent's prior quiet move and the margins of the per-move pruning.  What is
# tuned here is in params.pxi (TUNABLES); these are kept as the other engines measured
# them, in one place, so that a tuning run can promote one to a TUNABLES entry.
# Shares are fractions of 1024 unless their name says otherwise.

cdef enum:
    # The stat bonus and malus of a cut-off (history.pxd): min(MUL depth - SUB, MAX)
    # x SCALE / 1024; the malus shrinks by MALUS_DECAY / 1024 with each earlier move.
    STAT_BONUS_MUL = 128
    STAT_BONUS_SUB = 77
    STAT_BONUS_MAX = 1529
    STAT_BONUS_SCALE = 806
    STAT_MALUS_MUL = 882
    STAT_MALUS_SUB = 204
    STAT_MALUS_MAX = 2122
    STAT_MALUS_SCALE = 1113
    MALUS_DECAY = 977
    # each table's share of that bonus and malus
    PAWN_HIST_BONUS_SHARE = 850
    PAWN_HIST_MALUS_SHARE = 550
    LOW_PLY_SHARE = 761
    CONT1_SHARE = 1079           # the continuation history one ply back ...
    CONT2_SHARE = 604            # ... and two plies back
    # the capture history's own sizes (Stockfish's): min(MUL depth - SUB, MAX)
    CAPT_BONUS_MUL = 143
    CAPT_BONUS_SUB = 89
    CAPT_BONUS_MAX = 1496
    CAPT_MALUS_MUL = 737
    CAPT_MALUS_SUB = 179
    CAPT_MALUS_MAX = 3141

    # Correction history (alphabeta.pyx): the steps of the non-pawn and continuation
    # tables, in 128ths of the pawn table's step
    CORR_NONPAWN_SHARE_128 = 187
    CORR_CONT2_SHARE_128 = 126   # the moves 2 plies and 1 ply back
    CORR_CONT4_SHARE_128 = 63    # the moves 4 plies and 1 ply back

    # The reward of the opponent's quiet move when no move here reached alpha: a scale
    # of BASE + min(PER_DEPTH depth, MAX), more when the search fell below the static
    # score (EVAL_MARGIN: EVAL_BONUS) or the parent's (PARENT_MARGIN: PARENT_BONUS),
    # times min(MUL depth - SUB, MAX_BONUS); the continuation histories take
    # CONT_SHARE / 16384 of it, the butterfly BUTTERFLY_SHARE / 32768.
    PRIOR_SCALE_BASE = -232
    PRIOR_SCALE_PER_DEPTH = 59
    PRIOR_SCALE_MAX = 454
    PRIOR_EVAL_MARGIN = 110
    PRIOR_EVAL_BONUS = 145
    PRIOR_PARENT_MARGIN = 73
    PRIOR_PARENT_BONUS = 154
    PRIOR_BONUS_MUL = 135
    PRIOR_BONUS_SUB = 80
    PRIOR_BONUS_MAX = 1400
    PRIOR_CONT_SHARE_16384 = 221
    PRIOR_BUTTERFLY_SHARE_32768 = 235

    # Per-move pruning of quiet moves (_prune_quiet): a move whose continuation and
    # pawn histories sum below -QUIET_HISTORY_PRUNE a ply; its reduced depth moves a ply
    # for each LMR_HISTORY_PER_PLY of those with the butterfly's at
    # LMR_BUTTERFLY_WEIGHT_32 / 32; the futility margin grows by FUTILITY_NO_BEST
    # while no move has raised alpha and FUTILITY_ABOVE_ALPHA when the static score is
    # above alpha.
    QUIET_HISTORY_PRUNE = 4097
    LMR_BUTTERFLY_WEIGHT_32 = 71
    LMR_HISTORY_PER_PLY = 3220
    FUTILITY_NO_BEST = 151
    FUTILITY_ABOVE_ALPHA = 86

    # Per-move pruning of captures and checks (_prune_capture): futility of a capture
    # below reduced depth CAPTURE_FUTILITY_DEPTH with a margin of BASE + PER_DEPTH a ply
    # + HISTORY / 1024 of its capture history; SEE below -(CHECK_SEE_PER_DEPTH depth +
    # CHECK_SEE_HISTORY / 1024 of it).
    CAPTURE_FUTILITY_DEPTH = 7
    CAPTURE_FUTILITY_BASE = 218
    CAPTURE_FUTILITY_PER_DEPTH = 223
    CAPTURE_FUTILITY_HISTORY = 131
    CHECK_SEE_PER_DEPTH = 167
    CHECK_SEE_HISTORY = 34
