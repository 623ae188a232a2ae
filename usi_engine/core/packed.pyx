"""YaneuraOu's PackedSfen and PackedSfenValue training-record formats.

A PackedSfen is a position in exactly 256 bits (32 bytes), written least
significant bit first within each byte:

- 1 bit: side to move (0 black, 1 white);
- 7 bits each: black's then white's king square (81 when the king is absent);
- each square 0..80 in order ("1a" = 0, file-major: the same numbering as ours),
  skipping the two king squares: a Huffman code for the piece type (empty "0";
  bits listed in stream order: pawn 10, lance 1100, knight 1101, silver 1110,
  gold 11110, bishop 111110, rook 111111), then for all but gold a promoted bit,
  then a colour bit;
- the pieces in hand, black's then white's, in the order pawn, lance, knight,
  silver, gold, bishop, rook, one per piece: the board
  code without its first bit, a promoted bit (always 0, none for gold) and the
  colour bit.

With all 40 pieces in play this fills exactly 256 bits.  A PackedSfenValue (40
bytes) adds the search score (int16), the move played (YaneuraOu's 16-bit move:
destination | origin << 7, a drop being piece type << 7 | 1 << 14, a promotion
1 << 15), the game ply (uint16), the game result for the side to move (int8: 1
win, 0 draw, -1 loss) and a padding byte.  Both layouts are byte-identical to
what cshogi and YaneuraOu read and write.
"""
from libc.stdint cimport uint8_t, uint32_t
from libc.string cimport memset

import numpy as np

from usi_engine.core.types cimport *
from usi_engine.core.position cimport Pos, Position, hand_count, is_attacked
from usi_engine.core.movegen cimport is_legal

PSV_DTYPE = np.dtype([("sfen", "u1", (32,)), ("score", "<i2"), ("move", "<u2"),
                      ("gamePly", "<u2"), ("game_result", "i1"), ("padding", "u1")])
"""One PackedSfenValue record (40 bytes), the same layout as cshogi.PackedSfenValue."""

# Huffman codes of the unpromoted piece types on the board, as (value, length):
# the value's bit 0 is written first.
cdef int _CODE[8]
cdef int _CODE_BITS[8]
_CODE[:] = [0x00, 0x01, 0x03, 0x0B, 0x07, 0x1F, 0x3F, 0x0F]
_CODE_BITS[:] = [1, 2, 4, 4, 4, 6, 6, 5]
# Most pieces of each unpromoted type in a game (index = piece type).
cdef int _MAX_COUNT[8]
_MAX_COUNT[:] = [0, 18, 4, 4, 4, 2, 2, 4]
# The order in which pieces in hand are written: gold before bishop and rook.
cdef int _HAND_STREAM_ORDER[7]
_HAND_STREAM_ORDER[:] = [PAWN, LANCE, KNIGHT, SILVER, GOLD, BISHOP, ROOK]


# ---- bit stream ------------------------------------------------------------------------
cdef inline void _put(uint8_t* out, int* cursor, int value, int nbits) noexcept nogil:
    cdef int i
    for i in range(nbits):
        if cursor[0] < 256:
            if (value >> i) & 1:
                out[cursor[0] >> 3] |= <uint8_t>(1 << (cursor[0] & 7))
        cursor[0] += 1


cdef inline int _get(const uint8_t* data, int* cursor) noexcept nogil:
    """The next bit, or -1 past the 256th."""
    cdef int c = cursor[0]
    if c >= 256:
        return -1
    cursor[0] = c + 1
    return (data[c >> 3] >> (c & 7)) & 1


cdef void _put_piece(uint8_t* out, int* cursor, int pc, bint in_hand) noexcept nogil:
    cdef int pt = piece_type(pc)
    cdef int base = unpromoted(pt)
    if in_hand:
        _put(out, cursor, _CODE[base] >> 1, _CODE_BITS[base] - 1)
    else:
        _put(out, cursor, _CODE[base], _CODE_BITS[base])
    if base != GOLD:
        _put(out, cursor, 1 if pt != base else 0, 1)
    _put(out, cursor, piece_color(pc), 1)


cdef int _get_type(const uint8_t* data, int* cursor, bint in_hand) noexcept nogil:
    """Read one Huffman code: the unpromoted piece type (EMPTY for the empty
    square), or -1 when the stream ends inside it.  A hand code is a board code
    whose first bit (always 1) was left out."""
    cdef int code = 1 if in_hand else 0
    cdef int n = 1 if in_hand else 0
    cdef int bit, pt
    while n < 6:
        bit = _get(data, cursor)
        if bit < 0:
            return -1
        code |= bit << n
        n += 1
        for pt in range(8):
            if _CODE_BITS[pt] == n and _CODE[pt] == code:
                return pt
    return -1      # unreachable: the code is complete


