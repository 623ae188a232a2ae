"""A scripted USI teacher for tests/training/test_relabel.py.

Every ``go`` is answered with ``info depth 1 score cp S`` (S = :func:`fake_score` of
the position) and ``bestmove`` the first legal move.  Flags:

    --mate N          ``score mate N`` instead (N may be negative, or ``+``/``-``)
    --bestmove WORD   answer ``bestmove WORD`` (e.g. resign) instead of a move
    --no-score        no info line at all
    --crash-on K      exit (code 3) at this process's K-th go
    --silent-from K   from this process's K-th go on, answer nothing, not even stop
    --option NAME     announce this option (repeatable); ``option name Depth`` always
"""
import argparse
import sys

from usi_engine import Position
from usi_engine.core.position import move_to_usi


def fake_score(sfen: str) -> int:
    """The fake's centipawns: 10 per piece in the hand of the side to move, minus 3 per
    piece of the opponent on the board (so that it differs between positions)."""
    board, side, hands = sfen.split()[:3]
    mine_upper = side == "b"
    in_hand = 0
    count = ""
    for ch in "" if hands == "-" else hands:
        if ch.isdigit():
            count += ch
            continue
        if ch.isupper() == mine_upper:
            in_hand += int(count or "1")
        count = ""
    theirs = sum(1 for ch in board if ch.isalpha() and ch.isupper() != mine_upper)
    return 10 * in_hand - 3 * theirs


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mate")
    parser.add_argument("--bestmove")
    parser.add_argument("--no-score", action="store_true")
    parser.add_argument("--crash-on", type=int, default=0)
    parser.add_argument("--silent-from", type=int, default=0)
    parser.add_argument("--option", action="append", default=[])
    args = parser.parse_args()
    sfen = None
    gos = 0
    silent = False

    def say(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.split()
        if not words or silent:
            continue
        if words[0] == "usi":
            say("id name fake teacher")
            for name in ["Depth", *args.option]:
                say(f"option name {name} type spin default 1 min 1 max 99")
            say("usiok")
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "position":
            sfen = " ".join(words[2:6])
        elif words[0] == "go":
            gos += 1
            if gos == args.crash_on:
                return 3
            if args.silent_from and gos >= args.silent_from:
                silent = True
                continue
            if not args.no_score:
                score = f"mate {args.mate}" if args.mate else f"cp {fake_score(sfen)}"
                say(f"info depth 1 score {score}")
            moves = Position(sfen).legal_moves()
            say(f"bestmove {args.bestmove or (move_to_usi(moves[0]) if moves else 'resign')}")
        elif words[0] == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
