"""CSA protocol pieces: move conversion (against cshogi), positions, Game_Summary,
server move lines, engine info lines and floodgate comments."""
import random

import cshogi
import pytest

from usi_engine.usi.info import parse_info
from usi_engine.notation.csa_board import CsaBoard, CsaPositionError
from usi_engine.notation.sfen import STARTPOS_SFEN
from usi_engine.csa.protocol import (SummaryError, floodgate_comment,
                                     parse_game_summary, parse_move_line)


def _random_games(games, seed):
    """Yield (cshogi board, our board) before every move of random games, and the
    move cshogi plays."""
    rng = random.Random(seed)
    for _ in range(games):
        board, ours = cshogi.Board(), CsaBoard.initial()
        for _ply in range(160):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            yield board, ours, moves
            move = rng.choice(moves)
            ours.push_usi(cshogi.move_to_usi(move))
            board.push(move)


def test_usi_to_csa_matches_cshogi_on_every_legal_move_of_random_games():
    checked = 0
    for board, ours, moves in _random_games(40, seed=1):
        sign = "+" if board.turn == cshogi.BLACK else "-"
        for move in moves:
            assert ours.usi_to_csa(cshogi.move_to_usi(move)) == sign + cshogi.move_to_csa(move)
            checked += 1
    assert checked > 5000


def test_csa_to_usi_matches_cshogi_on_every_legal_move_of_random_games():
    checked = 0
    for board, ours, moves in _random_games(40, seed=2):
        sign = "+" if board.turn == cshogi.BLACK else "-"
        for move in moves:
            assert ours.csa_to_usi(sign + cshogi.move_to_csa(move)) == cshogi.move_to_usi(move)
            checked += 1
    assert checked > 5000


def test_board_follows_cshogi_sfen_through_random_games():
    for board, ours, _ in _random_games(20, seed=3):
        assert ours.sfen().split()[:3] == board.sfen().split()[:3]


def test_conversion_refuses_moves_that_cannot_be_made_here():
    board = CsaBoard.initial()
    for bad in ("-3334FU", "+5556FU", "+0055KA", "+7776TO", "+7776KI", "77761FU"):
        with pytest.raises(ValueError):
            board.csa_to_usi(bad)
    for bad in ("5e5d", "B*5e", "7g7f+", "1a1b", "7g7", "K*5e"):
        with pytest.raises(ValueError):
            board.usi_to_csa(bad)


def test_failed_push_leaves_the_board_unchanged():
    board = CsaBoard.initial()
    for bad in ("-3334FU", "+2839HI", "+0055FU"):
        with pytest.raises(ValueError):
            board.push_csa(bad)
    with pytest.raises(ValueError):
        board.push_usi("5e5d")
    assert board.sfen() == STARTPOS_SFEN


def test_promotion_and_capture_go_to_hand_unpromoted():
    board = CsaBoard.initial()
    for csa in ("+7776FU", "-3334FU", "+8822UM"):
        board.push_csa(csa)
    assert board.hands["+"] == {"KA": 1}
    assert board.squares[(2, 2)] == ("+", "UM")
    assert board.csa_to_usi("-3122GI") == "3a2b"
    board.push_csa("-3122GI")
    assert board.hands["-"] == {"KA": 1}
    assert board.usi_to_csa("B*4e") == "+0045KA"


def test_initial_position_reads_as_startpos():
    assert CsaBoard.initial().sfen() == STARTPOS_SFEN


def test_handicap_pi_removes_the_named_pieces():
    board = CsaBoard.from_csa_lines(["PI82HI22KA", "-"])
    assert board.sfen() == "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"


def test_explicit_board_with_hands_and_al_round_trips_through_csa_lines():
    lines = ["P1 *  *  *  *  *  *  *  * -OU", "P2" + " * " * 9, "P3" + " * " * 9,
             "P4" + " * " * 9, "P5" + " * " * 9, "P6" + " * " * 9, "P7" + " * " * 9,
             "P8" + " * " * 9, "P9 *  *  *  *  *  *  *  * +OU", "P+00HI00KI", "P-00AL", "+"]
    board = CsaBoard.from_csa_lines(lines)
    assert board.hands["+"] == {"HI": 1, "KI": 1}
    assert board.hands["-"] == {"HI": 1, "KA": 2, "KI": 3, "GI": 4, "KE": 4, "KY": 4, "FU": 18}
    assert CsaBoard.from_csa_lines(board.csa_lines()).sfen() == board.sfen()