# ---- C API -------------------------------------------------------------------------------
cdef void pack_pos(const Pos* p, uint8_t* out) noexcept nogil:
    """Write p as a PackedSfen into out[0..31]."""
    cdef int cursor = 0
    cdef int sq, c, pt, i, j, pc
    memset(out, 0, PACKED_SFEN_BYTES)
    _put(out, &cursor, p.side, 1)
    for c in range(2):
        _put(out, &cursor, p.king_sq[c] if p.king_sq[c] >= 0 else SQUARE_NB, 7)
    for sq in range(SQUARE_NB):
        pc = p.board[sq]
        if pc != EMPTY and piece_type(pc) == KING:
            continue
        if pc == EMPTY:
            _put(out, &cursor, 0, 1)
        else:
            _put_piece(out, &cursor, pc, False)
    for c in range(2):
        for i in range(7):
            pt = _HAND_STREAM_ORDER[i]
            for j in range(hand_count(p.hand[c], pt)):
                _put_piece(out, &cursor, make_piece(c, pt), True)


cdef int unpack_to_arrays(const uint8_t* packed, uint8_t* board81, uint8_t* hands,
                          int* side) noexcept nogil:
    """Decode a PackedSfen into board81[81] (our piece codes), hands[2][8] (counts by
    piece type 1..7) and side.  Returns 0, or -1 when the data is malformed: a king
    square beyond 81, both kings on one square, a promoted piece in hand, more pieces
    of a type than a game has, or a code running past the 256th bit."""
    cdef int cursor = 0
    cdef int counts[8]
    cdef int king[2]
    cdef int sq, c, pt, promoted, color, bit
    memset(board81, 0, SQUARE_NB)
    memset(hands, 0, 16)
    memset(counts, 0, sizeof(counts))
    side[0] = _get(packed, &cursor)
    for c in range(2):
        king[c] = 0
        for bit in range(7):
            king[c] |= _get(packed, &cursor) << bit
        if king[c] > SQUARE_NB:
            return -1
        if king[c] < SQUARE_NB:
            board81[king[c]] = make_piece(c, KING)
    if king[0] == king[1] and king[0] < SQUARE_NB:
        return -1
    for sq in range(SQUARE_NB):
        if sq == king[0] or sq == king[1]:
            continue
        pt = _get_type(packed, &cursor, False)
        if pt < 0:
            return -1
        if pt == EMPTY:
            continue
        promoted = 0
        if pt != GOLD:
            promoted = _get(packed, &cursor)
        color = _get(packed, &cursor)
        if promoted < 0 or color < 0:
            return -1
        counts[pt] += 1
        if counts[pt] > _MAX_COUNT[pt]:
            return -1
        board81[sq] = make_piece(color, pt | (PROMOTED if promoted else 0))
    while cursor < 256:
        pt = _get_type(packed, &cursor, True)
        if pt < 0:
            return -1
        if pt != GOLD and _get(packed, &cursor) != 0:
            return -1
        color = _get(packed, &cursor)
        if color < 0:
            return -1
        counts[pt] += 1
        if counts[pt] > _MAX_COUNT[pt]:
            return -1
        hands[color * 8 + pt] += 1
    return 0


# ---- Python API ----------------------------------------------------------------------------
_LETTERS = "PLNSBRGK"
_HAND_ORDER = (ROOK, BISHOP, GOLD, SILVER, KNIGHT, LANCE, PAWN)


def pack(Position position) -> bytes:
    """The position as a 32-byte PackedSfen."""
    cdef uint8_t out[PACKED_SFEN_BYTES]
    pack_pos(&position.pos, out)
    return bytes(out[:PACKED_SFEN_BYTES])


cdef str _sfen_from_arrays(const uint8_t* board81, const uint8_t* hands, int side, int ply):
    cdef int r, f, pc, empty, c, pt
    ranks = []
    for r in range(9):
        parts = []
        empty = 0
        for f in range(8, -1, -1):
            pc = board81[make_square(f, r)]
            if pc == EMPTY:
                empty += 1
                continue
            if empty:
                parts.append(str(empty))
                empty = 0
            s = _LETTERS[unpromoted(piece_type(pc)) - 1]
            if piece_color(pc) == WHITE:
                s = s.lower()
            if piece_type(pc) > KING:
                s = "+" + s
            parts.append(s)
        if empty:
            parts.append(str(empty))
        ranks.append("".join(parts))
    hand = []
    for c in range(2):
        for pt in _HAND_ORDER:
            n = hands[c * 8 + pt]
            if n:
                letter = _LETTERS[pt - 1]
                hand.append((str(n) if n > 1 else "") + (letter if c == BLACK else letter.lower()))
    return f"{'/'.join(ranks)} {'b' if side == BLACK else 'w'} {''.join(hand) or '-'} {ply}"


