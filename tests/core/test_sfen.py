"""SFEN: exact round trip, and a ValueError naming the field for every kind of bad input."""
import pytest
from hypothesis import given, settings, strategies as st

from conftest import read_perft_suite
from usi_engine import STARTPOS_SFEN, Position

SUITE_SFENS = [sfen for _, sfen, _ in read_perft_suite()]


@pytest.mark.parametrize("sfen", SUITE_SFENS)
def test_sfen_round_trip_is_exact(sfen):
    assert Position(sfen).sfen() == sfen


def test_default_position_is_the_start_position():
    assert Position().sfen() == STARTPOS_SFEN


def test_ply_field_is_optional_and_defaults_to_one():
    pos = Position("4k4/9/9/9/9/9/9/9/4K4 b - ")
    assert pos.ply == 1 and pos.sfen().endswith(" 1")


def test_ply_is_kept_and_advanced_by_moves():
    pos = Position("4k4/9/9/9/9/9/9/9/4K4 b - 57")
    pos.push_usi("5i5h")
    assert pos.ply == 58 and pos.sfen().endswith(" 58")


def test_hand_is_formatted_in_canonical_order_with_counts():
    pos = Position("4k4/9/9/9/9/9/9/9/4K4 b p10PGLbBR 1")
    assert pos.sfen().split()[2] == "RBGL10Pbp"


def test_tsume_position_without_attacking_king_loads():
    pos = Position("3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1")
    assert pos.king_square(0) == -1 and len(pos.legal_moves()) > 0


def test_a_tsume_position_after_the_attackers_move_loads_and_round_trips():
    pos = Position("3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1")
    pos.push_usi("S*5b")                  # the defender (with its king) is now to move
    assert Position(pos.sfen()).sfen() == pos.sfen() and pos.king_square(0) == -1


def test_the_usi_sfen_form_is_accepted():
    sfen = "3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1"
    assert Position("sfen " + sfen).sfen() == sfen


def test_the_usi_startpos_form_plays_its_moves_and_keeps_the_history():
    pos = Position("startpos moves 7g7f 3c3d 8h2b+")
    expected = Position()
    for move in ("7g7f", "3c3d", "8h2b+"):
        expected.push_usi(move)
    assert pos.sfen() == expected.sfen() and pos.history_length == 3
    assert Position("startpos").sfen() == STARTPOS_SFEN
    assert Position("startpos moves").sfen() == STARTPOS_SFEN   # some GUIs send this


def test_the_sfen_form_with_moves_starts_from_that_sfen():
    pos = Position("sfen 4k4/9/9/9/9/9/9/9/4K4 b G 7 moves G*5b")
    assert pos.sfen() == "4k4/4G4/9/9/9/9/9/9/4K4 w - 8" and pos.history_length == 1


def test_an_illegal_move_in_the_usi_form_leaves_the_position_unchanged():
    pos = Position()
    pos.push_usi("2g2f")
    before = (pos.sfen(), pos.history_length)
    with pytest.raises(ValueError, match="move 4 '7e7d' is illegal"):
        pos.set_sfen("startpos moves 7g7f 3c3d 7f7e 7e7d 7d7c")
    assert (pos.sfen(), pos.history_length) == before


def test_usi_position_rebuilds_the_position_with_its_history():
    pos = Position("startpos moves 2h1h 8b9b 1h2h 9b8b")
    text = pos.usi_position()
    assert text == f"sfen {STARTPOS_SFEN} moves 2h1h 8b9b 1h2h 9b8b"
    again = Position(text)
    assert again.sfen() == pos.sfen() and again.repetition() == pos.repetition() == "draw"


def test_pickle_keeps_the_position_and_its_history():
    import pickle
    pos = Position("startpos moves 2h1h 8b9b 1h2h 9b8b")
    again = pickle.loads(pickle.dumps(pos))
    assert again.sfen() == pos.sfen() and again.key == pos.key
    assert again.history_length == 4 and again.repetition() == "draw"