def test_bad_position_lines_are_named_in_the_error():
    with pytest.raises(CsaPositionError, match="P5"):
        CsaBoard.from_csa_lines(["PI", "P5+XX", "+"])
    with pytest.raises(CsaPositionError, match="no king"):
        CsaBoard.from_csa_lines(["P+00FU"])


# --- Game_Summary --------------------------------------------------------------------------

SHOGI_SERVER_SUMMARY = """BEGIN Game_Summary
Protocol_Version:1.2
Protocol_Mode:Server
Format:Shogi 1.0
Declaration:Jishogi 1.1
Game_ID:wdoor+floodgate-300-10F+alice+bob+20261123000000
Name+:alice
Name-:bob
Your_Turn:-
Rematch_On_Draw:NO
To_Move:+
Max_Moves:256
BEGIN Time
Time_Unit:1sec
Total_Time:300
Byoyomi:0
Increment:10
Least_Time_Per_Move:0
END Time
BEGIN Position
P1-KY-KE-GI-KI-OU-KI-GI-KE-KY
P2 * -HI *  *  *  *  * -KA * 
P3-FU-FU-FU-FU-FU-FU-FU-FU-FU
P4 *  *  *  *  *  *  *  *  * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7+FU+FU+FU+FU+FU+FU+FU+FU+FU
P8 * +KA *  *  *  *  * +HI * 
P9+KY+KE+GI+KI+OU+KI+GI+KE+KY
+
END Position
END Game_Summary""".splitlines()


def test_shogi_server_summary_gives_every_field():
    s = parse_game_summary(SHOGI_SERVER_SUMMARY)
    assert s.game_id == "wdoor+floodgate-300-10F+alice+bob+20261123000000"
    assert (s.my_color, s.to_move, s.names) == ("-", "+", {"+": "alice", "-": "bob"})
    assert (s.max_moves, s.protocol_version, s.protocol_mode, s.format, s.declaration) == (
        256, "1.2", "Server", "Shogi 1.0", "Jishogi 1.1")
    assert s.rematch_on_draw is False
    for color in "+-":
        t = s.time[color]
        assert (t.unit_ms, t.total, t.byoyomi, t.increment, t.least, t.roundup) == (
            1000, 300, 0, 10, 0, False)
    assert s.current_board().sfen() == STARTPOS_SFEN


def test_per_side_time_sections_override_the_common_one():
    lines = [l for l in SHOGI_SERVER_SUMMARY if l not in ("BEGIN Time", "END Time")
             and not l.startswith(("Time_Unit", "Total_Time", "Byoyomi", "Increment",
                                   "Least_Time"))]
    at = lines.index("BEGIN Position")
    lines[at:at] = ["BEGIN Time+", "Time_Unit:1min", "Total_Time:10", "Byoyomi:1",
                    "Time_Roundup:YES", "END Time+", "BEGIN Time-", "Time_Unit:1msec",
                    "Total_Time:60000", "Increment:500", "Least_Time_Per_Move:1", "END Time-"]
    s = parse_game_summary(lines)
    black, white = s.time["+"], s.time["-"]
    assert (black.unit_ms, black.total, black.byoyomi, black.roundup, black.kind) == (
        60000, 10, 1, True, "byoyomi")
    assert (white.unit_ms, white.total, white.increment, white.least, white.kind) == (
        1, 60000, 500, 1, "fischer")


