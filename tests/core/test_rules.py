"""One test per rule of shogi, each on a small hand-built position."""
import pytest

from usi_engine import Position, move_to_usi, usi_to_move


def usi_set(moves):
    return {move_to_usi(m) for m in moves}


def moves_from(pos, square):
    return {u for u in usi_set(pos.legal_moves()) if u.startswith(square)}


# -- pawn-drop mate (uchifuzume) ---------------------------------------------------------
# White king 1a, guarded escape 2a (silver 3b), pawn square 1b guarded by knight 2d.
# White's gold on 2b could take a pawn on 1b, but the bishop on 4d pins it diagonally.
UCHIFUZUME_PINNED = "8k/6Sg1/9/5B1N1/9/9/9/9/4K4 b P 1"


def test_pawn_drop_mate_is_illegal_when_the_only_capturer_is_pinned():
    pos = Position(UCHIFUZUME_PINNED)
    assert "P*1b" not in usi_set(pos.legal_moves())
    assert not pos.is_legal(usi_to_move("P*1b"))


def test_pawn_drop_check_is_legal_when_the_capturer_is_free():
    pos = Position(UCHIFUZUME_PINNED.replace("5B1N1", "7N1"))   # no bishop: gold not pinned
    assert "P*1b" in usi_set(pos.legal_moves())


def test_pawn_drop_check_is_legal_when_a_pinned_piece_captures_along_its_pin():
    # gold on 1c pinned by the lance on 1e along the file may still take on 1b
    pos = Position("8k/6S2/8g/7N1/8L/9/9/9/4K4 b P 1")
    assert "P*1b" in usi_set(pos.legal_moves())


def test_pawn_drop_mate_rejected_by_push_usi_without_changing_the_position():
    pos = Position(UCHIFUZUME_PINNED)
    before = pos.sfen()
    with pytest.raises(ValueError, match="illegal"):
        pos.push_usi("P*1b")
    assert pos.sfen() == before


def test_pawn_drop_that_the_king_can_escape_is_legal():
    pos = Position("8k/9/9/9/9/9/9/9/4K4 b P 1")
    assert "P*1b" in usi_set(pos.legal_moves())


def test_mate_by_moving_a_pawn_is_legal():
    # the same mating net, but the pawn arrives by a move, not a drop
    pos = Position("8k/6Sg1/8P/5B1N1/9/9/9/9/4K4 b - 1")
    assert "1c1b" in usi_set(pos.legal_moves())
    pos.push_usi("1c1b")
    assert pos.is_checkmate()


# -- nifu and dead squares ---------------------------------------------------------------
def test_no_pawn_drop_on_a_file_holding_an_unpromoted_pawn():
    pos = Position("4k4/9/9/9/9/9/4P4/9/4K4 b P 1")
    drops = {u for u in usi_set(pos.legal_moves()) if u.startswith("P*")}
    assert not any(u[2] == "5" for u in drops)
    assert "P*4e" in drops


def test_promoted_pawn_does_not_block_a_pawn_drop_on_its_file():
    pos = Position("4k4/9/9/9/9/9/4+P4/9/4K4 b P 1")
    assert "P*5e" in usi_set(pos.legal_moves())


@pytest.mark.parametrize("piece,dead_ranks", [("P", "a"), ("L", "a"), ("N", "ab")])
def test_no_drop_where_the_piece_could_never_move(piece, dead_ranks):
    pos = Position(f"4k4/9/9/9/9/9/9/9/4K4 b {piece} 1")
    drops = {u for u in usi_set(pos.legal_moves()) if u.startswith(piece + "*")}
    assert drops and not any(u[3] in dead_ranks for u in drops)


def test_white_drops_are_mirrored():
    pos = Position("4k4/9/9/9/9/9/9/9/4K4 w n 1")
    drops = {u for u in usi_set(pos.legal_moves()) if u.startswith("N*")}
    assert drops and not any(u[3] in "hi" for u in drops)


# -- promotion -------------------------------------------------------------------------------
def test_pawn_reaching_the_last_rank_must_promote():
    pos = Position("4k4/7P1/9/9/9/9/9/9/4K4 b - 1")
    assert moves_from(pos, "2b") == {"2b2a+"}


def test_knight_reaching_the_last_two_ranks_must_promote():
    pos = Position("4k4/9/9/7N1/9/9/9/9/4K4 b - 1")
    assert moves_from(pos, "2d") == {"2d1b+", "2d3b+"}