def test_deepcopy_is_an_independent_copy_with_the_history():
    import copy
    pos = Position("startpos moves 7g7f")
    clone = copy.deepcopy(pos)
    clone.push_usi("3c3d")
    assert pos.history_length == 1 and clone.history_length == 2
    clone.pop()
    assert clone.sfen() == pos.sfen()


def test_help_shows_the_constructor_signature():
    import inspect
    import pydoc
    assert str(inspect.signature(Position)) == "(sfen=None)"
    text = pydoc.render_doc(Position)
    assert "Position(sfen=None)" in text and "__init__(self, /, *args, **kwargs)" not in text


def test_push_then_pop_restores_sfen_and_key():
    pos = Position()
    before = (pos.sfen(), pos.key)
    for u in ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]:
        pos.push_usi(u)
    for _ in range(5):
        pos.pop()
    assert (pos.sfen(), pos.key) == before


def test_key_depends_on_side_hands_and_board():
    a = Position("4k4/9/9/9/9/9/9/9/4K4 b P 1")
    assert a.key != Position("4k4/9/9/9/9/9/9/9/4K4 w P 1").key
    assert a.key != Position("4k4/9/9/9/9/9/9/9/4K4 b p 1").key
    assert a.key != Position("4k4/9/9/9/9/9/9/9/3K5 b P 1").key
    assert a.key == Position("4k4/9/9/9/9/9/9/9/4K4 b P 99").key


def test_key_is_incremental_and_matches_a_fresh_parse():
    pos = Position()
    for u in ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "8b5b"]:
        pos.push_usi(u)
        assert pos.key == Position(pos.sfen()).key


BAD = [
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1", "sfen board: expected 9 ranks"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1", "rank i has 8 files"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNLL b - 1", "more than 9 files"),
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1", "unknown piece letter"),
    ("4+k4/9/9/9/9/9/9/9/4K4 b - 1", "cannot be promoted"),
    ("4k4/4+g4/9/9/9/9/9/9/4K4 b - 1", "cannot be promoted"),
    ("4k4/9/9/9/+39/9/9/9/9/4K4 b - 1", "sfen board"),
    ("4k4/9/9/3+4/9/9/9/9/4K4 b - 1", "'+' before a digit"),
    ("4k4/9/9/9/9/9/9/9/4K3+ b - 1", "ends with '+'"),
    ("4k4/9/9/9/9/9/9/9/4K4 b 19P 1", "more than the set holds"),
    ("4k4/9/9/9/9/9/9/9/4K4 b 3R 1", "more than the set holds"),
    ("rrr1k4/9/9/9/9/9/9/9/4K4 b - 1", "the set holds 2"),
    ("4k4/9/9/9/9/9/9/9/3KK4 b - 1", "two black kings"),
    ("4k3k/9/9/9/9/9/9/9/4K4 b - 1", "two white kings"),
    ("P3k4/9/9/9/9/9/9/9/4K4 b - 1", "could never move"),
    ("L3k4/9/9/9/9/9/9/9/4K4 b - 1", "could never move"),
    ("4k4/N8/9/9/9/9/9/9/4K4 b - 1", "could never move"),
    ("4k4/9/9/9/9/9/9/9/n3K4 b - 1", "could never move"),
    ("4k4/9/9/9/P8/P8/9/9/4K4 b - 1", "nifu"),
    ("4k4/9/9/9/9/9/9/4R4/4K4 b - 1", "side not to move is in check"),
    ("4k4/9/9/9/9/9/9/9/4K4 x - 1", "sfen side"),
    ("4k4/9/9/9/9/9/9/9/4K4 b K 1", "sfen hand"),
    ("4k4/9/9/9/9/9/9/9/4K4 b 2 1", "sfen hand"),
    ("4k4/9/9/9/9/9/9/9/4K4 b 0P 1", "sfen hand: bad count"),
    ("4k4/9/9/9/9/9/9/9/4K4 b PP 1", "listed twice"),
    ("4k4/9/9/9/9/9/9/9/4K4 b - 0", "sfen ply"),
    ("4k4/9/9/9/9/9/9/9/4K4 b - x", "sfen ply"),
    ("4k4/9/9/9/9/9/9/9/4K4", "sfen needs <board> <side> <hand>"),
    ("", "no position"),
    # only a tsume's attacker may lack its king, not both sides
    ("9/9/9/9/9/9/9/9/9 b - 1", "no king"),
    ("9/9/9/9/9/9/9/9/9 w P 1", "no king"),
    ("9/9/9/9/4P4/9/9/9/9 b - 1", "no king"),
    # digits of other scripts are not numbers (str.isdigit() and int() take them)
    ("4k4/9/9/9/9/9/9/9/4K\u0664 b - 1", "sfen board"),
    ("4k4/9/9/9/9/9/9/9/4K4 b \u0662P 1", "sfen hand"),
    ("4k4/9/9/9/9/9/9/9/4K4 b - \u0669", "sfen ply"),
    ("4k4/9/9/9/9/9/9/9/4K4 b - \uff11", "sfen ply"),
    # the USI forms: 'startpos'/'sfen' first, then moves that are legal
    ("startpos moves 7g7f 7g7f", "moves: move 2 '7g7f' is illegal"),
    ("startpos moves 7g7x", "moves: move 1: bad move"),
    ("moves 7g7f sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1", "sfen needs <board> <side> <hand>"),
    ("4k4/9/9/9/9/9/9/9/4K4 b - 1 startpos", "unexpected token 'startpos' after the sfen"),
]


