"""usi-engine analyze and usi_engine.analysis: win rates and marks in ShogiHome's
conventions, the played move valued by a restricted search when it is not among the
lines, reproducible output at a node limit, annotated records that read back, a rerun
that reuses finished games, and an unreadable record named with its line."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from usi_engine.cli import main
from usi_engine.analysis import AnalysisSettings, analyze_record, mark_for, win_rate
from usi_engine.record import read_record

RECORDS = Path(__file__).resolve().parents[1] / "records"
#: 14 plies with a few poor moves (an early bishop trade, pawns given away).
GAME = ("startpos moves 7g7f 3c3d 8h2b+ 3a2b 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d "
        "2h2d P*2c")


def game():
    return read_record(GAME.encode(), format="usi")[0]


def test_win_rate_is_the_logistic_of_coefficient_600():
    assert win_rate(0) == 0.5
    assert win_rate(600) == pytest.approx(1 / (1 + 2.718281828459045 ** -1))
    assert win_rate(-31990, mate=-10) == 0.0 and win_rate(31990, mate=10) == 1.0


@pytest.mark.parametrize("loss, mark", [(0.049, ""), (0.05, "緩手"), (0.1, "疑問手"),
                                        (0.2, "悪手"), (0.5, "大悪手"), (0.9, "大悪手")])
def test_marks_follow_the_loss_of_win_rate(loss, mark):
    assert mark_for(loss, is_best=False) == mark


def test_the_best_move_gets_no_mark_whatever_its_loss():
    assert mark_for(0.7, is_best=True) == ""


def test_each_move_is_analysed_with_its_loss_and_mark():
    analysis = analyze_record(game(), AnalysisSettings(nodes=3000, multipv=2))
    assert [p.ply for p in analysis.plies] == list(range(1, 15))
    for p in analysis.plies:
        assert 1 <= len(p.lines) <= 2 and p.played.move == p.move
        assert p.loss == pytest.approx(max(0.0, p.win_best - p.win_played))
        assert p.mark == mark_for(p.loss, p.move == p.lines[0].move)


def test_a_move_outside_the_lines_is_valued_by_a_search_restricted_to_it():
    analysis = analyze_record(game(), AnalysisSettings(nodes=3000, multipv=1))
    outside = [p for p in analysis.plies if p.move != p.best.move]
    assert outside
    for p in outside:
        assert p.played.pv[0] == p.move and p.lines == [p.best]


def test_a_node_limit_gives_the_same_analysis_twice():
    settings = AnalysisSettings(nodes=2000, multipv=2)
    first = analyze_record(game(), settings).to_json()
    assert analyze_record(game(), settings).to_json() == first


def test_from_ply_and_to_ply_bound_the_moves_analysed():
    analysis = analyze_record(game(), AnalysisSettings(nodes=1000, from_ply=3, to_ply=6))
    assert [p.ply for p in analysis.plies] == [3, 4, 5, 6]


def run_cli(*args: str) -> int:
    return main(["analyze", *args])


@pytest.fixture
def records(tmp_path):
    folder = tmp_path / "records"
    shutil.copytree(RECORDS, folder)
    return folder


def test_a_folder_gives_records_pages_and_an_index(records, tmp_path, capsys):
    out = tmp_path / "out"
    assert run_cli(str(records), "--out", str(out), "--nodes", "1000", "--multipv", "2") == 0
    names = [json.loads(p.read_text(encoding="utf-8"))["name"]
             for p in sorted(out.glob("*.analysis.json"))]
    assert "floodgate_two_games-2" in names and "sample" in names
    for name in names:
        for suffix in (".kif", ".csa", ".html"):
            assert (out / (name + suffix)).stat().st_size > 0
    assert (out / "index.html").exists()
    printed = capsys.readouterr().out.splitlines()
    assert sum(line.endswith(".html") for line in printed) == len(names)


def test_a_rerun_reuses_the_finished_games(records, tmp_path, capsys):
    out = tmp_path / "out"
    args = (str(records / "sample.ki2"), "--out", str(out), "--nodes", "500")
    assert run_cli(*args) == 0
    before = (out / "sample.analysis.json").read_bytes()
    capsys.readouterr()
    assert run_cli(*args) == 0
    assert "analyzed 0 games, reused 1" in capsys.readouterr().out
    assert (out / "sample.analysis.json").read_bytes() == before
    assert run_cli(*args[:-1], "600") == 0                     # other settings: again
    assert "analyzed 1 games, reused 0" in capsys.readouterr().out


def test_the_annotated_records_read_back_with_the_same_moves(records, tmp_path):
    out = tmp_path / "out"
    assert run_cli(str(records / "sample.ki2"), "--out", str(out), "--nodes", "1000") == 0
    original = read_record(records / "sample.ki2")[0]
    kif = read_record(out / "sample.kif")[0]
    csa = read_record(out / "sample.csa")[0]
    assert kif.moves == original.moves == csa.moves
    assert all("#評価値=" in comment for comment in kif.comments)
    assert all(any(line.startswith("* ") for line in comment.splitlines())   # '** V ...
               for comment in csa.comments)
    assert any("候補1" in comment and "読み筋" in comment for comment in kif.comments)


def test_an_unreadable_record_is_named_with_its_line_and_the_others_are_done(
        records, tmp_path, capsys):
    (records / "broken.kif").write_text("手合割：平手\n手数----指手---------消費時間--\n"
                                        "   1 ７六歩(77)\n   2 ７六歩(77)\n", encoding="utf-8")
    out = tmp_path / "out"
    assert run_cli(str(records), "--out", str(out), "--nodes", "300") == 1
    err = capsys.readouterr().err
    assert "broken.kif" in err and "line 4" in err
    assert (out / "sample.html").exists()


def test_the_page_holds_one_point_per_analysed_position(records, tmp_path):
    from usi_engine.analysis.report import page_data
    analysis = analyze_record(read_record(records / "sample.ki2")[0],
                              AnalysisSettings(nodes=500, from_ply=2))
    data = page_data(analysis)
    assert [p["ply"] for p in data["plies"]] == list(range(2, len(analysis.moves) + 1))
    assert all(0 <= p["black_win"] <= 100 for p in data["plies"])


def test_ray_asked_for_but_not_installed_is_one_line_and_exit_2(monkeypatch, tmp_path, capsys):
    import usi_engine.cluster.ray_pool as ray_pool
    monkeypatch.setattr(ray_pool, "ray_available", lambda: False)
    assert run_cli(str(RECORDS / "sample.ki2"), "--out", str(tmp_path), "--ray") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pip install ray" in err


def test_files_of_one_name_in_two_formats_are_told_apart(tmp_path):
    from usi_engine.cli.analyze import find_games
    from usi_engine.record import write_record
    game = read_record(GAME.encode(), format="usi")[0]
    for fmt in ("kif", "csa"):
        (tmp_path / f"game.{fmt}").write_text(write_record(game, fmt), encoding="utf-8")
    names = [name for name, *_ in find_games([str(tmp_path)])]
    assert names == ["game-csa", "game-kif"]


def test_the_graph_is_drawn_as_a_png_when_matplotlib_is_installed(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot extra is not installed")
    from usi_engine.analysis.report import plot_png
    analysis = analyze_record(game(), AnalysisSettings(nodes=500))
    assert plot_png(analysis, str(tmp_path / "g.png"))
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_out_that_is_a_file_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "taken").write_text("")
    assert run_cli(str(RECORDS / "sample.ki2"), "--out", str(tmp_path / "taken"),
                   "--nodes", "100") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--out" in err


def test_a_ray_that_cannot_be_reached_is_one_line_and_exit_2(monkeypatch, tmp_path, capsys):
    import usi_engine.cluster.ray_pool as ray_pool

    class Unreachable:
        def __init__(self, *args, **kwargs):
            raise ray_pool.RayConnectError("--ray: cannot start or reach the Ray cluster at "
                                           "127.0.0.1:1: ConnectionError: timed out")
    monkeypatch.setattr(ray_pool, "ray_available", lambda: True)
    monkeypatch.setattr(ray_pool, "RayPool", Unreachable)
    assert run_cli(str(RECORDS / "sample.ki2"), "--out", str(tmp_path), "--ray",
                   "127.0.0.1:1") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot start or reach" in err


def test_a_ray_address_nothing_listens_on_is_named_at_once(tmp_path, capsys):
    pytest.importorskip("ray")
    import socket
    with socket.socket() as s:           # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert run_cli(str(RECORDS / "sample.ki2"), "--out", str(tmp_path), "--nodes", "100",
                   "--ray", f"127.0.0.1:{port}") == 2
    err = capsys.readouterr().err
    assert f"cannot reach the Ray cluster at 127.0.0.1:{port}" in err


def test_the_pages_label_everything_in_japanese(records, tmp_path):
    import re
    from usi_engine.analysis.report import game_page, index_page
    analysis = analyze_record(read_record(records / "sample.ki2")[0],
                              AnalysisSettings(nodes=300, from_ply=2, to_ply=6))
    for page in (game_page(analysis), index_page([analysis])):
        shown = re.sub(r"<script.*?</script>|<style>.*?</style>|<[^>]+>", " ", page, flags=re.S)
        for named in (analysis.source, analysis.name, analysis.black, analysis.white):
            shown = shown.replace(named or "\0", " ")      # the record's own words
        english = [word for word in re.findall(r"[A-Za-z]{3,}", shown)
                   if word not in ("usi", "engine", "analyze", "MultiPV")]
        assert english == [], english