def test_knight_on_the_third_rank_may_choose():
    pos = Position("4k4/9/9/9/7N1/9/9/9/4K4 b - 1")
    assert moves_from(pos, "2e") == {"2e1c", "2e1c+", "2e3c", "2e3c+"}


def test_promotion_is_optional_when_leaving_the_zone():
    pos = Position("4k4/9/7S1/9/9/9/9/9/4K4 b - 1")
    assert {"2c1d", "2c1d+", "2c3d", "2c3d+"} <= moves_from(pos, "2c")


def test_gold_and_king_never_promote():
    pos = Position("4k4/9/7G1/9/9/9/9/9/4K4 b - 1")
    assert not any(u.endswith("+") for u in moves_from(pos, "2c"))


def test_white_promotion_zone_is_ranks_g_to_i():
    pos = Position("4k4/9/9/9/9/7p1/9/9/K8 w - 1")
    assert moves_from(pos, "2f") == {"2f2g", "2f2g+"}


# -- pins, checks, evasions -------------------------------------------------------------------
def test_pinned_silver_moves_only_along_the_pin():
    pos = Position("4r4/9/9/9/4S4/9/9/4K4/9 b b 1")
    assert moves_from(pos, "5e") == {"5e5d"}


def test_pinned_rook_may_capture_its_pinner():
    pos = Position("4k4/9/9/9/4r4/9/9/4R4/4K4 b - 1")
    assert "5h5e" in moves_from(pos, "5h")
    assert not any(u[2] != "5" for u in moves_from(pos, "5h"))


def test_double_check_allows_king_moves_only():
    pos = Position("4k4/9/5N3/9/9/9/9/9/4R3K w 2g2sp 1")
    assert pos.is_check()
    assert all(u.startswith("5a") for u in usi_set(pos.legal_moves()))


def test_single_check_can_be_blocked_by_a_drop():
    pos = Position("K8/9/9/9/r8/9/9/9/k8 b G 1")     # rook on 9e checks the king on 9a
    assert pos.is_check()
    moves = usi_set(pos.legal_moves())
    assert {"G*9b", "G*9c", "G*9d"} <= moves
    assert not any(u.startswith("G*") and u[2:] not in ("9b", "9c", "9d") for u in moves)


def test_king_may_not_step_along_the_checking_line():
    pos = Position("K8/9/9/9/r8/9/9/9/k8 b - 1")
    assert "9a9b" not in usi_set(pos.legal_moves())


def test_no_move_may_leave_the_own_king_in_check():
    pos = Position("4k4/4r4/9/9/9/9/9/4G4/4K4 b - 1")   # gold shields the king
    assert moves_from(pos, "5h") == {"5h5g"}


def test_checkmate_is_detected():
    pos = Position("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1")
    assert pos.is_check() and pos.is_checkmate()
    assert pos.legal_moves() == []


# -- repetition (sennichite) --------------------------------------------------------------------
SHUFFLE = ["5i4h", "5a4b", "4h5i", "4b5a"]
PERPETUAL_START = "8k/9/6R2/9/9/9/9/9/K8 b - 1"
PERPETUAL = ["3b3a", "1a1b", "3a3b", "1b1a"]   # rook checks along rank a / rank b


def play(pos, moves):
    for u in moves:
        pos.push_usi(u)


def test_fourth_occurrence_is_a_draw():
    pos = Position("4k4/9/9/9/9/9/9/9/4K4 b - 1")
    play(pos, SHUFFLE * 2)
    assert pos.game_repetition() == "none"        # third occurrence
    play(pos, SHUFFLE)
    assert pos.game_repetition() == "draw"        # fourth


def test_search_repetition_reports_the_first_recurrence():
    pos = Position("4k4/9/9/9/9/9/9/9/4K4 b - 1")
    play(pos, SHUFFLE)
    assert pos.repetition() == "draw"
    assert pos.repetition(max_distance=3) == "none"


def test_perpetual_check_loses_for_the_checking_side():
    pos = Position(PERPETUAL_START)
    pos.push_usi("3c3a")                          # check; this position recurs
    for _ in range(3):
        play(pos, ["1a1b", "3a3b", "1b1a", "3b3a"])
    assert pos.turn == 1                          # white, who has been checked throughout
    assert pos.game_repetition() == "win"
    pos.pop()
    pos.push_usi("3b3a")
    assert pos.game_repetition() == "win"