@pytest.mark.parametrize("sfen,message", BAD)
def test_bad_sfen_is_rejected_with_the_field_named(sfen, message):
    with pytest.raises(ValueError, match=message.replace("+", r"\+")):
        Position(sfen)


def test_bad_sfen_leaves_the_previous_position_in_place():
    pos = Position()
    pos.push_usi("7g7f")
    before = pos.sfen()
    with pytest.raises(ValueError):
        pos.set_sfen("4k4/9/9/9/9/9/9/9/4K4 b 19P 1")
    assert pos.sfen() == before and pos.history_length == 1


SFEN_ALPHABET = "123456789/+plnsgbrkPLNSGBRK bw-0 \t"


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=SFEN_ALPHABET, max_size=120))
def test_garbage_text_raises_value_error_or_parses_consistently(text):
    try:
        pos = Position(text)
    except ValueError:
        return
    assert Position(pos.sfen()).sfen() == pos.sfen()
    pos.legal_moves()


@settings(max_examples=1000, deadline=None)
@given(st.sampled_from(SUITE_SFENS), st.integers(0, 200), st.sampled_from(SFEN_ALPHABET))
def test_mutated_sfen_raises_value_error_or_round_trips(sfen, index, char):
    text = sfen[:index % len(sfen)] + char + sfen[index % len(sfen) + 1:]
    try:
        pos = Position(text)
    except ValueError:
        return
    assert Position(pos.sfen()).sfen() == pos.sfen()
    for m in pos.legal_moves():
        pos.push(m)
        pos.pop()


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=12))
def test_garbage_move_text_raises_value_error_and_changes_nothing(text):
    pos = Position()
    before = pos.sfen()
    try:
        pos.push_usi(text)
    except ValueError:
        assert pos.sfen() == before
    else:
        assert pos.history_length == 1


@settings(max_examples=700, deadline=None)
@given(st.integers(-(1 << 40), 1 << 40))
def test_any_int_is_safe_to_test_for_legality(value):
    pos = Position("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1")
    before = pos.sfen()
    if pos.is_legal(value):
        assert value in pos.legal_moves()
    else:
        with pytest.raises(ValueError):
            pos.push(value)
    assert pos.sfen() == before
