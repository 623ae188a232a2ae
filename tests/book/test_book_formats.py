"""Book formats: the text book round-trip and its binary search on disk, Apery .bin
keys against cshogi, .bin entries read by cshogi's book layout, SFEN flipping."""
from __future__ import annotations

import random

import cshogi
import numpy as np
import pytest

from usi_engine import Position
from usi_engine.book import BookMove, MemoryBook, OnTheFlyBook, read_db, write_db
from usi_engine.book.apery import (ENTRY, MT19937_64, AperyBook, apery_key, apery_to_move,
                                   move_to_apery, write_bin)
from usi_engine.notation.sfen import flip_move, flip_sfen, split_ply
from usi_engine.book.textdb import HEADER, BookFormatError, iter_db

START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


def random_positions(count: int, seed: int, max_plies: int = 80) -> list[str]:
    """SFENs of random games (drops and promotions come up), each a few plies in."""
    rng = random.Random(seed)
    sfens = []
    while len(sfens) < count:
        pos = Position()
        for _ in range(rng.randrange(1, max_plies)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos.push(rng.choice(moves))
        sfens.append(pos.sfen())
    return sfens


def random_book(seed: int, positions: int = 150) -> MemoryBook:
    rng = random.Random(seed)
    book = MemoryBook()
    for sfen in random_positions(positions, seed, 40):
        pos = Position(sfen)
        moves = pos.legal_moves()
        for move in rng.sample(moves, min(len(moves), rng.randrange(1, 4))):
            book.add(sfen, BookMove(pos.move_to_usi(move), "none", rng.randrange(-500, 500),
                                    rng.randrange(0, 30), rng.randrange(1, 100)))
    return book


def as_dict(book) -> dict[str, list[tuple]]:
    return {sfen: sorted((m.move, m.value, m.count) for m in moves)
            for sfen, moves in book.items()}


def test_mt19937_64_matches_the_cpp_standard():
    mt = MT19937_64()
    outputs = [mt.next() for _ in range(10000)]
    assert outputs[0] == 14514284786278117030
    assert outputs[-1] == 9981545732273789042     # [rand.predef]: the 10000th output


def test_apery_keys_equal_cshogis_on_random_positions():
    board = cshogi.Board()
    sfens = random_positions(400, seed=7) + [START]
    for sfen in sfens:
        board.set_sfen(sfen)
        assert apery_key(sfen) == board.book_key(), sfen


def test_apery_move_field_is_the_engine_move_int():
    for sfen in random_positions(30, seed=3):
        pos = Position(sfen)
        for move in pos.legal_moves():
            text = pos.move_to_usi(move)
            assert move_to_apery(text) == move
            assert apery_to_move(move) == text


def test_text_book_round_trip_and_sorted_layout(tmp_path):
    book = random_book(1)
    path = tmp_path / "book.db"
    assert write_db(str(path), book) == len(book)
    lines = path.read_text().splitlines()
    assert lines[0] == HEADER
    sfens = [line[5:] for line in lines if line.startswith("sfen ")]
    assert sfens == sorted(sfens) and len(sfens) == len(set(sfens))
    again = read_db(str(path))
    assert as_dict(again) == as_dict(book)
    for sfen, moves in again.items():
        assert [(-m.count, -m.value) for m in moves] == sorted((-m.count, -m.value) for m in moves)


def test_text_book_reader_defaults_and_comments():
    text = (f"{HEADER}\n// a comment\n#another\nsfen {START}\n7g7f 3c3d\n2g2f none 25\n"
            "5g5f none 10 12\n")
    (sfen, moves), = list(iter_db(text.splitlines(keepends=True)))
    assert sfen == START
    assert moves == [BookMove("7g7f", "3c3d", 0, 0, 1), BookMove("2g2f", "none", 25, 0, 1),
                     BookMove("5g5f", "none", 10, 12, 1)]
    with pytest.raises(BookFormatError, match=":2:"):
        list(iter_db([HEADER + "\n", "7g7f 3c3d\n"]))


def test_on_the_fly_binary_search_finds_every_position_and_nothing_else(tmp_path):
    book = random_book(2, positions=200)
    path = tmp_path / "book.db"
    write_db(str(path), book)
    with OnTheFlyBook(str(path)) as disk:
        for sfen, moves in book.items():
            found = disk.find(sfen)
            assert found is not None, sfen
            assert sorted(m.line() for m in found) == sorted(m.line() for m in moves)
            key, ply = split_ply(sfen)
            assert disk.find(f"{key} {ply + 2}") is None              # the ply must match
            assert disk.find(f"{key} {ply + 2}", ignore_ply=True) is not None
        for sfen in random_positions(100, seed=99):
            if sfen not in book:
                assert disk.find(sfen) is None


def test_on_the_fly_reads_a_few_small_pieces(tmp_path, monkeypatch):
    book = random_book(4, positions=300)
    path = tmp_path / "book.db"
    write_db(str(path), book)
    with OnTheFlyBook(str(path)) as disk:
        reads = []
        original = disk._first_sfen_from
        monkeypatch.setattr(disk, "_first_sfen_from", lambda o: reads.append(o) or original(o))
        sfen = next(iter(book.items()))[0]
        assert disk.find(sfen)
        assert len(reads) <= 2 * path.stat().st_size.bit_length()


def test_bin_round_trip_and_cshogi_reads_our_entries(tmp_path):
    book = random_book(5)
    path = tmp_path / "book.bin"
    written = write_bin(str(path), book)
    entries = np.fromfile(path, dtype=cshogi.BookEntry)
    assert len(entries) == written == sum(len(m) for _, m in book.items())
    keys = entries["key"]
    assert np.all(keys[:-1] <= keys[1:])
    board = cshogi.Board()
    ours = AperyBook(str(path))
    for sfen, moves in book.items():
        board.set_sfen(sfen)
        key = board.book_key()
        rows = entries[keys == key]                      # cshogi's key finds our entries
        assert list(rows["count"]) == sorted(rows["count"], reverse=True)
        got = sorted((cshogi.move_to_usi(board.move_from_move16(int(r["fromToPro"]))),
                      int(r["score"]), int(r["count"])) for r in rows)
        assert got == sorted((m.move, m.value, m.count) for m in moves)
        assert sorted(m.move for m in ours.find(sfen)) == sorted(m.move for m in moves)
    assert ENTRY.itemsize == 16


def test_flip_sfen_and_moves_agree_with_the_rules():
    for sfen in random_positions(40, seed=11):
        flipped = flip_sfen(sfen)
        assert flip_sfen(flipped) == sfen
        pos, other = Position(sfen), Position(flipped)
        assert other.sfen() == flipped                          # canonical hands
        assert sorted(flip_move(pos.move_to_usi(m)) for m in pos.legal_moves()) == \
            sorted(other.move_to_usi(m) for m in other.legal_moves())