def unpack(data: bytes, int ply=1) -> str:
    """The SFEN of a 32-byte PackedSfen (move number `ply`); ValueError if malformed."""
    cdef uint8_t board81[SQUARE_NB]
    cdef uint8_t hands[16]
    cdef int side
    cdef const uint8_t[:] view
    if len(data) != PACKED_SFEN_BYTES:
        raise ValueError(f"packed sfen: expected {PACKED_SFEN_BYTES} bytes, got {len(data)}")
    view = bytes(data)
    if unpack_to_arrays(&view[0], board81, hands, &side) != 0:
        raise ValueError("packed sfen: malformed data")
    return _sfen_from_arrays(board81, hands, side, ply)


def move_to_psv(Position position, int move) -> int:
    """Our move int as the 16-bit move of a PackedSfenValue (0 for no move).
    The position is accepted for symmetry with `move_from_psv`; the encoding needs
    nothing from it."""
    if move == MOVE_NONE:
        return 0
    if not 0 < move <= 0x7FFF or move_to(move) >= SQUARE_NB:
        raise ValueError(f"not a move: {move}")
    if move_is_drop(move):
        if not PAWN <= move_dropped_type(move) <= GOLD:
            raise ValueError(f"not a move: {move}")
        return move_to(move) | (move_dropped_type(move) << 7) | (1 << 14)
    if move_from(move) >= SQUARE_NB:
        raise ValueError(f"not a move: {move}")
    return move_to(move) | (move_from(move) << 7) | ((1 << 15) if move_is_promotion(move) else 0)


def move_from_psv(Position position, int m16) -> int:
    """A PackedSfenValue's 16-bit move as our move int; ValueError unless it is
    legal in `position` (0 stays 0, "no move")."""
    cdef int to, frm, move
    if m16 == 0:
        return MOVE_NONE
    if not 0 < m16 <= 0xFFFF:
        raise ValueError(f"psv move out of range: {m16}")
    to = m16 & 0x7F
    frm = (m16 >> 7) & 0x7F
    if (m16 >> 14) & 1:
        if (m16 >> 15) & 1 or not PAWN <= frm <= GOLD:
            raise ValueError(f"malformed psv drop: {m16:#06x}")
        move = make_drop(frm, to) if to < SQUARE_NB else -1
    else:
        move = make_move(frm, to, (m16 >> 15) & 1) if to < SQUARE_NB and frm < SQUARE_NB else -1
    if move < 0 or not is_legal(&position.pos, move):
        raise ValueError(f"psv move {m16:#06x} is not legal in {position.sfen()}")
    return move


def decode_records(records) -> tuple:
    """Decode an array of PackedSfenValue records (PSV_DTYPE or cshogi's, or a raw
    uint8 array of n x 40 bytes) into (board uint8[n, 81] of our piece codes,
    hands uint8[n, 2, 8] indexed by piece type, side uint8[n]).  The loop runs
    without the GIL; a malformed record raises ValueError naming its index."""
    arr = np.ascontiguousarray(records)
    if arr.dtype != np.uint8:
        if arr.dtype.itemsize != PSV_RECORD_BYTES:
            raise ValueError(f"records: expected {PSV_RECORD_BYTES}-byte records, "
                             f"got dtype {arr.dtype}")
        arr = arr.reshape(-1).view(np.uint8)
    arr = arr.reshape(-1)
    if arr.size % PSV_RECORD_BYTES:
        raise ValueError(f"records: {arr.size} bytes is not a whole number of records")
    cdef Py_ssize_t n = arr.size // PSV_RECORD_BYTES
    board = np.zeros((n, SQUARE_NB), np.uint8)
    hands = np.zeros((n, 2, 8), np.uint8)
    side = np.zeros(n, np.uint8)
    if n == 0:
        return board, hands, side
    cdef const uint8_t[:, ::1] src = arr.reshape(n, PSV_RECORD_BYTES)
    cdef uint8_t[:, ::1] b = board
    cdef uint8_t[:, :, ::1] h = hands
    cdef uint8_t[::1] s = side
    cdef Py_ssize_t i, bad = -1
    cdef int sd
    with nogil:
        for i in range(n):
            if unpack_to_arrays(&src[i, 0], &b[i, 0], &h[i, 0, 0], &sd) != 0:
                bad = i
                break
            s[i] = <uint8_t>sd
    if bad >= 0:
        raise ValueError(f"records: record {bad} is malformed")
    return board, hands, side
