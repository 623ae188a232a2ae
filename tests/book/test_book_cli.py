"""usi-engine book: from-records, convert (.db <-> .bin), merge, sort, think
(values and depths written, resumable, parallel)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from usi_engine.cli import main
from usi_engine.book import BookMove, MemoryBook, read_db, write_db
from usi_engine.book.textdb import HEADER

START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
GAMES = """\
startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e
position startpos moves 7g7f 8c8d 2g2f
startpos moves 2g2f 8c8d 7g7f
# a comment
sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 5g5f
"""
# black mates (fool's-mate-like lines are long; a short sfen mate): gold drop on 5b
MATE_GAME = "sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1 moves G*5b\n"


def run(*argv: str) -> int:
    return main(list(argv))


def test_from_records_counts_moves_and_fills_ponders(tmp_path, capsys):
    (tmp_path / "games.txt").write_text(GAMES)
    out = tmp_path / "rec.db"
    assert run("book", "from-records", str(tmp_path / "games.txt"), "--out", str(out)) == 0
    assert "from 4 of 4 games" in capsys.readouterr().out
    book = read_db(str(out))
    start = {m.move: m for m in book.find(START)}
    assert start["7g7f"].count == 2 and start["2g2f"].count == 1 and start["5g5f"].count == 1
    assert start["7g7f"].ponder in ("3c3d", "8c8d")
    assert run("book", "from-records", str(tmp_path / "games.txt"), "--out", str(out),
               "--max-ply", "1") == 0
    assert len(read_db(str(out))) == 1


def test_from_records_winner_only(tmp_path):
    (tmp_path / "games.txt").write_text(GAMES + MATE_GAME)
    out = tmp_path / "win.db"
    assert run("book", "from-records", str(tmp_path / "games.txt"), "--out", str(out),
               "--winner-only") == 0
    book = read_db(str(out))
    assert [m.move for _, moves in book.items() for m in moves] == ["G*5b"]


def test_convert_db_to_bin_and_back_keeps_an_unknown_depth_unknown(tmp_path, capsys):
    (tmp_path / "games.txt").write_text(GAMES)
    run("book", "from-records", str(tmp_path / "games.txt"), "--out", str(tmp_path / "a.db"))
    assert run("book", "convert", str(tmp_path / "a.db"), str(tmp_path / "a.bin")) == 0
    assert run("book", "convert", str(tmp_path / "a.bin"), str(tmp_path / "b.db")) == 0
    a, b = read_db(str(tmp_path / "a.db")), read_db(str(tmp_path / "b.db"))
    simple = lambda book: {s: sorted((m.move, m.ponder, m.value, m.count) for m in ms)
                           for s, ms in book.items()}
    assert simple(a) == simple(b)
    assert all(m.depth == 0 for _, ms in b.items() for m in ms)     # a .bin has no depth


def test_merge_sums_counts_and_keeps_the_deeper_value(tmp_path):
    one, two = MemoryBook(), MemoryBook()
    one.add(START, BookMove("7g7f", "3c3d", 10, 5, 3))
    two.add(START, BookMove("7g7f", "8c8d", 40, 12, 4))
    two.add(START, BookMove("2g2f", "none", 0, 12, 1))
    write_db(str(tmp_path / "1.db"), one)
    write_db(str(tmp_path / "2.db"), two)
    assert run("book", "merge", str(tmp_path / "1.db"), str(tmp_path / "2.db"),
               "--out", str(tmp_path / "m.db")) == 0
    merged = {m.move: m for m in read_db(str(tmp_path / "m.db")).find(START)}
    assert merged["7g7f"] == BookMove("7g7f", "8c8d", 40, 12, 7)
    assert merged["2g2f"].count == 1


def test_sort_normalises_and_orders_a_hand_written_book(tmp_path):
    path = tmp_path / "hand.db"
    path.write_text(f"{HEADER}\nsfen 9/9/9/9/9/9/9/9/4K4 b P2R 1\nK5h none\n"   # hand unordered
                    f"sfen {START}\n7g7f none 1 2 3\nsfen {START}\n2g2f none\n")
    assert run("book", "sort", str(path)) == 0
    lines = path.read_text().splitlines()
    sfens = [line for line in lines if line.startswith("sfen ")]
    assert sfens == sorted(sfens) and len(sfens) == 2
    assert "sfen 9/9/9/9/9/9/9/9/4K4 b 2RP 1" in sfens
    assert {m.move for m in read_db(str(path)).find(START)} == {"7g7f", "2g2f"}


def test_think_writes_values_and_depths_and_resumes(tmp_path, capsys):
    openings = tmp_path / "openings.txt"
    openings.write_text("startpos moves 7g7f 3c3d\nstartpos moves 7g7f 8c8d\n")
    out = tmp_path / "thought.db"
    args = ("book", "think", str(openings), "--out", str(out), "--depth", "2",
            "--multipv", "2", "--plies", "1", "--hash", "4")
    assert run(*args) == 0
    assert "thought 2 positions, skipped 0" in capsys.readouterr().out
    book = read_db(str(out))
    assert len(book) == 2
    for sfen, moves in book.items():
        assert len(moves) == 2 and all(m.depth == 2 for m in moves)
        assert all(m.ponder != "none" for m in moves)
    assert run(*args) == 0
    assert "thought 0 positions, skipped 2" in capsys.readouterr().out
    # a deeper think redoes them; the book itself can be the input
    assert run("book", "think", str(out), "--out", str(out), "--depth", "3",
               "--multipv", "1", "--hash", "4") == 0
    assert all(max(m.depth for m in ms) == 3 for _, ms in read_db(str(out)).items())


def test_think_expands_the_moves_the_book_would_play(tmp_path, capsys):
    """From the start, each position's playable moves (within BookEvalDiff of the best,
    above the side's BookEval*Limit) lead to the next positions thought, up to the ply."""
    from usi_engine.book.select import BookSettings, playable
    from usi_engine.core.position import Position
    out = tmp_path / "tree.db"
    args = ("book", "think", "startpos", "--out", str(out), "--depth", "3", "--multipv", "3",
            "--expand-plies", "3", "--hash", "4")
    assert run(*args) == 0
    book = read_db(str(out))
    for sfen, moves in book.items():
        position = Position(sfen)
        if position.ply >= 3:
            continue
        for move in playable(moves, position.turn, BookSettings()):
            after = position.copy()
            after.push_usi(move.move)
            assert book.find(after.sfen(), ignore_ply=True), (sfen, move.move)
    assert all(Position(sfen).ply <= 3 for sfen, _ in book.items())
    capsys.readouterr()
    assert run(*args) == 0
    assert f"thought 0 positions, skipped {len(book)}" in capsys.readouterr().out


