"""usi_engine.record: the fixture records of tests/records/ (KIF in CP932, KIFU with a
board diagram, KI2, floodgate's and shogi-server's CSA), cshogi's parsers as a second
reading, round trips through every format, errors, and `usi-engine convert`."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from usi_engine import Position
from usi_engine.record import (FORMATS, Record, RecordError, encode_record, read_record,
                               write_record, write_records)

RECORDS = Path(__file__).resolve().parents[1] / "records"
FIXTURES = sorted(RECORDS.iterdir())


def all_games():
    return [(path.name, i, game) for path in FIXTURES
            for i, game in enumerate(read_record(path))]


def test_handicap_kif_in_cp932():
    [game] = read_record(RECORDS / "handicap_cp932.kif")
    assert game.handicap == "香落ち"
    assert game.start_sfen.startswith("lnsgkgsn1/1r5b1/")
    assert game.moves == ["3c3d", "7g7f", "2b8h+", "7i8h", "B*2b", "B*7g", "2b5e", "7g5e"]
    assert game.times[:3] == [5, 10, 3]
    assert game.comment == "対局前のコメント" and game.comments[1] == "角道を開ける"
    assert (game.black, game.white, game.event) == ("下手さん", "上手さん", "香落ち練習")
    assert game.start_time == "2026/03/04 10:00:00"
    assert (game.termination, game.result) == ("resign", "black_win")
    [variation] = game.variations
    assert (variation.ply, variation.moves, variation.termination) == (3, ["4c4d", "2g2f"],
                                                                      "interrupt")


@pytest.mark.parametrize("name", ["五枚落ち", "左五枚落ち", "左七枚落ち", "右七枚落ち", "十枚落ち"])
def test_every_handicap_by_name_reads_and_round_trips_through_each_format(name):
    from usi_engine.record.board import HANDICAPS
    text = f"手合割：{name}\n手数----指手---------消費時間--\n   1 ５二玉(51)\n"
    [game] = read_record(text, format="kif")
    assert game.handicap == name and game.start_sfen == HANDICAPS[name]
    assert game.start_sfen.split()[1] == "w" and len(Position(game.start_sfen).legal_moves()) > 0
    for fmt in FORMATS:
        [back] = read_record(write_record(game, fmt), format=fmt)
        assert (back.start_sfen, back.moves) == (game.start_sfen, game.moves), fmt


def test_the_handicaps_give_up_what_their_names_say():
    from usi_engine.record.board import HANDICAPS
    top = {name: sfen.split("/")[0] for name, sfen in HANDICAPS.items()}
    assert top["五枚落ち"] == "2sgkgsn1" and top["左五枚落ち"] == "1nsgkgs2"   # 8a / 2a knight
    assert top["左七枚落ち"] == "2sgkg3" and top["右七枚落ち"] == "3gkgs2"     # 3a / 7a silver


def test_kifu_with_board_diagram_and_move_number():
    [game] = read_record(RECORDS / "midgame_bod.kifu")
    assert game.handicap is None
    assert game.start_sfen == ("ln5nl/6gk1/2pppgsp1/5pp1p/1p7/2P4PP/PP1PPPP2/1SG3R2/"
                               "LNKG3NL b R2SPb 41")
    assert game.moves[3:5] == ["2c2d", "P*2e"] and game.termination == "interrupt"
    assert game.headers["表題"] == "中盤から"


def test_ki2():
    [game] = read_record(RECORDS / "sample.ki2")
    assert game.moves[10] == "6i5h"           # ５八金左
    assert game.moves[15] == "4a5b"           # ５二金左
    assert game.comments[11] == "金の上がり方"
    assert game.termination == "interrupt" and game.result is None


def test_floodgate_csa_two_games():
    first, second = read_record(RECORDS / "floodgate_two_games.csa")
    assert first.moves == ["2g2f", "8c8d", "2f2e", "8d8e"] and first.times == [3, 4, 10, 7]
    assert first.comments[:2] == ["* 50 -8384FU", "* -42"]
    assert (first.termination, first.result) == ("timeout", "white_win")
    assert first.headers["SITE"] == "wdoor.c.u-tokyo.ac.jp" and first.event == "floodgate-300-10F"
    assert second.handicap == "二枚落ち" and second.result == "draw"
    assert (second.black, second.white) == ("gote_handicap", "uwate")


def test_shogi_server_record():
    [game] = read_record(RECORDS / "shogi_server.csa")
    assert game.moves == ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "4a3b"]
    assert (game.termination, game.result) == ("resign", "white_win")   # black resigned
    assert game.end_time == "2026/01/01 12:01:02" and game.event.startswith("testgame")
    assert game.comments[4] == "* 120 -4132KI +4523UM"


# (not midgame_bod.kifu: cshogi 0.x reads its ``同　歩(23)`` after a board diagram as
# 2c1a; tsshogi and we read 2c2d)
@pytest.mark.parametrize("name", ["handicap_cp932.kif"])
def test_kif_as_cshogi_reads_it(name):
    kif = pytest.importorskip("cshogi.KIF")
    theirs = kif.Parser.parse_file(str(RECORDS / name))
    [ours] = read_record(RECORDS / name)
    import cshogi
    assert [cshogi.move_to_usi(m) for m in theirs.moves] == ours.moves
    assert theirs.sfen.split()[:3] == ours.start_sfen.split()[:3]


@pytest.mark.parametrize("name", ["floodgate_two_games.csa", "shogi_server.csa"])
def test_csa_as_cshogi_reads_it(name):
    csa = pytest.importorskip("cshogi.CSA")
    import cshogi
    theirs = csa.Parser.parse_file(str(RECORDS / name))
    ours = read_record(RECORDS / name)
    assert len(theirs) == len(ours)
    for t, o in zip(theirs, ours):
        assert [cshogi.move_to_usi(m) for m in t.moves] == o.moves
        assert t.sfen.split()[:3] == o.start_sfen.split()[:3]
        assert t.names == [o.black, o.white]
        from cshogi.KIF import BLACK_WIN, DRAW, WHITE_WIN
        winner = {BLACK_WIN: "black_win", WHITE_WIN: "white_win", DRAW: "draw"}
        assert winner.get(t.win) == o.result


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_fixture_round_trips(fmt):
    for name, index, game in all_games():
        back = read_record(write_record(game, fmt), format=fmt)[0]
        assert back.moves == game.moves, (name, index)
        assert back.start_sfen.split()[:3] == game.start_sfen.split()[:3]
        if fmt != "usi":
            assert back.termination == game.termination, (name, fmt)
            assert back.black == game.black
            assert back.comments == game.comments or fmt == "usi"
        if fmt in ("kif", "csa", "jkf"):
            assert back.times == game.times
        if fmt in ("kif", "jkf"):
            assert back.variations == game.variations
        if fmt == "ki2":        # no times in KI2
            assert [(v.ply, v.moves, v.termination) for v in back.variations] == \
                [(v.ply, v.moves, v.termination) for v in game.variations]


@pytest.mark.skipif(sys.platform == "win32", reason="cshogi's parsers open files in the "
                    "locale's encoding, which on Windows is not the records' UTF-8 or CP932")
def test_ours_read_by_cshogi(tmp_path):
    kif = pytest.importorskip("cshogi.KIF")
    csa = pytest.importorskip("cshogi.CSA")
    import cshogi
    for name, index, game in all_games():
        (tmp_path / "g.kif").write_bytes(encode_record(write_record(game, "kif"), "g.kif"))
        (tmp_path / "g.csa").write_text(write_record(game, "csa"), encoding="utf-8")
        theirs_kif = kif.Parser.parse_file(str(tmp_path / "g.kif"))
        [theirs_csa] = csa.Parser.parse_file(str(tmp_path / "g.csa"))
        # cshogi misreads 同 after a board diagram (see above): its KIF reading is
        # compared for the standard and handicap starts only
        for theirs in (theirs_kif, theirs_csa) if game.handicap else (theirs_csa,):
            assert [cshogi.move_to_usi(m) for m in theirs.moves] == game.moves, name
            assert Position(theirs.sfen).sfen().split()[:3] == game.start_sfen.split()[:3]


def test_usi_lines():
    games = read_record("position startpos moves 7g7f 3c3d\n"
                        "sfen 4k4/9/9/9/9/9/9/9/4K4 b G 1 moves G*5b\n", format="usi")
    assert [g.moves for g in games] == [["7g7f", "3c3d"], ["G*5b"]]
    assert write_records(games, "usi").splitlines()[0] == "position startpos moves 7g7f 3c3d"


@pytest.mark.parametrize("text, fmt, where, what", [
    ("position startpos moves 7g7f 7g7f", "usi", "line 1", "illegal move 7g7f"),
    ("手合割：平手\n   1 ７六歩(77)\n   2 ７五歩(77)\n", "kif", "line 3", "no piece on 77"),
    ("手合割：平手\n   1 ７六歩(77)\n   3 ３四歩(33)\n", "kif", "line 3", "move number 3"),
    ("手合割：九枚落ち\n   1 ７六歩(77)\n", "kif", "line 1", "unknown handicap"),
    ("▲７六歩 △３四歩 ▲５八金\n", "ki2", "line 1", "ambiguous"),
    ("PI\n+\n+7776FU\n-3334FU\n+2726KA\n", "csa", "line 5", "2726KA"),
    ("PI\n+\n+7776FU\n%FOO\n", "csa", "line 4", "unknown termination"),
    ("{\"moves\": [{}, {\"move\": {\"to\": {\"x\": 7, \"y\": 6}, \"from\": {\"x\": 7, "
     "\"y\": 8}}}]}", "jkf", "", "illegal move"),
])
def test_errors_name_line_and_reason(text, fmt, where, what):
    with pytest.raises(RecordError) as info:
        read_record(text, format=fmt)
    assert what in str(info.value) and where in str(info.value)


def test_error_names_the_file(tmp_path):
    path = tmp_path / "bad.csa"
    path.write_text("PI\n+\n+7775FU\n")
    with pytest.raises(RecordError, match=r"bad\.csa, line 3: .*7775FU"):
        read_record(path)


def test_encodings(tmp_path):
    game = read_record(RECORDS / "handicap_cp932.kif")[0]
    text = write_record(game, "kif")
    for name, data in (("a.kif", text.encode("cp932")), ("b.kifu", text.encode("utf-8")),
                       ("c.kif", b"\xef\xbb\xbf" + text.encode("utf-8"))):
        (tmp_path / name).write_bytes(data)
        assert read_record(tmp_path / name)[0].moves == game.moves
    (tmp_path / "d.kifu").write_bytes(text.encode("cp932"))
    with pytest.raises(RecordError, match="UTF-8"):
        read_record(tmp_path / "d.kifu")


def test_results_from_kif_words():
    cases = {"まで77手で先手の勝ち": ("resign", "black_win"),
             "まで10手で千日手": ("repetition_draw", "draw"),
             "まで10手で持将棋": ("impass", "draw"),
             "まで10手で時間切れにより後手の勝ち": ("timeout", "white_win"),
             "まで10手で先手の反則勝ち": ("foul_win", "black_win"),
             "まで10手で先手の入玉勝ち": ("entering_king", "black_win"),
             "まで10手で中断": ("interrupt", None)}
    for line, expected in cases.items():
        [game] = read_record("手合割：平手\n" + line + "\n", format="kif")
        assert (game.termination, game.result) == expected, line


def test_record_defaults():
    record = Record(moves=["7g7f"])
    assert record.times == [None] and record.comments == [""]
    assert record.usi() == "startpos moves 7g7f"


def run_cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "usi_engine", "convert", *args],
                          capture_output=True, text=True, input=stdin, timeout=60)


def test_cli_convert(tmp_path):
    done = run_cli(str(RECORDS / "floodgate_two_games.csa"), "--to", "usi")
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 2
    out = tmp_path / "g.kif"
    done = run_cli(str(RECORDS / "shogi_server.csa"), "--to", "kif", "-o", str(out))
    assert done.returncode == 0 and done.stdout == ""
    assert "投了" in out.read_bytes().decode("cp932")
    done = run_cli("-", "--to", "csa", stdin="position startpos moves 7g7f")
    assert "+7776FU" in done.stdout
    done = run_cli("-", "--from", "usi", "--to", "csa", stdin="position startpos moves 7g7e")
    assert done.returncode == 2 and "line 1" in done.stderr and "7g7e" in done.stderr
