"""A sudden-death clock over a game, through the protocol: the first move of a short
clock still thinks, and from the second move on the engine plans with the main time
its moves really lose beyond the think (measured from the clocks the GUI sends),
not with the NetworkDelay guess. The plan is read from the ``debug`` explanation."""
from __future__ import annotations

import re

import pytest

from usi_client import UsiProcess

PLAN = re.compile(r"info string plan soft (\d+) hard (\d+)")


@pytest.fixture()
def engine():
    with UsiProcess() as proc:
        proc.handshake()
        proc.send("debug on")
        yield proc


def planned_soft(lines) -> int:
    return next(int(m.group(1)) for l in lines if (m := PLAN.match(l.text)))


def play(engine, moves: list[str], clock: str) -> tuple[int, str, float]:
    """go from startpos after ``moves``; (planned soft ms, bestmove, ms to bestmove)."""
    lines, at = engine.go("position startpos moves " + " ".join(moves) if moves
                          else "position startpos", f"go {clock}")
    return planned_soft(lines), lines[-1].text.split()[1], (lines[-1].at - at) * 1000


def reply_to(moves: list[str]) -> str:
    from usi_engine.core.position import Position, move_to_usi
    position = Position()
    for move in moves:
        position.push_usi(move)
    return move_to_usi(position.legal_moves()[0])


def test_first_move_of_five_seconds_sudden_death_thinks_at_least_30_ms(engine):
    soft, _, _ = play(engine, [], "btime 5000 wtime 5000")
    assert soft >= 30


def test_second_move_plans_with_the_measured_loss_instead_of_network_delay(engine):
    first, move, took = play(engine, [], "btime 5000 wtime 5000")
    moves = [move, reply_to([move])]
    # the GUI took off exactly our think time plus 3 ms of transport
    left = 5000 - int(took) - 3
    second, _, _ = play(engine, moves, f"btime {left} wtime 5000")
    # NetworkDelay 120 held back for 75 moves would leave (left - 9000) / 75 < 0
    assert second > first and second >= (left - 10 * 75) // 75


def test_a_new_game_forgets_the_measured_loss(engine):
    first, move, took = play(engine, [], "btime 5000 wtime 5000")
    play(engine, [move, reply_to([move])], f"btime {5000 - int(took) - 3} wtime 5000")
    engine.send("gameover win", "usinewgame")
    # without forgetting, the 3 ms measured last game would give ~63 ms
    assert play(engine, [], "btime 5000 wtime 5000")[0] == first
