"""PackedSfen / PackedSfenValue (usi_engine.core.packed) against cshogi's reader and writer."""
import random

import numpy as np
import pytest

cshogi = pytest.importorskip("cshogi")

from usi_engine import Position
from usi_engine.core.packed import (PSV_DTYPE, decode_records, move_from_psv, move_to_psv, pack,
                               unpack)

# Every position can hold all 40 pieces on board and in hand.
FULL_HANDS = "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L9P9p 1"


def _playout_positions(games=25, plies=160, seed=7):
    """(our Position, cshogi Board) pairs along random legal games, both sides to move,
    with captures, promotions and drops; plus a position with every piece in hand."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        pos, board = Position(), cshogi.Board()
        for _ in range(plies):
            out.append((pos.copy(), board.copy()))
            moves = pos.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            board.push_usi(pos.move_to_usi(move))
            pos.push(move)
    out.append((Position(FULL_HANDS), cshogi.Board(FULL_HANDS)))
    out.append((Position(FULL_HANDS.replace(" b ", " w ")), cshogi.Board(FULL_HANDS.replace(" b ", " w "))))
    return out


POSITIONS = _playout_positions()


def _cshogi_psfen(board):
    buf = np.zeros(32, np.uint8)
    board.to_psfen(buf)
    return buf.tobytes()


def _board_sfen(sfen):
    return sfen.rsplit(" ", 1)[0]


def test_playouts_cover_hands_promotions_and_both_sides():
    sfens = [pos.sfen() for pos, _ in POSITIONS]
    assert len(sfens) > 3000
    assert any(" w " in s for s in sfens) and any(" b " in s for s in sfens)
    assert any("+" in s.split()[0] for s in sfens)
    assert sum(s.split()[2] != "-" for s in sfens) > 1000


def test_pack_equals_cshogi_to_psfen():
    for pos, board in POSITIONS:
        assert pack(pos) == _cshogi_psfen(board), pos.sfen()


def test_cshogi_set_psfen_reads_our_bytes():
    board = cshogi.Board()
    for pos, _ in POSITIONS:
        board.set_psfen(np.frombuffer(pack(pos), np.uint8))
        assert _board_sfen(board.sfen()) == _board_sfen(pos.sfen())


def test_unpack_of_cshogi_bytes_gives_the_same_sfen():
    for pos, board in POSITIONS:
        assert _board_sfen(unpack(_cshogi_psfen(board))) == _board_sfen(board.sfen())


def test_unpack_sets_the_move_number():
    assert unpack(pack(Position())).endswith(" 1")
    assert unpack(pack(Position()), 57).endswith(" 57")


def test_move_conversion_matches_cshogi_for_every_legal_move():
    checked = 0
    for pos, board in POSITIONS[::15]:
        for move in pos.legal_moves():
            expected = cshogi.move16_to_psv(cshogi.move16(board.move_from_usi(pos.move_to_usi(move))))
            assert move_to_psv(pos, move) == expected, pos.move_to_usi(move)
            assert move_from_psv(pos, expected) == move
            checked += 1
    assert checked > 10000


def test_move_from_psv_refuses_an_illegal_move():
    pos = Position()
    with pytest.raises(ValueError):
        move_from_psv(pos, move_to_psv(pos, pos.parse_usi("7g7f")) ^ (1 << 15))   # 7g7f+
    with pytest.raises(ValueError):
        move_from_psv(pos, 0x4000 | (1 << 7) | 40)                              # P*5e, no pawn


def _records(positions):
    records = np.zeros(len(positions), PSV_DTYPE)
    for i, pos in enumerate(positions):
        records[i]["sfen"] = np.frombuffer(pack(pos), np.uint8)
        records[i]["score"] = i - 500
        records[i]["gamePly"] = pos.ply
        records[i]["game_result"] = (-1, 0, 1)[i % 3]
    return records


def test_psv_dtype_has_cshogis_layout():
    assert PSV_DTYPE == np.dtype(cshogi.PackedSfenValue)
    assert PSV_DTYPE.itemsize == 40


def test_records_written_with_numpy_are_read_by_cshogi(tmp_path):
    positions = [pos for pos, _ in POSITIONS[:500]]
    path = tmp_path / "data.psv"
    _records(positions).tofile(path)
    read = np.fromfile(path, dtype=cshogi.PackedSfenValue)
    board = cshogi.Board()
    for i, pos in enumerate(positions):
        board.set_psfen(read[i]["sfen"])
        assert _board_sfen(board.sfen()) == _board_sfen(pos.sfen())
        assert read[i]["score"] == i - 500 and read[i]["gamePly"] == pos.ply


def test_decode_records_gives_the_board_hands_and_side():
    positions = [pos for pos, _ in POSITIONS]
    board, hands, side = decode_records(_records(positions))
    assert board.shape == (len(positions), 81) and hands.shape == (len(positions), 2, 8)
    letters = "PLNSBRG"
    for i, pos in enumerate(positions):
        assert [int(x) for x in board[i]] == [pos.piece_at(sq) for sq in range(81)]
        for color in (0, 1):
            assert {letters[pt - 1]: int(hands[i, color, pt]) for pt in range(1, 8)
                    if hands[i, color, pt]} == pos.hand(color)
        assert side[i] == pos.turn


def test_decode_records_reads_raw_bytes_and_cshogi_arrays():
    records = _records([Position(), Position(FULL_HANDS)])
    expected = decode_records(records)
    for form in (records.view(np.uint8), records.astype(cshogi.PackedSfenValue)):
        for got, want in zip(decode_records(form), expected):
            assert np.array_equal(got, want)


def _bits_to_bytes(bits):
    bits = bits.ljust(256, "0")
    return bytes(int(bits[i:i + 8][::-1], 2) for i in range(0, 256, 8))


def _header(side=0, black_king=44, white_king=36):
    return (str(side) + format(black_king, "07b")[::-1] + format(white_king, "07b")[::-1])


def test_a_hand_crafted_stream_decodes():
    # kings on 5i and 5a, every other piece in black's hand, written in stream order
    hand = ("000" * 18 + "10000" * 4 + "10100" * 4 + "11000" * 4 + "11100" * 4
            + "1111000" * 2 + "1111100" * 2)
    data = _bits_to_bytes(_header() + "0" * 79 + hand)
    assert unpack(data) == "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1"
    assert data == pack(Position("4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1"))


@pytest.mark.parametrize("bits, why", [
    (_header(black_king=100), "king square beyond 81"),
    (_header(black_king=36), "both kings on one square"),
    (_header() + "111111" + "00" + "111111" + "00" + "111111" + "00", "three rooks"),
    (_header() + "0" * 79, "zeros read as more than 18 pawns in hand"),
    (_header() + "0" * 79 + "010", "a promoted pawn in hand"),
    (_header() + "0" * 79 + "000" * 17 + "1111100" * 2 + "1111000" * 2 + "11100" * 4
     + "11000" * 4 + "10100" * 4 + "10000" * 4 + "111", "a code running past bit 256"),
])
def test_malformed_data_is_refused(bits, why):
    data = _bits_to_bytes(bits)
    with pytest.raises(ValueError):
        unpack(data)
    records = _records([Position()] * 3)
    records[1]["sfen"] = np.frombuffer(data, np.uint8)
    with pytest.raises(ValueError, match="record 1"):
        decode_records(records)


def test_unpack_refuses_the_wrong_length():
    with pytest.raises(ValueError):
        unpack(pack(Position())[:31])
