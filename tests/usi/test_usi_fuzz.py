"""Fuzzing the command loop of the real engine with hypothesis.

Garbage lines (random text and raw bytes: control characters, tabs, lone CRs, NULs,
invalid UTF-8) are interleaved with valid commands, and garbage tokens are glued
onto valid commands. Whatever comes, the engine must stay alive, answer
``isready``, and give every ``go`` exactly one ``bestmove`` (``go mate``: one
``checkmate``; a ``gameover`` may cancel the bestmove of the search it stops).

One engine process serves all examples of a test (starting one per example would
spend the time budget on start-ups); each example ends with ``stop`` and an
``isready`` round trip so the next one starts clean.
"""
from __future__ import annotations

import random
import re
import time

import cshogi
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from usi_client import UsiProcess
from usi_engine.usi.go import parse_go
from usi_engine.usi.loop import COMMANDS, iter_lines
from usi_engine.usi.stdio import decode_line

_LINE_END = re.compile(rb"\r\n|\r|\n")
_BESTMOVE = re.compile(r"bestmove \S+( ponder \S+)?")


def engine_lines(data: bytes) -> list[str]:
    """The lines the engine sees in ``data`` (its own splitting rules; each line UTF-8,
    else CP932, else UTF-8 with replacements: :func:`decode_line`)."""
    return [decode_line(raw)[0] for raw in _LINE_END.split(data) if raw.strip()]


def command_of(line: str) -> tuple[str | None, list[str]]:
    """The first known command word of a line and the tokens after it."""
    tokens = line.split()
    for i, token in enumerate(tokens):
        if token.lower() in COMMANDS:
            return token.lower(), tokens[i + 1:]
    return None, []


def is_garbage(data: bytes) -> bool:
    """True when no line of ``data`` holds a command word (so it cannot act)."""
    return all(command_of(line)[0] is None for line in engine_lines(data))


garbage = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40).map(
        lambda t: t.encode("utf-8")),
    st.binary(max_size=40),
    st.sampled_from([b"\t", b"\r", b"\x00", b"\xff\xfe", b"moves", b"sfen", b"name value",
                     b"-1", b"99999999999999999999", b"startpos", b"infinite", b"ponder"]),
).filter(is_garbage)
# A garbage word to glue onto a valid command: one token, no line break.
garbage_token = st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")),
                        min_size=1, max_size=8).filter(
    lambda t: t.split() == [t] and t.lower() not in COMMANDS)


@st.composite
def position_command(draw) -> str:
    """A position line: legal random moves, sometimes broken on purpose."""
    kind = draw(st.sampled_from(["startpos", "sfen", "bad_sfen", "illegal"]))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    board = cshogi.Board()
    head = "position startpos"
    if kind == "sfen":
        head = "position sfen " + board.sfen()
    elif kind == "bad_sfen":
        return "position sfen " + draw(st.sampled_from(["garbage", "9/9/9 b - 1", "", "lnsgkgsnl b"]))
    moves = []
    for _ in range(draw(st.integers(0, 12))):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(cshogi.move_to_usi(move))
        board.push(move)
    if kind == "illegal":
        moves.append("7g7f" if moves else "5a5b")
    return head + (" moves " + " ".join(moves) if moves else "")


valid_command = st.one_of(
    st.sampled_from([
        "isready", "usi", "debug on", "debug off", "debug", "usinewgame", "stop", "ponderhit",
        "register later", "gameover win", "gameover lose", "gameover draw",
        "setoption name MultiPV value 2", "setoption name MultiPV value 1",
        "setoption name USI_Ponder value true", "setoption name NoSuchOption value 3",
        "setoption name ResignValue value 500", "setoption name ResignValue value 99999",
        "setoption name EnteringKingRule value NoEnteringKing", "setoption name MultiPV value x",
        "setoption", "setoption name", "position", "go mate 50", "go mate infinite",
        "go infinite", "go ponder btime 0 wtime 0 byoyomi 100", "go",
        "go btime 300 wtime 300 binc 10 winc 10", "go searchmoves 7g7f 2g2f depth 2",
        "go btime -1 wtime -1 byoyomi 80",
    ]),
    st.integers(1, 3).map(lambda d: f"go depth {d}"),
    st.integers(50, 3000).map(lambda n: f"go nodes {n}"),
    st.integers(5, 60).map(lambda t: f"go movetime {t}"),
    st.integers(50, 150).map(lambda b: f"go btime 0 wtime 0 byoyomi {b}"),
    position_command(),
)


@st.composite
def mangled_command(draw) -> bytes:
    """A valid command, maybe with garbage tokens before, inside or after it, and
    with odd separators and line ends."""
    tokens = draw(valid_command).split()
    for _ in range(draw(st.integers(0, 2))):
        where = draw(st.sampled_from(["before", "after"]))
        word = draw(garbage_token)
        tokens = [word] + tokens if where == "before" else tokens + [word]
    separator = draw(st.sampled_from([" ", "  ", "\t", " \t "]))
    end = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    lead = draw(st.sampled_from(["", " ", "\t"]))
    return (lead + separator.join(tokens)).encode() + end


