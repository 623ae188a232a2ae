"""SkillLevel: full strength at 20 (the default); below it a shallower search and a
move drawn among the best lines, legal, reported as the line the GUI shows."""
from __future__ import annotations

import io
import random
import re
from collections import Counter

import cshogi
import pytest

from usi_engine.search.skill import MAX_LEVEL, Skill
from usi_engine.usi.loop import UsiEngine

POSITION = "position startpos moves 7g7f 3c3d"


def session(*lines: str) -> list[str]:
    """An in-process engine without its book: each go's lines, bestmove last."""
    out = io.BytesIO()
    engine = UsiEngine(out)
    for line in ("setoption name BookFile value no_book", "setoption name Threads value 1",
                 *lines):
        engine.handle_line(line)
        if line.startswith("isready"):
            engine._hash.wait()
        if line.startswith("go") and engine._job is not None:
            assert engine._job.done.wait(30)
    return out.getvalue().decode().splitlines()


def bestmoves(said: list[str]) -> list[str]:
    return [line.split()[1] for line in said if line.startswith("bestmove")]


def test_level_20_is_the_full_strength_search():
    plain = session("isready", POSITION, "go nodes 30000")
    full = session("setoption name SkillLevel value 20", "isready", POSITION, "go nodes 30000")
    def searched(said):       # (time and nps are the clock's, not the search's)
        return [re.sub(r" (time|nps) \d+", "", l) for l in said
                if l.startswith(("info depth", "bestmove"))]
    assert searched(plain) == searched(full)


def test_level_0_searches_one_ply_and_varies_its_legal_moves():
    go = [POSITION, "go btime 0 wtime 0 byoyomi 1000"] * 12
    said = session("setoption name SkillLevel value 0", "isready", *go)
    depths = {int(l.split()[2]) for l in said if l.startswith("info depth")}
    assert depths == {1}
    moves = bestmoves(said)
    board = cshogi.Board()
    board.push_usi("7g7f")
    board.push_usi("3c3d")
    assert len(moves) == 12 and all(board.is_legal(board.move_from_usi(m)) for m in moves)
    assert len(set(moves)) >= 3, moves


def test_the_move_played_is_the_last_line_reported():
    said = session("setoption name USI_SkillLevel value 3", "isready",
                   *[POSITION, "go btime 0 wtime 0 byoyomi 500"] * 6)
    for index, line in enumerate(said):
        if line.startswith("bestmove"):
            last_info = [l for l in said[:index] if l.startswith("info depth")][-1]
            assert "multipv" not in last_info          # MultiPV 1: one line shown
            assert last_info.split(" pv ")[1].split()[0] == line.split()[1]


def test_go_infinite_ignores_the_skill_level():
    out = io.BytesIO()
    engine = UsiEngine(out)
    for line in ("setoption name BookFile value no_book", "setoption name SkillLevel value 0",
                 "isready"):
        engine.handle_line(line)
    engine._hash.wait()
    engine.handle_line(POSITION)
    engine.handle_line("go infinite")
    import time
    time.sleep(0.5)
    engine.handle_line("stop")
    assert engine._job.done.wait(10)
    depths = [int(l.split()[2]) for l in out.getvalue().decode().splitlines()
              if l.startswith("info depth")]
    assert max(depths) > 3


def test_the_depth_limit_rises_with_the_level():
    assert [Skill(level).depth_limit() for level in (0, 1, 10, 19, 20)] == [1, 2, 11, 20, None]
    assert Skill(MAX_LEVEL).lines() == 1 and Skill(19).lines() == 4 and Skill(0).lines() == 8


def test_a_high_level_plays_the_best_of_clearly_different_lines():
    rng = random.Random(1)
    picks = Counter(Skill(19).choose([200, 0, -100], rng) for _ in range(500))
    assert picks[0] == 500


@pytest.mark.parametrize("level", [0, 5])
def test_a_low_level_spreads_its_choice_over_near_lines_and_favours_the_better(level):
    rng = random.Random(2)
    picks = Counter(Skill(level).choose([50, 30, 0, -40], rng) for _ in range(2000))
    assert all(picks[i] > 100 for i in range(4)), picks
    assert picks[0] > picks[1] > picks[2] > picks[3]


def test_a_found_mate_is_never_thrown_away_for_a_normal_line_at_level_10():
    rng = random.Random(3)
    assert {Skill(10).choose([29995, 100, 50], rng) for _ in range(200)} == {0}
