"""The diagnostic suites in bench/: their positions are legal and their scoring rules hold."""
import json
from pathlib import Path

import pytest

from bench.lib.paths import BLUNDERS
from bench.strength import refutation_suite
from usi_engine.core.position import Position, usi_to_move

REFUTATIONS = json.loads((BLUNDERS / "refutations.json").read_text())


def test_a_refutation_is_seen_from_the_first_iteration_that_stays_above_the_threshold():
    history = [(10, 50), (20, 300), (30, 100), (40, 300), (50, 320)]
    assert refutation_suite.seen_at(history, 200) == 40


def test_a_refutation_lost_again_by_the_last_iteration_is_not_seen():
    assert refutation_suite.seen_at([(10, 300), (20, 100)], 200) is None


@pytest.mark.parametrize("case", REFUTATIONS[:10], ids=lambda c: c["after"])
def test_each_refutation_position_is_the_blunder_played_on_its_position_before(case):
    position = Position(case["before"])
    position.push(usi_to_move(case["after"]))
    assert position.sfen() == case["sfen"]


def test_the_suite_scores_our_search_on_a_position_with_a_small_cap():
    nodes = refutation_suite.ours(REFUTATIONS[:1], 20_000, {}, "hand")
    assert len(nodes) == 1 and 0 < nodes[0] <= 40_000


def test_extracted_refutations_are_positions_after_the_blunderers_moves(tmp_path):
    import sqlite3
    db = tmp_path / "game.db"
    con = sqlite3.connect(db)
    con.executescript("""
        create table player (id integer, player_name text);
        create table game (id integer, initial_position_sfen text, black_player_id integer,
                           white_player_id integer);
        create table game_move (game_id integer, ply integer, next_move integer, eval integer);
        insert into player values (1, 'base'), (2, 'new');
        insert into game values (1, 'lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1', 1, 2);
    """)
    # black (base) plays 7g7f at 0, white (new) 3c3d at 10, black 2g2f at -5, white
    # 8c8d at 300: new's score rose by 290 after base's 2g2f
    def move16(frm, to):
        return (frm << 7) | to
    sq = lambda file, rank: (file - 1) * 9 + rank - 1
    moves = [(move16(sq(7, 7), sq(7, 6)), 0), (move16(sq(3, 3), sq(3, 4)), 10),
             (move16(sq(2, 7), sq(2, 6)), -5), (move16(sq(8, 3), sq(8, 4)), 300)]
    con.executemany("insert into game_move values (1, ?, ?, ?)",
                    [(ply, m, e) for ply, (m, e) in enumerate(moves)])
    con.commit()
    found = refutation_suite.extract([str(db)], "base")
    assert len(found) == 1
    assert found[0]["sfen"].startswith("lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P4P1/PP1PPPP1P/")
    assert found[0]["threshold"] == (300 - (-5)) // 2


def _record(tmp_path, moves, scores):
    path = tmp_path / "games.jsonl"
    stats = [[i % 2, 10, 1000, 100, s] for i, s in enumerate(scores)]
    path.write_text(json.dumps({"start": "startpos", "opening_moves": ["7g7f"],
                                "moves": moves, "stats": stats}) + "\n")
    return str(path)


def test_sampled_positions_are_those_before_the_recorded_moves_within_the_plies(tmp_path):
    from bench.strength import blunder_suite
    path = _record(tmp_path, ["3c3d", "2g2f", "8c8d", "2f2e"], [0, 20, -30, 40])
    found = blunder_suite.sample_records([path], 10, first_ply=1, last_ply=2)
    assert sorted(p["played"] for p in found) == ["2g2f", "8c8d"]
    for p in found:
        assert Position(p["sfen"]).is_legal(usi_to_move(p["played"]))


def test_sampling_leaves_out_decided_positions(tmp_path):
    from bench.strength import blunder_suite
    path = _record(tmp_path, ["3c3d", "2g2f", "8c8d"], [0, 1500, -2000])
    found = blunder_suite.sample_records([path], 10, first_ply=0, last_ply=2)
    assert [p["played"] for p in found] == ["3c3d"]


