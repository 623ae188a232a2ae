# cython: language_level=3
"""Static evaluation, in centipawn-like units from the side to move's point of view.

Terms: material on the board and in hand (a piece in hand is worth a little more than
on the board: it can go anywhere), each piece's distance to the enemy king (attack)
and to its own king (defence), and a small penalty for a king that has left its back
ranks while the opponent holds pieces to drop around it.

The weights are numpy arrays (see `default_weights`), copied into C arrays at import;
`load_weights` installs another set of the same shapes at run time.
"""
import numpy as np

from libc.stdint cimport int32_t
from usi_engine.types cimport *
from usi_engine.bitboard cimport *
from usi_engine.position cimport Pos, Position, hand_count

init_tables()

cdef int32_t PIECE_VALUE[16]
cdef int32_t HAND_VALUE[8]
cdef int32_t ATTACK[16][9]      # by piece type and Chebyshev distance to the enemy king
cdef int32_t DEFENCE[16][9]     # by piece type and distance to its own king
cdef int32_t KING_EXPOSURE[9]   # by how many ranks the king stands from its own back rank
cdef int32_t HAND_PRESSURE      # extra per enemy hand piece when our king is exposed
cdef unsigned char DISTANCE[81][81]


def default_weights() -> dict:
    """The hand-set weights as numpy arrays (values per piece type 0..15)."""
    piece = np.zeros(16, dtype=np.int32)
    piece[1:15] = [90, 315, 405, 495, 855, 990, 540, 15000,
                   540, 540, 540, 540, 945, 1395]
    hand = np.zeros(8, dtype=np.int32)
    hand[1:8] = [105, 335, 430, 525, 900, 1045, 570]
    attack = np.zeros((16, 9), dtype=np.int32)
    defence = np.zeros((16, 9), dtype=np.int32)
    near = np.array([0, 1.0, 0.6, 0.3, 0.12, 0.04, 0, 0, 0])
    for pt, scale in {1: 20, 2: 15, 3: 30, 4: 55, 5: 25, 6: 30, 7: 60, 9: 60, 10: 60,
                      11: 60, 12: 60, 13: 70, 14: 90}.items():
        attack[pt] = np.round(near * scale)
    for pt, scale in {4: 45, 7: 55, 9: 20, 10: 20, 11: 20, 12: 20, 13: 40, 3: 10, 2: 5}.items():
        defence[pt] = np.round(near * scale)
    exposure = np.array([0, -15, -45, -90, -120, -130, -130, -120, -100], dtype=np.int32)
    return {"piece": piece, "hand": hand, "attack": attack, "defence": defence,
            "king_exposure": exposure, "hand_pressure": np.int32(6)}


def load_weights(weights: dict) -> None:
    """Install a weight set with the shapes of `default_weights()`.

    >>> load_weights(default_weights())
    """
    cdef int i, j
    piece = np.asarray(weights["piece"], dtype=np.int32).reshape(16)
    hand = np.asarray(weights["hand"], dtype=np.int32).reshape(8)
    attack = np.asarray(weights["attack"], dtype=np.int32).reshape(16, 9)
    defence = np.asarray(weights["defence"], dtype=np.int32).reshape(16, 9)
    exposure = np.asarray(weights["king_exposure"], dtype=np.int32).reshape(9)
    global HAND_PRESSURE
    for i in range(16):
        PIECE_VALUE[i] = piece[i]
        for j in range(9):
            ATTACK[i][j] = attack[i, j]
            DEFENCE[i][j] = defence[i, j]
    for i in range(8):
        HAND_VALUE[i] = hand[i]
    for i in range(9):
        KING_EXPOSURE[i] = exposure[i]
    HAND_PRESSURE = int(weights["hand_pressure"])


cdef void _init_distance() noexcept nogil:
    cdef int a, b, df, dr
    for a in range(81):
        for b in range(81):
            df = square_file(a) - square_file(b)
            dr = square_rank(a) - square_rank(b)
            if df < 0:
                df = -df
            if dr < 0:
                dr = -dr
            DISTANCE[a][b] = df if df > dr else dr


_init_distance()
load_weights(default_weights())


cdef int piece_value(int pt) noexcept nogil:
    return PIECE_VALUE[pt]


cdef inline int _side_score(const Pos* p, int c) noexcept nogil:
    """Material and placement of colour c's pieces (positive is good for c)."""
    cdef int own_king = p.king_sq[c]
    cdef int enemy_king = p.king_sq[c ^ 1]
    cdef bb_t b = p.by_color[c]
    cdef int score = 0
    cdef int sq, pt, back_rank_distance, enemy_hand = 0
    cdef unsigned int h = p.hand[c]
    while b:
        sq = bb_pop(&b)
        pt = piece_type(p.board[sq])
        if pt == KING:
            continue
        score += PIECE_VALUE[pt]
        if enemy_king >= 0:
            score += ATTACK[pt][DISTANCE[sq][enemy_king]]
        if own_king >= 0:
            score += DEFENCE[pt][DISTANCE[sq][own_king]]
    for pt in range(PAWN, KING):
        score += HAND_VALUE[pt] * hand_count(h, pt)
    if own_king >= 0:
        back_rank_distance = 8 - square_rank(own_king) if c == BLACK else square_rank(own_king)
        for pt in range(PAWN, KING):
            enemy_hand += hand_count(p.hand[c ^ 1], pt)
        score += KING_EXPOSURE[back_rank_distance] * (4 + enemy_hand) // 8
        score -= HAND_PRESSURE * enemy_hand * (back_rank_distance > 1)
    return score


cdef int evaluate(const Pos* p) noexcept nogil:
    """Score for the side to move."""
    cdef int s = _side_score(p, BLACK) - _side_score(p, WHITE)
    return s if p.side == BLACK else -s


def evaluate_sfen(str sfen) -> int:
    """Static evaluation of an SFEN for the side to move (for tests and tuning)."""
    cdef Position pos = Position(sfen)
    return evaluate(&pos.pos)
