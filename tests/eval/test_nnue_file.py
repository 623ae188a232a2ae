"""usi_engine.eval.nnue_file: YaneuraOu's nn.bin (HalfKP shapes) read and written as
YaneuraOu does, and the reference evaluation of a position with it.  The same
evaluation against YaneuraOu's own NNUE build: tests/eval/test_nnue_yaneuraou.py."""
import io

import pytest

from usi_engine.eval import nnue_file
from usi_engine.notation.sfen import STARTPOS_SFEN, flip_sfen

MIDGAME = "ln1g3nl/1r1sk1gb1/p1ppppsp1/1p4p1p/9/2P1P1P2/PPSP1P1PP/1B3S1R1/LN1GKG1NL b - 1"
WITH_HANDS = "l6nl/1r3kg2/p2ppgsp1/2ps1pp1p/1p5P1/2P1P1P2/PPSG1P2P/2G1K1SR1/LN5NL b BN3Pbn 1"
NO_ROOK = "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"   # a handicap


@pytest.fixture(scope="module")
def net():
    return nnue_file.random_net(seed=7)


@pytest.fixture(scope="module")
def written(net):
    buffer = io.BytesIO()
    nnue_file.write_net(net, buffer)
    return buffer.getvalue()


def test_a_written_net_is_the_usual_size_of_its_shape(written):
    assert len(written) == 64_217_066 == nnue_file.file_size(256, 32, 32, 178)


def test_a_written_net_reads_back_the_same_weights(net, written):
    back = nnue_file.read_net(written)
    for name in ("ft_bias", "ft_weight", "l1_bias", "l1_weight", "l2_bias", "l2_weight",
                 "out_bias", "out_weight"):
        assert (getattr(back, name) == getattr(net, name)).all(), name


@pytest.mark.parametrize("change", [-1, +1], ids=["a byte short", "a byte over"])
def test_a_file_of_another_size_is_refused(written, change):
    data = written[:-1] if change < 0 else written + b"\0"
    with pytest.raises(nnue_file.NetFileError, match="fit none of the shapes"):
        nnue_file.read_net(data)


def test_a_file_of_another_version_is_refused(written):
    with pytest.raises(nnue_file.NetFileError, match="not an nn.bin"):
        nnue_file.read_net(b"\0\0\0\0" + written[4:])


@pytest.mark.parametrize("shape", [(512, 16, 32), (1024, 8, 32)])
def test_the_wider_shapes_are_told_by_their_size(shape):
    import struct
    text = b"Features=HalfKP(Friend)"
    size = nnue_file.file_size(*shape, len(text))
    header = struct.pack("<III", nnue_file.VERSION, 0, len(text)) + text
    data = header + bytes(size - len(header))
    assert nnue_file.read_net(data).shape == shape


def test_each_view_has_38_features_from_its_own_king():
    black, white, side = nnue_file.features(STARTPOS_SFEN)
    assert (len(black), len(white), side) == (38, 38, 0)
    assert {f // 1548 for f in black} == {44} == {f // 1548 for f in white}   # 5i; 5a turned


def test_a_black_pawn_on_1g_is_black_s_own_pawn_on_square_6():
    black, _, _ = nnue_file.features(STARTPOS_SFEN)
    assert 44 * 1548 + 90 + 6 in black


def test_each_piece_in_hand_is_a_feature_of_its_own():
    black, white, _ = nnue_file.features(WITH_HANDS)
    king = black[0] // 1548
    assert {king * 1548 + 1 + k for k in range(3)} <= set(black)     # own pawns 1, 2, 3
    assert king * 1548 + 1 + 3 not in black
    white_king = white[0] // 1548
    assert {white_king * 1548 + 20 + k for k in range(3)} <= set(white)   # its opponent's


def test_an_absent_piece_switches_on_bona_piece_zero():
    black, white, _ = nnue_file.features(NO_ROOK)
    assert [f % 1548 for f in black].count(0) == 1 == [f % 1548 for f in white].count(0)


@pytest.mark.parametrize("sfen", [STARTPOS_SFEN, MIDGAME, WITH_HANDS, NO_ROOK])
def test_a_position_and_its_colours_turned_round_evaluate_the_same(net, sfen):
    assert nnue_file.evaluate(net, sfen) == nnue_file.evaluate(net, flip_sfen(sfen))


def test_fv_scale_divides_the_output_toward_zero(net):
    at_1 = nnue_file.evaluate(net, MIDGAME, fv_scale=1)
    assert nnue_file.evaluate(net, MIDGAME, fv_scale=24) == int(at_1 / 24)


def test_a_position_without_both_kings_is_refused(net):
    with pytest.raises(ValueError, match="both kings"):
        nnue_file.evaluate(net, "4k4/9/9/9/9/9/9/9/9 b G 1")
