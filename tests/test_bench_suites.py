"""The diagnostic suites in bench/: their positions are legal and their scoring rules hold."""
import json

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