def test_perpetual_check_seen_from_the_checking_side_is_a_loss():
    pos = Position(PERPETUAL_START)
    pos.push_usi("3c3a")
    play(pos, ["1a1b", "3a3b", "1b1a", "3b3a", "1a1b"])
    assert pos.turn == 0
    assert pos.repetition() == "lose"


# White drops a pawn that black's rook eats; the rook goes home: same board, and black
# now holds a pawn more.
GAIN_START = "4k4/9/9/9/9/9/9/7R1/4K4 b - 1"
GAIN = ["2h2g", "P*2e", "2g2e", "5a4a", "2e2h", "4a5a"]


def test_same_board_with_more_in_hand_is_superior():
    pos = Position(GAIN_START.replace(" b - ", " b p "))
    play(pos, GAIN)
    assert pos.turn == 0 and pos.hand(0) == {"P": 1}
    assert pos.repetition() == "superior"


def test_same_board_with_less_in_hand_is_inferior():
    pos = Position(GAIN_START.replace(" b - ", " w p "))
    play(pos, ["P*2e", "2h2e", "5a4a", "2e2f", "4a5a", "2f2h"])
    assert pos.turn == 1 and pos.hand(1) == {}
    assert pos.repetition() == "inferior"


# -- entering king ------------------------------------------------------------------------------
DECLARATION = "K+R+B+P+P+P+P+P+P/6+P+P+P/9/9/9/9/9/9/k8 b 2G 1"


def test_entering_king_declaration_holds_with_enough_points():
    pos = Position(DECLARATION)                   # 10 pieces in camp, 5+5+8 + hand 2 = 20
    assert not pos.declaration_win()              # 20 points: not enough
    rich = Position("K+R+B+P+P+P+P+P+P/6+P+P+P/9/9/9/9/9/9/k8 b RB2G2S2N 1")
    assert rich.declaration_win()                 # 20 + 10 + 6 = 36


def test_declaration_needs_ten_pieces_in_the_camp():
    pos = Position("K+R+B+P+P+P+P+P+P/9/9/9/9/9/9/9/k8 b RB4G4S4N 1")   # 8 in camp
    assert not pos.declaration_win()


def test_declaration_fails_in_check():
    pos = Position("K+R+B+P+P+P+P+P+P/6+P+P+P/r8/9/9/9/9/9/k8 b B2G2S2N 1")
    assert pos.is_check()
    assert not pos.declaration_win()


# -- the move buffers hold any position --------------------------------------------------
def test_move_buffers_hold_more_moves_than_any_position_can_have():
    """Without its king the side to move has no pins and no checks to answer, so the
    593 of the known record (both kings) is no bound: bound the count by the pieces.
    Board moves, each promotion choice counted: per piece the most targets it can
    have, twice when it may promote (a rook or bishop sees at most 16 squares; a
    promoted minor piece moves as a gold, 6).  Drops: each type in hand on every empty
    square it may stand on, never the other king's."""
    from usi_engine.core.position import MAX_LEGAL_MOVES
    board = (2 * max(16 * 2, 16 + 4)        # rooks or dragons
             + 2 * max(16 * 2, 16 + 4)      # bishops or horses
             + 4 * max(8 * 2, 6)            # lances or promoted lances
             + 4 * max(2 * 2, 6)            # knights or promoted knights
             + 4 * max(5 * 2, 6)            # silvers or promoted silvers
             + 4 * 6                        # golds
             + 18 * max(1 * 2, 6)           # pawns or tokin
             + 8)                           # the king, when there is one
    drops = 8 * 9 + 8 * 9 + 7 * 9 + 4 * 80  # pawn, lance, knight; silver gold bishop rook
    assert board + drops <= MAX_LEGAL_MOVES


KINGLESS_MANY_MOVES = "R8/4S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1"


def test_a_kingless_position_with_591_moves_lists_them_all():
    import cshogi                       # in the test extra: its absence fails
    ours = usi_set(Position(KINGLESS_MANY_MOVES).legal_moves())
    theirs = {cshogi.move_to_usi(m) for m in cshogi.Board(KINGLESS_MANY_MOVES).legal_moves}
    assert len(ours) == 591 and ours == theirs