def test_paired_difference_is_negative_where_the_variant_loses_less():
    from bench.strength import blunder_suite
    text = blunder_suite.paired([0, 100, 0, 50], [0, 0, 0, 50])
    assert text.startswith("-25.0 [-74.0, +24.0]") and "better on 1, worse on 0" in text


def _mate_record(tmp_path, scores):
    """A record after the opening 7g7f: white moves first, then the sides alternate."""
    moves = ["3c3d", "2g2f", "8c8d", "2f2e", "4a3b"][:len(scores)]
    stats = [[(i + 1) % 2, 10, 1000, 100, s] for i, s in enumerate(scores)]
    path = tmp_path / "mates.jsonl"
    path.write_text(json.dumps({"start": "startpos", "opening_moves": ["7g7f"], "moves": moves,
                                "stats": stats, "a_colour": "black", "game": 1}) + "\n")
    return str(path)


def test_first_mates_keeps_each_sides_first_announced_mate_only(tmp_path):
    from bench.strength import mate_speed
    path = _mate_record(tmp_path, [0, 100, 29989, 29991, 29987])   # white, black, ...
    found = sorted(mate_speed.first_mates([path]), key=lambda p: len(p["moves"]))
    assert [(p["finder"], p["mate_plies"], len(p["moves"])) for p in found] == [
        ("b", 11, 3), ("a", 9, 4)]


def test_first_mates_leaves_out_long_mates_and_decisive_scores(tmp_path):
    from bench.strength import mate_speed
    path = _mate_record(tmp_path, [29950, 29100, 0])
    assert mate_speed.first_mates([path]) == []


def test_our_search_solves_a_mate_in_one_on_the_first_rung():
    from bench.strength import mate_speed
    position = {"start": "sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", "moves": []}
    assert mate_speed.solve_ours([position], {}, "material") == [mate_speed.LADDER[0]]


def test_compare_counts_an_unsolved_position_as_twice_the_last_rung():
    from bench.strength import mate_speed
    positions = [{"finder": "a"}, {"finder": "b"}]
    lines = mate_speed.compare(positions, [25_000, None], [50_000, 25_000], "b")
    # log2(25k/50k) = -1; log2(3.2M/25k) = +7
    assert lines == ["found by b 1: solved A 0, B 1; mean log2(A/B) +7.00; A faster on 0, B on 1",
                     "all 2: solved A 1, B 2; mean log2(A/B) +3.00; A faster on 1, B on 1"]


def test_game_nps_takes_the_positions_before_every_twelfth_ply_from_the_eighth():
    from bench.speed import game_nps
    game = game_nps.load_jsonl(game_nps.DEFAULT_RECORD)[0]
    plies = len(game["opening_moves"]) + len(game["moves"])
    positions = game_nps.game_positions(game_nps.DEFAULT_RECORD, 1)
    assert len(positions) == len(range(8, plies, 12))
    assert positions[1].ply == positions[0].ply + 12


def test_game_nps_node_total_is_the_same_on_every_run():
    from bench.speed import game_nps
    positions = game_nps.game_positions(game_nps.DEFAULT_RECORD, 1)[:3]
    first, _ = game_nps.measure(positions, "material", 2000)
    second, _ = game_nps.measure(positions, "material", 2000)
    assert first == second > 0


def test_bench_reads_suites_through_the_package(tmp_path):
    from bench.lib import suites as bench_suites
    from usi_engine.mate import suites
    assert bench_suites.STRICT_MARK is suites.STRICT_MARK
    assert bench_suites.read_fields is suites.read_fields
    path = Path(__file__).resolve().parents[2] / "sfen" / "tsume" / "classic.txt"
    assert bench_suites.read_tsume_suite(path) == suites.read_tsume_suite(path)
    bad = tmp_path / "bad.txt"
    bad.write_text("only | two\n")
    with pytest.raises(SystemExit, match="bad.txt:1: expected"):
        bench_suites.read_tsume_suite(bad, exact=True)
    assert bench_suites.read_openings(bad) == ["only | two"]
