"""Drive one USI session with CRLF line ends over pipes, and check the answers.

    python usi_session.py -- wine python.exe -m usi_engine

Sends usi, isready (the shipped book is read from the package), a `go` from the start
position (answered from the book), a byoyomi search from a position the book does not
hold (`go btime 0 wtime 0 byoyomi 1000`), a `go mate` on the 5-ply tsume of the README,
and quit, each line ended by CR LF as a Windows GUI writes them.  Prints the transcript
(`>` sent, `<` received) and one summary line; exits 1 when an answer is missing or
wrong: usiok, readyok after the book's "BookFile: read" line, a book move, one bestmove
with a legal-looking move after a search, one checkmate with a mate line, and exit code
0 after quit.
"""
from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
import time

MATE_SFEN = ("gn2+R4/l1k5l/pp2N3p/2p1p2S1/3p1p2P/2P1PnP1L/PP1P5/L2G1S3/+bNS1KG3 "
             "b BS4Prg 85")
MATE_LINE = "5a6a 7b7c B*5a 7c8b S*7a"     # README: as published
MOVE = re.compile(r"^([1-9][a-i][1-9][a-i]\+?|[PLNSGBR]\*[1-9][a-i])$")


class Engine:
    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0)
        self.lines: queue.Queue = queue.Queue()
        self.crlf = 0
        self.lf = 0
        self.start = time.monotonic()
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr: list[bytes] = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            if raw.endswith(b"\r\n"):
                self.crlf += 1
            else:
                self.lf += 1
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        self.lines.put(None)

    def stamp(self) -> str:
        return f"[{time.monotonic() - self.start:7.3f}]"

    def send(self, line: str) -> None:
        print(f"{self.stamp()} > {line}", flush=True)
        self.proc.stdin.write(line.encode() + b"\r\n")
        self.proc.stdin.flush()

    def until(self, prefix: str, timeout: float) -> tuple[str | None, list[str]]:
        """Lines up to and including the first that starts with prefix."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                print(f"{self.stamp()} ! no '{prefix}' within {timeout:.0f} s", flush=True)
                return None, seen
            if line is None:
                print(f"{self.stamp()} ! the engine closed its output", flush=True)
                return None, seen
            print(f"{self.stamp()} < {line}", flush=True)
            seen.append(line)
            if line.split(" ", 1)[0] == prefix:
                return line, seen


def main() -> int:
    command = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    engine = Engine(command)
    failures = []
    summary = []

    engine.send("usi")
    line, seen = engine.until("usiok", 120)
    if line is None:
        failures.append("usiok")
    names = [s for s in seen if s.startswith("id name")]
    summary.append("usiok" if line else "no usiok")

    engine.send("isready")
    line, seen = engine.until("readyok", 120)
    summary.append("readyok" if line else "no readyok")
    if line is None:
        failures.append("readyok")
    book = [s for s in seen if s.startswith("info string BookFile: read")]
    if not book or "standard_book.db" not in book[0]:
        failures.append("the shipped book was not read")
    else:
        summary.append(book[0][len("info string "):])

    engine.send("usinewgame")
    engine.send("position startpos")
    sent = time.monotonic()
    engine.send("go btime 0 wtime 0 byoyomi 1000")
    line, seen = engine.until("bestmove", 30)
    wall_ms = (time.monotonic() - sent) * 1000
    # A book move is announced as a GUI reads a search's line: `info score cp V depth D
    # pv MOVE ...` (under MultiPV 1 the move played is the only line), so the move played
    # must lead the last info line that carries a pv.
    candidates = [s.split(" pv ")[1].split()[0] for s in seen
                  if s.startswith("info ") and " pv " in s]
    if line is None or len(line.split()) < 2 or not candidates or line.split()[1] != candidates[-1]:
        failures.append(f"book move ({line}; book lines lead with {candidates})")
    else:
        summary.append(f"book {line} ({len(candidates)} book line(s), wall {wall_ms:.0f} ms)")

    engine.send("position startpos moves 1g1f 1c1d")       # not in the book: a search
    sent = time.monotonic()
    engine.send("go btime 0 wtime 0 byoyomi 1000")
    line, seen = engine.until("bestmove", 30)
    wall_ms = (time.monotonic() - sent) * 1000
    info_times = [int(m.group(1)) for s in seen if s.startswith("info")
                  for m in [re.search(r"\btime (\d+)", s)] if m]
    if line is None or not MOVE.match(line.split()[1] if len(line.split()) > 1 else ""):
        failures.append(f"bestmove ({line})")
        summary.append("no bestmove")
    else:
        summary.append(f"{line} (info time {max(info_times) if info_times else '-'} ms, "
                       f"wall {wall_ms:.0f} ms from go to bestmove)")

    engine.send(f"position sfen {MATE_SFEN}")
    engine.send("go mate 20000")
    line, _ = engine.until("checkmate", 60)
    if line is None or line in ("checkmate nomate", "checkmate timeout", "checkmate notimplemented"):
        failures.append(f"checkmate ({line})")
        summary.append("no checkmate")
    else:
        got = line.split(" ", 1)[1]
        summary.append(f"checkmate {got}"
                       + ("" if got == MATE_LINE else f" (the README has {MATE_LINE})"))

    engine.send("quit")
    try:
        code = engine.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        engine.proc.kill()
        code = None
    if code != 0:
        failures.append(f"exit code {code} after quit")
    summary.append(f"exit {code}")
    ends = f"{engine.crlf} CRLF / {engine.lf} LF line ends from the engine"
    errors = b"".join(engine.stderr).decode("utf-8", "replace").strip()
    if errors:
        print("stderr:\n" + errors)
    print(f"USI session ({' '.join(names) or 'no id name'}; {ends}): " + "; ".join(summary))
    if failures:
        print("USI session FAILED: " + ", ".join(failures))
        return 1
    print("USI session OK: usiok, readyok, bestmove, checkmate, quit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
