"""Each book option's effect on a small book (usi_engine.book.select.probe)."""
from __future__ import annotations

import random
from dataclasses import replace

from usi_engine import Position
from usi_engine.book import BookMove, BookSettings, MemoryBook, probe
from usi_engine.notation.sfen import flip_sfen

START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
AFTER_76 = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
OPEN = BookSettings(depth_limit=0, eval_diff=99999, eval_black_limit=-99999,
                    eval_white_limit=-99999)


def small_book() -> MemoryBook:
    book = MemoryBook()
    book.add(START, BookMove("7g7f", "3c3d", 50, 20, 60))
    book.add(START, BookMove("2g2f", "8c8d", 40, 20, 35))
    book.add(START, BookMove("5g5f", "none", -100, 20, 5))
    book.add(AFTER_76, BookMove("3c3d", "2g2f", -30, 18, 10))
    return book


def chosen(book, sfen, settings, tries=200, seed=1) -> dict[str, int]:
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    for _ in range(tries):
        hit, _ = probe(book, Position(sfen), settings, rng, silent=True)
        key = "-" if hit is None else Position(sfen).move_to_usi(hit.best)
        counts[key] = counts.get(key, 0) + 1
    return counts


def test_a_hit_reports_only_the_chosen_move_under_multipv_1():
    for seed in range(8):
        hit, notes = probe(small_book(), Position(START), OPEN, random.Random(seed))
        assert hit is not None and notes == []
        played = Position(START).move_to_usi(hit.best)
        assert len(hit.info_lines) == 1
        assert hit.info_lines[0].startswith("info score cp ")
        assert f" pv {played}" in hit.info_lines[0]
        assert hit.usi_lines()[-1].startswith(f"bestmove {played}")


def test_the_chosen_book_move_is_line_1_with_its_value_and_depth():
    values = {"7g7f": 50, "2g2f": 40, "5g5f": -100}
    seen = set()
    for seed in range(30):
        hit, _ = probe(small_book(), Position(START), replace(OPEN, multipv=3),
                       random.Random(seed))
        played = Position(START).move_to_usi(hit.best)
        seen.add(played)
        assert hit.info_lines[0].startswith(
            f"info multipv 1 score cp {values[played]} depth 20 pv {played}")
    assert len(seen) >= 2                 # line 1 followed the choice, not the book order


def test_multipv_n_lists_the_other_candidates_in_book_order_after_the_chosen():
    hit, _ = probe(small_book(), Position(START), replace(OPEN, multipv=3), random.Random(1))
    played = Position(START).move_to_usi(hit.best)
    others = [m for m in ("7g7f", "2g2f", "5g5f") if m != played]
    assert [line.split()[2] for line in hit.info_lines] == ["1", "2", "3"]
    assert [line.split(" pv ")[1].split()[0] for line in hit.info_lines] == [played, *others]
    two, _ = probe(small_book(), Position(START), replace(OPEN, multipv=2), random.Random(1))
    assert len(two.info_lines) == 2


def test_own_book_off_and_no_book_give_nothing():
    assert probe(small_book(), Position(START), replace(OPEN, own_book=False))[0] is None
    assert probe(None, Position(START), OPEN)[0] is None


def test_book_moves_limits_the_ply():
    assert probe(small_book(), Position(AFTER_76), replace(OPEN, book_moves=1))[0] is None
    assert probe(small_book(), Position(AFTER_76), replace(OPEN, book_moves=2))[0] is not None
    assert probe(small_book(), Position(START), replace(OPEN, book_moves=0))[0] is None


def test_book_ignore_rate():
    assert chosen(small_book(), START, replace(OPEN, ignore_rate=100)) == {"-": 200}
    half = chosen(small_book(), START, replace(OPEN, ignore_rate=50), tries=400)
    assert 120 < half["-"] < 280


def test_uniform_choice_unless_consider_book_move_count():
    even = chosen(small_book(), START, OPEN, tries=600)
    assert all(150 < even[m] < 250 for m in ("7g7f", "2g2f", "5g5f"))
    weighted = chosen(small_book(), START, replace(OPEN, consider_count=True), tries=600)
    assert weighted["7g7f"] > 300 and weighted.get("5g5f", 0) < 70