def test_summary_position_moves_are_the_moves_already_played():
    lines = list(SHOGI_SERVER_SUMMARY)
    at = lines.index("END Position")
    lines[at:at] = ["+7776FU,T12", "-3334FU,T5"]
    lines[lines.index("To_Move:+")] = "To_Move:+"
    s = parse_game_summary(lines)
    assert [(m.move, m.time) for m in s.initial_moves] == [("+7776FU", 12), ("-3334FU", 5)]
    assert s.current_board().turn == "+"
    assert s.start_board().sfen() == STARTPOS_SFEN


def test_summary_with_a_handicap_position():
    lines = [l for l in SHOGI_SERVER_SUMMARY if not l.startswith("P")]
    at = lines.index("BEGIN Position") + 1
    lines[at:at + 1] = ["PI82HI", "-"]
    lines[lines.index("To_Move:+")] = "To_Move:-"
    s = parse_game_summary(lines)
    assert s.current_board().sfen().startswith("lnsgkgsnl/7b1/")
    assert s.current_board().turn == "-"


@pytest.mark.parametrize("change, message", [
    (("Your_Turn:-", "Your_Turn:x"), "Your_Turn"),
    (("Game_ID:wdoor+floodgate-300-10F+alice+bob+20261123000000", "Name:x"), "Game_ID"),
    (("Increment:10", "Increment:ten"), "Increment"),
    (("Time_Unit:1sec", "Time_Unit:1hour"), "Time_Unit"),
    (("END Time", "END Tim"), "does not close"),
    (("+", "+9999FU,T1"), "initial move|no king|cannot"),
])
def test_malformed_summaries_say_what_is_wrong(change, message):
    lines = [change[1] if l == change[0] else l for l in SHOGI_SERVER_SUMMARY]
    with pytest.raises(SummaryError, match=message):
        parse_game_summary(lines)


def test_move_lines_parse_with_and_without_time():
    assert parse_move_line("-3334FU,T5").move == "-3334FU"
    assert parse_move_line("-3334FU,T5").time == 5
    assert parse_move_line("+7776FU").time is None
    assert parse_move_line("+7776FU,'* 30 -3334FU").extra == "'* 30 -3334FU"
    for bad in ("%TORYO", "#WIN", "+77FU", "7776FU,T1", "+7776FU,Tx", ""):
        assert parse_move_line(bad) is None


# --- engine info and floodgate comments ------------------------------------------------------

def test_info_lines_give_score_and_pv_of_the_first_variation():
    info = parse_info("info depth 8 seldepth 10 score cp -35 nodes 100 nps 9 pv 7g7f 3c3d")
    assert (info.score_cp, info.mate, info.pv, info.depth) == (-35, None, ["7g7f", "3c3d"], 8)
    assert parse_info("info depth 3 score mate 5 pv 2b3c").mate == (5, True)
    assert parse_info("info score mate -4 pv 5a4a").mate == (4, False)
    assert parse_info("info score mate + pv G*5b").mate == (None, True)
    assert parse_info("info multipv 2 score cp 10 pv 7g7f").multipv == 2   # the bridge skips it
    assert not parse_info("info string score cp 10 pv 7g7f").has_score
    assert not parse_info("info depth 5 nodes 100").has_score
    assert parse_info("info score cp 12x pv 7g7f").score_cp is None


def test_comment_score_is_from_blacks_side():
    assert floodgate_comment(30, None, ["-3334FU"], we_are_black=True) == "'* 30 -3334FU"
    assert floodgate_comment(30, None, ["+2726FU"], we_are_black=False) == "'* -30 +2726FU"


def test_comment_mate_scores_count_down_from_30000():
    assert floodgate_comment(None, (3, True), [], we_are_black=True) == "'* 29997"
    assert floodgate_comment(None, (3, True), [], we_are_black=False) == "'* -29997"
    assert floodgate_comment(None, (2, False), [], we_are_black=True) == "'* -29998"
    assert floodgate_comment(None, None, [], we_are_black=True) is None


def test_pv_is_converted_until_the_first_move_that_cannot_be_played():
    board = CsaBoard.initial()
    assert board.pv_to_csa(["7g7f", "3c3d", "9z9y", "2g2f"]) == ["+7776FU", "-3334FU"]
    assert board.sfen() == STARTPOS_SFEN
