/* 81-square bitboards held in one unsigned 128-bit integer.
 *
 * Square index = (file - 1) * 9 + (rank - 1): files are contiguous 9-bit runs, so a
 * lance's or rook's file ray is a run of neighbouring bits.  Bits 81..127 are always 0.
 * gcc/clang lower these helpers to two 64-bit operations each. */
#ifndef USI_ENGINE_BITBOARD_H
#define USI_ENGINE_BITBOARD_H
#include <stdint.h>

typedef unsigned __int128 bb_t;

/* One bit per square, looked up: a shift of a 128-bit value by a variable count
 * takes some six instructions (both halves and a select), a look-up one load. */
#define BB_BIT(i) (((bb_t)1) << (i))
static const bb_t BB_SQUARE_TABLE[128] = {
    BB_BIT(0), BB_BIT(1), BB_BIT(2), BB_BIT(3), BB_BIT(4), BB_BIT(5), BB_BIT(6), BB_BIT(7),
    BB_BIT(8), BB_BIT(9), BB_BIT(10), BB_BIT(11), BB_BIT(12), BB_BIT(13), BB_BIT(14), BB_BIT(15),
    BB_BIT(16), BB_BIT(17), BB_BIT(18), BB_BIT(19), BB_BIT(20), BB_BIT(21), BB_BIT(22), BB_BIT(23),
    BB_BIT(24), BB_BIT(25), BB_BIT(26), BB_BIT(27), BB_BIT(28), BB_BIT(29), BB_BIT(30), BB_BIT(31),
    BB_BIT(32), BB_BIT(33), BB_BIT(34), BB_BIT(35), BB_BIT(36), BB_BIT(37), BB_BIT(38), BB_BIT(39),
    BB_BIT(40), BB_BIT(41), BB_BIT(42), BB_BIT(43), BB_BIT(44), BB_BIT(45), BB_BIT(46), BB_BIT(47),
    BB_BIT(48), BB_BIT(49), BB_BIT(50), BB_BIT(51), BB_BIT(52), BB_BIT(53), BB_BIT(54), BB_BIT(55),
    BB_BIT(56), BB_BIT(57), BB_BIT(58), BB_BIT(59), BB_BIT(60), BB_BIT(61), BB_BIT(62), BB_BIT(63),
    BB_BIT(64), BB_BIT(65), BB_BIT(66), BB_BIT(67), BB_BIT(68), BB_BIT(69), BB_BIT(70), BB_BIT(71),
    BB_BIT(72), BB_BIT(73), BB_BIT(74), BB_BIT(75), BB_BIT(76), BB_BIT(77), BB_BIT(78), BB_BIT(79),
    BB_BIT(80), BB_BIT(81), BB_BIT(82), BB_BIT(83), BB_BIT(84), BB_BIT(85), BB_BIT(86), BB_BIT(87),
    BB_BIT(88), BB_BIT(89), BB_BIT(90), BB_BIT(91), BB_BIT(92), BB_BIT(93), BB_BIT(94), BB_BIT(95),
    BB_BIT(96), BB_BIT(97), BB_BIT(98), BB_BIT(99), BB_BIT(100), BB_BIT(101), BB_BIT(102), BB_BIT(103),
    BB_BIT(104), BB_BIT(105), BB_BIT(106), BB_BIT(107), BB_BIT(108), BB_BIT(109), BB_BIT(110), BB_BIT(111),
    BB_BIT(112), BB_BIT(113), BB_BIT(114), BB_BIT(115), BB_BIT(116), BB_BIT(117), BB_BIT(118), BB_BIT(119),
    BB_BIT(120), BB_BIT(121), BB_BIT(122), BB_BIT(123), BB_BIT(124), BB_BIT(125), BB_BIT(126), BB_BIT(127),
};
#undef BB_BIT

static inline bb_t bb_square(int sq) { return BB_SQUARE_TABLE[sq]; }
static inline int bb_test(bb_t b, int sq) { return (b & BB_SQUARE_TABLE[sq]) != 0; }
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
    int ready;
} usi_tables_t;

static usi_tables_t usi_tables;
