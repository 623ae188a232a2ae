# A random legal walk that checks an evaluation's incremental sums against sums from
# scratch, for the tests of each evaluation (kp.Network.incremental_check,
# handwritten.incremental_check): the walk is here once, the evaluation supplies what
# to update after a move and how to compare.
from libc.string cimport memset

from usi_engine.core.types cimport *
from usi_engine.core.position cimport (Pos, Position, pos_do_move, pos_undo_move, pos_copy,
                                       pos_free, pos_reserve)
from usi_engine.core.movegen cimport generate, GEN_LEGAL

# Bring the sums to `ply` (0: from scratch; above: from ply - 1 after the move just made).
ctypedef void (*WalkUpdate)(void* sums, const Pos* p, int ply) noexcept nogil
# Whether the sums at `ply` agree with sums computed from scratch.
ctypedef bint (*WalkAgrees)(void* sums, const Pos* p, int ply) noexcept nogil

cdef enum:
    WALK_MAX_PLIES = 1000


cdef inline dict random_walk(str sfen, int plies, unsigned int seed, WalkUpdate update,
                             WalkAgrees agrees, void* sums):
    """Walk `plies` random legal moves from `sfen` (an undo instead, one time in five),
    `sums` holding room for WALK_MAX_PLIES + 1 plies; after every move and undo the
    sums must agree with the evaluation from scratch.  A dict: checks, mismatches, and
    the moves made of each kind (drops, captures, promotions, king_moves)."""
    cdef Position start = Position(sfen)
    cdef Pos p
    cdef int moves[MAX_MOVES]
    cdef int n, m, ply = 0, checks = 0, mismatches = 0, step
    cdef int drops = 0, captures = 0, promotions = 0, king_moves = 0
    cdef unsigned int rng = seed * 2654435761u + 12345u
    if plies > WALK_MAX_PLIES:
        raise ValueError(f"at most {WALK_MAX_PLIES} plies")
    memset(&p, 0, sizeof(Pos))
    if pos_copy(&p, &start.pos) != 0 or not pos_reserve(&p, plies + 8):
        pos_free(&p)
        raise MemoryError()
    with nogil:
        update(sums, &p, 0)
        for step in range(plies):
            rng = rng * 1103515245u + 12345u
            if ply > 0 and (rng >> 16) % 5 == 0:
                pos_undo_move(&p)
                ply -= 1
            else:
                n = generate(&p, moves, GEN_LEGAL)
                if n == 0:
                    if ply == 0:
                        break
                    pos_undo_move(&p)
                    ply -= 1
                else:
                    rng = rng * 1103515245u + 12345u
                    m = moves[(rng >> 16) % n]
                    if move_is_drop(m):
                        drops += 1
                    else:
                        captures += p.board[move_to(m)] != EMPTY
                        promotions += move_is_promotion(m)
                        king_moves += piece_type(p.board[move_from(m)]) == KING
                    pos_do_move(&p, m)
                    ply += 1
                    update(sums, &p, ply)
            checks += 1
            if not agrees(sums, &p, ply):
                mismatches += 1
    pos_free(&p)
    return {"checks": checks, "mismatches": mismatches, "drops": drops,
            "captures": captures, "promotions": promotions, "king_moves": king_moves}
