/* A hand (pieces held by one side) packed in 32 bits, one field per piece type,
 * each field followed by a zero guard bit.  Subtracting two hands sets a guard bit
 * exactly when some field of the first is smaller, which makes "hand a holds at
 * least everything hand b holds" one subtraction and one AND.
 *   P bits 0-4 | L 6-8 | N 10-12 | S 14-16 | B 18-19 | R 21-22 | G 24-26 */
#ifndef USI_ENGINE_HAND_H
#define USI_ENGINE_HAND_H
#include <stdint.h>
static const int HAND_SHIFT[8] = {0, 0, 6, 10, 14, 18, 21, 24};
static const uint32_t HAND_FIELD[8] = {0, 0x1Fu, 0x7u << 6, 0x7u << 10, 0x7u << 14,
                                       0x3u << 18, 0x3u << 21, 0x7u << 24};
static const uint32_t HAND_BORROW = (1u << 5) | (1u << 9) | (1u << 13) | (1u << 17) |
                                    (1u << 20) | (1u << 23) | (1u << 27);
#endif