script = st.lists(st.one_of(garbage.map(lambda g: g + b"\n"), mangled_command(), mangled_command()),
                  min_size=1, max_size=14)


@pytest.fixture(scope="module")
def engine():
    with UsiProcess() as proc:
        proc.handshake()
        yield proc


def expected_answers(data: bytes) -> tuple[int, int, int, int]:
    """(certain bestmoves, bestmoves a gameover may have cancelled, certain checkmate
    lines, checkmate lines a gameover may have cancelled).  A go mate is a job like
    any go: the next go or the final stop ends it and it answers; a gameover may
    cancel it before it does."""
    certain = {"bestmove": 0, "checkmate": 0}
    maybe = {"bestmove": 0, "checkmate": 0}
    open_go = None  # what the last go owes, while it may still be running
    for line in engine_lines(data):
        command, args = command_of(line)
        if command == "go":
            params, _ = parse_go(args)
            if open_go:
                certain[open_go] += 1  # a new go ends the previous one, which answers
            open_go = "checkmate" if params.mate is not None else "bestmove"
        elif command == "gameover" and open_go:
            maybe[open_go] += 1
            open_go = None
    if open_go:
        certain[open_go] += 1  # answered after the final stop
    return certain["bestmove"], maybe["bestmove"], certain["checkmate"], maybe["checkmate"]


_MOVE = r"(?:[1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i])"
_CHECKMATE = re.compile(rf"checkmate (?:nomate|timeout|{_MOVE}(?: {_MOVE})*)")


def wait_for(engine: UsiProcess, start: int, done, timeout: float) -> list[str]:
    """Poll the lines received since index ``start`` until ``done(texts)``."""
    deadline = time.perf_counter() + timeout
    while True:
        texts = [l.text for l in engine.lines[start:]]
        if done(texts):
            return texts
        assert engine.proc.poll() is None, f"engine died; last lines {texts[-5:]}"
        assert time.perf_counter() < deadline, f"timed out; last lines {texts[-5:]}"
        time.sleep(0.005)


def readyoks(texts: list[str]) -> int:
    return sum(t == "readyok" for t in texts)


def run_script(engine: UsiProcess, data: bytes) -> None:
    assert engine.proc.poll() is None, "engine died in an earlier example"
    start = len(engine.lines)
    certain, maybe, checkmates, maybe_checkmates = expected_answers(data)
    event(f"searches: {min(certain + maybe, 3)}{'+' if certain + maybe >= 3 else ''}")
    isreadys = sum(command_of(line)[0] == "isready" for line in engine_lines(data))
    engine.send_raw(data + b"\nstop\n")
    # every certain bestmove, then an isready round trip: after its readyok nothing
    # more is owed (a stopped search prints before its worker ends)
    wait_for(engine, start,
             lambda t: (sum(x.startswith("bestmove") for x in t) >= certain
                        and sum(x.startswith("checkmate") for x in t) >= checkmates),
             timeout=20)
    engine.send("isready")
    texts = wait_for(engine, start, lambda t: readyoks(t) >= isreadys + 1, timeout=10)
    time.sleep(0.02)
    texts = [l.text for l in engine.lines[start:]]
    bestmoves = [t for t in texts if t.startswith("bestmove")]
    mates = [t for t in texts if t.startswith("checkmate")]
    assert readyoks(texts) == isreadys + 1
    assert certain <= len(bestmoves) <= certain + maybe, (certain, maybe, bestmoves, data)
    assert checkmates <= len(mates) <= checkmates + maybe_checkmates, (mates, data)
    assert all(_BESTMOVE.fullmatch(b) for b in bestmoves), bestmoves
    assert all(_CHECKMATE.fullmatch(m) for m in mates), mates


@settings(max_examples=150, deadline=None, derandomize=False,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(data=script)
def test_fuzz_garbage_and_commands_every_go_gets_one_bestmove(engine, data):
    run_script(engine, b"".join(data))


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(max_size=300).filter(is_garbage))
def test_fuzz_raw_bytes_never_kill_the_engine(engine, data):
    start = len(engine.lines)
    engine.send_raw(data + b"\nisready\n")
    new = wait_for(engine, start, lambda t: readyoks(t) >= 1, timeout=5)
    assert readyoks(new) == 1
    assert all(t.startswith(("info string", "readyok")) for t in new), new


@given(data=st.binary(max_size=200), cuts=st.lists(st.integers(0, 200), max_size=6))
def test_line_splitting_does_not_depend_on_how_input_is_chunked(data, cuts):
    # CR LF split across two reads must not make an extra line; a lone CR ends a line.
    points = sorted({c for c in cuts if 0 < c < len(data)})  # b"" would mean EOF
    chunks = [data[a:b] for a, b in zip([0] + points, points + [len(data)])] + [b""]
    feed = iter(chunks)
    got = [line for line, _ in iter_lines(lambda: next(feed))]
    assert got == engine_lines(data)