def test_narrow_book_drops_moves_under_ten_percent():
    hit_counts = chosen(small_book(), START, replace(OPEN, narrow=True), tries=200)
    assert set(hit_counts) == {"7g7f", "2g2f"}
    hit, _ = probe(small_book(), Position(START), replace(OPEN, narrow=True), random.Random(2))
    assert "NarrowBook: 3 moves to 2" in hit.notes


def test_book_eval_diff_and_side_limits():
    assert set(chosen(small_book(), START, replace(OPEN, eval_diff=10))) == {"7g7f", "2g2f"}
    assert set(chosen(small_book(), START, replace(OPEN, eval_diff=0))) == {"7g7f"}
    assert set(chosen(small_book(), START, replace(OPEN, eval_black_limit=45))) == {"7g7f"}
    # white's limit: the only move (-30) is refused below -20, taken at -30
    assert chosen(small_book(), AFTER_76, replace(OPEN, eval_white_limit=-20)) == {"-": 200}
    assert chosen(small_book(), AFTER_76, replace(OPEN, eval_white_limit=-30)) == {"3c3d": 200}
    hit, notes = probe(small_book(), Position(AFTER_76), replace(OPEN, eval_white_limit=-20))
    assert hit is None and any("BookEvalWhiteLimit -20" in n for n in notes)


def test_book_depth_limit_looks_at_the_first_move():
    assert probe(small_book(), Position(START), replace(OPEN, depth_limit=20))[0] is not None
    hit, notes = probe(small_book(), Position(START), replace(OPEN, depth_limit=21))
    assert hit is None and "BookDepthLimit" in notes[0]


def test_book_pv_moves():
    one, _ = probe(small_book(), Position(START), replace(OPEN, pv_moves=1), random.Random(1))
    assert one.info_lines[0].endswith("pv 7g7f")
    two, _ = probe(small_book(), Position(START), replace(OPEN, pv_moves=2), random.Random(1))
    assert two.info_lines[0].endswith("pv 7g7f 3c3d")


def test_ignore_book_ply():
    later = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 9"
    assert probe(small_book(), Position(later), OPEN)[0] is None
    assert probe(small_book(), Position(later), replace(OPEN, ignore_ply=True))[0] is not None


def test_flipped_book_answers_the_colour_swapped_position():
    book = MemoryBook()
    book.add(START, BookMove("7g7f", "3c3d", 0, 20, 1))
    white_start = flip_sfen(START)                       # the start, white to move
    hit, _ = probe(book, Position(white_start), OPEN, random.Random(1))
    assert Position(white_start).move_to_usi(hit.best) == "3c3d"
    assert hit.info_lines[0].endswith("pv 3c3d 7g7f")
    assert probe(book, Position(white_start), replace(OPEN, flipped=False))[0] is None


def test_ponder_falls_back_to_the_next_positions_first_move():
    book = MemoryBook()
    book.add(START, BookMove("7g7f", "none", 0, 20, 1))
    book.add(AFTER_76, BookMove("8c8d", "none", 0, 20, 1))
    hit, _ = probe(book, Position(START), OPEN, random.Random(1))
    assert hit.usi_lines()[-1] == "bestmove 7g7f ponder 8c8d"


def test_illegal_book_moves_are_reported_and_skipped():
    book = MemoryBook()
    book.add(START, BookMove("7g7e", "none", 0, 20, 5))   # not a legal move
    book.add(START, BookMove("2g2f", "none", 0, 20, 1))
    hit, _ = probe(book, Position(START), OPEN, random.Random(1))
    assert hit.usi_lines()[-1].startswith("bestmove 2g2f")
    assert any("illegal move 7g7e" in note for note in hit.notes)
    only_bad = MemoryBook()
    only_bad.add(START, BookMove("5e5d", "none", 0, 20, 1))
    hit, notes = probe(only_bad, Position(START), OPEN)
    assert hit is None and "illegal move 5e5d" in notes[0]


def test_searchmoves_restrict_the_book():
    pos = Position(START)
    only = [pos.parse_usi("2g2f")]
    assert chosen(small_book(), START, OPEN) != {"2g2f": 200}
    rng = random.Random(3)
    for _ in range(20):
        hit, _ = probe(small_book(), pos, OPEN, rng, searchmoves=only)
        assert hit.best == only[0]
