"""A sudden-death clock over a game, through the protocol: the first move of a short
clock still thinks, and from the second move on the engine plans with the main time
its moves really lose beyond the think (measured from the clocks the GUI sends),
not with the NetworkDelay guess. The plan is read from the ``debug`` explanation."""
from __future__ import annotations

import re

import pytest

from usi_client import UsiProcess

PLAN = re.compile(r"info string plan soft (\d+) hard (\d+) .* loss (\d+|unmeasured)")


@pytest.fixture()
def engine():
    with UsiProcess() as proc:
        proc.handshake()
        proc.send("debug on")
        yield proc


def planned(lines) -> tuple[int, int | None]:
    """(soft ms, loss per move planned with, None before one is measured) from debug."""
    m = next(m for l in lines if (m := PLAN.match(l.text)))
    return int(m.group(1)), None if m.group(3) == "unmeasured" else int(m.group(3))


def play(engine, moves: list[str], clock: str) -> tuple[int, str, float, int | None]:
    """go from startpos after ``moves``; (planned soft ms, bestmove, ms to bestmove,
    loss per move planned with)."""
    lines, at = engine.go("position startpos moves " + " ".join(moves) if moves
                          else "position startpos", f"go {clock}")
    soft, loss = planned(lines)
    return soft, lines[-1].text.split()[1], (lines[-1].at - at) * 1000, loss


def reply_to(moves: list[str]) -> str:
    from usi_engine.core.position import Position, move_to_usi
    position = Position()
    for move in moves:
        position.push_usi(move)
    return move_to_usi(position.legal_moves()[0])


def test_first_move_of_five_seconds_sudden_death_thinks_at_least_30_ms(engine):
    soft, _, _, _ = play(engine, [], "btime 5000 wtime 5000")
    assert soft >= 30


def test_second_move_plans_with_the_measured_loss_instead_of_network_delay(engine):
    from usi_engine.usi import timeman
    _, move, took, _ = play(engine, [], "btime 5000 wtime 5000")
    # the GUI took off our think time as this side of the pipe saw it, plus 3 ms
    left = 5000 - int(took) - 3
    go = f"btime {left} wtime 5000"
    second, _, _, loss = play(engine, [move, reply_to([move])], go)
    # the engine's think lies inside the time seen here, so at least those 3 ms are
    # lost, less the millisecond that the two sides' rounding can take (a loaded
    # machine measured 2); the pipes' latency (about 15 ms under wine) may add to
    # them, not 120
    assert loss is not None and 2 <= loss <= took + 4
    params, _ = timeman.parse_go(go.split())
    assert second == timeman.plan(params, True, 3, {}, measured_loss=loss).soft_ms


def test_a_new_game_forgets_the_measured_loss(engine):
    first, move, took, _ = play(engine, [], "btime 5000 wtime 5000")
    play(engine, [move, reply_to([move])], f"btime {5000 - int(took) - 3} wtime 5000")
    engine.send("gameover win", "usinewgame")
    soft, _, _, loss = play(engine, [], "btime 5000 wtime 5000")
    assert loss is None and soft == first
