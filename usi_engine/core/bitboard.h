/* 81-square bitboards held in one unsigned 128-bit integer.
 *
 * Square index = (file - 1) * 9 + (rank - 1): files are contiguous 9-bit runs, so a
 * lance's or rook's file ray is a run of neighbouring bits.  Bits 81..127 are always 0.
 * gcc/clang lower these helpers to two 64-bit operations each. */
#ifndef USI_ENGINE_BITBOARD_H
#define USI_ENGINE_BITBOARD_H
#include <stdint.h>

typedef unsigned __int128 bb_t;

static inline bb_t bb_square(int sq) { return ((bb_t)1) << sq; }
static inline int bb_test(bb_t b, int sq) { return (int)((b >> sq) & 1u); }
static inline int bb_any(bb_t b) { return b != 0; }
static inline int bb_more_than_one(bb_t b) { return (b & (b - 1)) != 0; }

static inline int bb_popcount(bb_t b) {
    return __builtin_popcountll((uint64_t)b) + __builtin_popcountll((uint64_t)(b >> 64));
}

/* Lowest set bit; b must be non-zero. */
static inline int bb_lsb(bb_t b) {
    uint64_t lo = (uint64_t)b;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(b >> 64));
}

/* Highest set bit; b must be non-zero. */
static inline int bb_msb(bb_t b) {
    uint64_t hi = (uint64_t)(b >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t)b);
}

/* Remove and return the lowest set bit; *b must be non-zero.  One test of the low
 * half, then 64-bit work only (a 128-bit b - 1 takes a borrow across the halves). */
static inline int bb_pop(bb_t *b) {
    uint64_t lo = (uint64_t)*b;
    uint64_t hi;
    if (lo) {
        *b ^= (bb_t)(lo & (0 - lo));
        return __builtin_ctzll(lo);
    }
    hi = (uint64_t)(*b >> 64);
    *b ^= ((bb_t)(hi & (0 - hi))) << 64;
    return 64 + __builtin_ctzll(hi);
}

#endif

/* Precomputed attack geometry.  Every extension module that cimports core/bitboard.pxd
 * gets its own copy of this (static) storage and fills it once at import with
 * init_tables(); sharing one copy across .so files would need a runtime pointer
 * hand-off for no measurable gain (the tables are ~230 KB). */
typedef struct {
    bb_t ray[8][81];       /* squares from sq to the edge in each direction, sq excluded */
    bb_t step[32][81];     /* non-sliding attacks by piece code (colour << 4 | type) */
    bb_t between[81][81];  /* squares strictly between two aligned squares, else 0 */
    bb_t line[81][81];     /* the whole line through two aligned squares, else 0 */
    bb_t file_mask[9];
    bb_t rank_mask[9];
    bb_t zone[2];          /* promotion zone of each colour (the far three ranks) */
    bb_t dead[2][16];      /* squares a piece type of that colour may never stand on */
    bb_t all;              /* the 81 board squares */
    bb_t rook_empty[81];   /* a rook's and a bishop's slides on the empty board */
    bb_t bishop_empty[81];
    bb_t near_king[81];    /* files within 2 and ranks within 4 of sq: where a non-slider
                              may check a king on sq, or attack a square next to it or a
                              knight's jump from it */
    bb_t near_king_lines[81];  /* squares on a rook's or bishop's line through one of
                                  those squares (either colour's knight jumps) */
    int ready;
} usi_tables_t;

static usi_tables_t usi_tables;
