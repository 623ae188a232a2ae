"""A tiny USI engine for the CSA bridge tests.

It plays the first legal move (in USI order) at once, with an ``info`` line
``score cp 42 pv <move> <reply>`` and ``bestmove <move> ponder <reply>``. Flags make
it misbehave on its N-th ``go`` (1-based): ``--silent N`` never answers (not even
``stop``), ``--crash N`` exits (once per ``--log`` file), ``--resign N``, ``--win N``, ``--illegal N`` plays
an illegal move; ``--delay-ms D`` waits before each answer. ``--log FILE`` appends
every line it reads to FILE, so a test can see what the bridge sent.
"""
import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from usi_engine.core.position import Position  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    for flag in ("--silent", "--crash", "--resign", "--win", "--illegal"):
        parser.add_argument(flag, type=int, default=0)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--eager-ponder", action="store_true",
                        help="answer go ponder at once (a USI violation seen in the wild)")
    parser.add_argument("--log")
    args = parser.parse_args()
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    lock = threading.Lock()
    position = Position()
    gos = 0
    pending = None  # (best, reply) held back while pondering

    def crashed_before() -> bool:
        """Crash once per log file, so that a restarted engine plays on."""
        marker = Path((args.log or "fake") + ".crashed")
        if marker.exists():
            return True
        marker.touch()
        return False

    def say(text: str) -> None:
        with lock:
            print(text, flush=True)

    def choose() -> tuple[str, str | None]:
        moves = sorted(position.move_to_usi(m) for m in position.legal_moves())
        if not moves:
            return "resign", None
        best = moves[0]
        after = position.copy()
        after.push_usi(best)
        replies = sorted(after.move_to_usi(m) for m in after.legal_moves())
        return best, (replies[0] if replies else None)

    def answer(best: str, reply: str | None) -> None:
        if args.delay_ms:
            time.sleep(args.delay_ms / 1000)
        pv = best + (" " + reply if reply else "")
        say(f"info depth 1 score cp 42 pv {pv}")
        say(f"bestmove {best}" + (f" ponder {reply}" if reply else ""))

    for raw in sys.stdin:
        line = raw.strip()
        if log:
            log.write(line + "\n")
            log.flush()
        words = line.split()
        if not words:
            continue
        if words[0] == "usi":
            say("id name fake")
            say("option name USI_Ponder type check default false")
            say("option name MaxMovesToDraw type spin default 0 min 0 max 100000")
            say("usiok")
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "position":
            moves = words[words.index("moves") + 1:] if "moves" in words else []
            if words[1] == "startpos":
                position = Position()
            else:
                position = Position(" ".join(words[2:6]))
            for move in moves:
                position.push_usi(move)
        elif words[0] == "go":
            gos += 1
            if gos == args.crash and not crashed_before():
                sys.exit(3)
            if gos == args.silent:
                continue
            if gos == args.resign:
                say("bestmove resign")
                continue
            if gos == args.win:
                say("bestmove win")
                continue
            if gos == args.illegal:
                say("bestmove 5e5d")
                continue
            best, reply = choose()
            if "ponder" in words and not args.eager_ponder:
                pending = (best, reply)
            else:
                answer(best, reply)
        elif words[0] in ("ponderhit", "stop") and pending is not None:
            best, reply = pending
            pending = None
            answer(best, reply)
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()