def test_think_expansion_stops_at_max_positions(tmp_path):
    out = tmp_path / "small.db"
    assert run("book", "think", "startpos", "--out", str(out), "--depth", "2", "--multipv",
               "4", "--expand-plies", "10", "--max-positions", "5", "--hash", "4") == 0
    assert len(read_db(str(out))) == 5


def test_think_in_parallel(tmp_path):
    openings = tmp_path / "openings.txt"
    openings.write_text("startpos moves 7g7f 3c3d 2g2f\n")
    out = tmp_path / "par.db"
    done = subprocess.run([sys.executable, "-m", "usi_engine", "book", "think", str(openings),
                           "--out", str(out), "--depth", "2", "--multipv", "1",
                           "--plies", "2", "--workers", "2", "--hash", "4"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "thought 3 positions" in done.stdout
    assert len(read_db(str(out))) == 3


@pytest.mark.parametrize("argv", [("book",), ("book", "think", "x.txt")])
def test_bad_book_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        code = run(*argv)
        raise SystemExit(code)
    assert exc.value.code == 2


CSA_GAME = "V2.2\nPI\n+\n+7776FU\n-3334FU\n+2726FU\n%TORYO\n"


def test_from_records_reads_csa_records_and_their_winner(tmp_path):
    (tmp_path / "game.csa").write_text(CSA_GAME)
    out = tmp_path / "csa.db"
    assert run("book", "from-records", str(tmp_path / "game.csa"), "--out", str(out)) == 0
    assert sorted(m.move for _, ms in read_db(str(out)).items() for m in ms) == \
        ["2g2f", "3c3d", "7g7f"]
    assert run("book", "from-records", str(tmp_path / "game.csa"), "--out", str(out),
               "--winner-only") == 0          # white resigned: black's moves
    assert sorted(m.move for _, ms in read_db(str(out)).items() for m in ms) == ["2g2f", "7g7f"]


@pytest.mark.parametrize("argv,named", [
    (("book", "convert", "nosuch.db", "out.bin"), "cannot read nosuch.db: "),
    (("book", "merge", "a.db", "nosuch.db", "--out", "x.db"), "cannot read "),
    (("book", "sort", "nosuch.db"), "cannot read nosuch.db: "),
])
def test_a_missing_book_file_is_named_as_the_other_commands_name_it(argv, named, capsys,
                                                                    tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_db("a.db", MemoryBook())
    assert run(*argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usi-engine book: error: {named}") and "Errno" not in err, err
