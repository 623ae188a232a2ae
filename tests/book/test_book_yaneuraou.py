"""Our books in YaneuraOu (the material edition the peers script builds, at
~/.cache/usi-peers/yaneuraou-material): it reads the shipped standard_book.db, and a
book `usi-engine book think` writes, and plays from them. Skipped when it is not
built (../shared/tools/setup-peers.sh)."""
from __future__ import annotations

import os

import pytest

from peers import YANEURAOU_MATERIAL as YO_DEFAULT
from usi_engine.book import read_db
from usi_engine.book.loader import shipped_book_path
from usi_engine.book.select import BookSettings, playable
from usi_engine.usi.client import UsiClient

START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

pytestmark = pytest.mark.skipif(not os.access(YO_DEFAULT, os.X_OK),
                                reason=f"YaneuraOu is not built at {YO_DEFAULT}")


def book_moves(book_dir: str, book_file: str, moves: list[str]) -> tuple[list[str], str]:
    """YaneuraOu's isready lines and its bestmove after ``moves`` with that book."""
    with UsiClient([str(YO_DEFAULT)], cwd=book_dir) as engine:
        engine.usi(30)
        for name, value in (("Threads", 1), ("USI_Hash", 16), ("BookDir", book_dir),
                            ("BookFile", book_file), ("NetworkDelay", 0), ("NetworkDelay2", 0)):
            engine.setoption(name, value)
        engine.send("isready")
        ready = [line.text for line in engine.read_until("readyok", 60)]
        engine.usinewgame()
        engine.position("startpos", moves)
        result = engine.go("btime 0 wtime 0 byoyomi 2000", timeout=30)
        return ready, result.bestmove


def test_yaneuraou_reads_the_shipped_book_and_plays_its_moves():
    path = shipped_book_path()
    book = read_db(path)
    ready, best = book_moves(os.path.dirname(path), os.path.basename(path), [])
    assert any(f"number of positions = {len(book)}" in line for line in ready), ready
    assert best in {m.move for m in playable(book.find(START), 0, BookSettings())}


def test_yaneuraou_plays_from_a_book_our_think_wrote(tmp_path):
    from usi_engine.cli import main
    out = tmp_path / "user_book1.db"      # a name of its BookFile combo
    assert main(["book", "think", "startpos", "--out", str(out), "--depth", "16",
                 "--multipv", "1", "--hash", "16"]) == 0
    (only,) = read_db(str(out)).find(START)
    ready, best = book_moves(str(tmp_path), "user_book1.db", [])
    assert any("number of positions = 1" in line for line in ready), ready
    assert best == only.move


def test_we_read_the_book_yaneuraou_writes_from_ours(tmp_path):
    """YaneuraOu's peta_shock makebook rewrites our book with its own writer (minimax
    values, depth 0, no counts): we read every position of it back, with all our moves,
    and the moves it added are those that reach another position of the book (the
    transpositions its minimax links)."""
    import shutil
    import subprocess
    engine = tmp_path / "yaneuraou"
    shutil.copy(YO_DEFAULT, engine)              # it reads and writes beside its binary
    (tmp_path / "book").mkdir()
    shutil.copy(shipped_book_path(), tmp_path / "book" / "standard_book.db")
    done = subprocess.run([str(engine)], input="makebook peta_shock standard_book.db "
                          "user_book1.db\nquit\n", capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert "has been completed" in done.stdout, done.stdout[-2000:]
    theirs = read_db(str(tmp_path / "book" / "user_book1.db"))
    ours = read_db(shipped_book_path())
    assert len(theirs) == len(ours)
    from usi_engine.notation.sfen import flip_sfen
    from usi_engine.core.position import Position
    added = 0
    for sfen, moves in ours.items():
        mine = {m.move for m in moves}
        found = {m.move for m in theirs.find(sfen, ignore_ply=True)}
        assert mine <= found, sfen
        for move in found - mine:
            after = Position(sfen)
            after.push_usi(move)
            assert ours.find(after.sfen(), ignore_ply=True) or \
                ours.find(flip_sfen(after.sfen()), ignore_ply=True), (sfen, move)
            added += 1
    assert added > 0


def test_yaneuraou_plays_from_our_apery_bin(tmp_path):
    """Our .bin (Apery's format, keys from its mt19937_64 Zobrist table) is YaneuraOu's
    book.bin: it finds the start position and plays one of our moves."""
    from usi_engine.cli import main
    assert main(["book", "convert", shipped_book_path(), str(tmp_path / "book.bin")]) == 0
    ready, best = book_moves(str(tmp_path), "book.bin", [])
    book = read_db(shipped_book_path())
    assert best in {m.move for m in playable(book.find(START), 0, BookSettings())}
