"""The USI engine behind the CSA bridge: a child process and what it says.

* :class:`UsiEngine` starts any USI program (this engine by default), writes commands
  to it and forwards every line it prints to the bridge's event queue from a reader
  thread, so the bridge never blocks on the engine.
* :func:`parse_info` reads the ``score`` and ``pv`` of an ``info`` line.

Events put on the queue: ``("engine", generation, line)`` for each stdout line,
``("engine_eof", generation, returncode)`` when stdout closes. ``generation`` grows
with each (re)start so that lines of a dead engine are told apart.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["UsiEngine", "SearchInfo", "parse_info", "default_engine_command"]


def default_engine_command() -> list[str]:
    """This engine, run by the current interpreter."""
    return [sys.executable, "-m", "usi_engine"]


@dataclass
class SearchInfo:
    """The last word of the search on the move it is about to make.

    ``mate`` is ``(plies or None, winning)`` when the score is a mate; ``score_cp``
    otherwise (both from the side to move, as USI sends them).
    """
    score_cp: int | None = None
    mate: tuple[int | None, bool] | None = None
    pv: list[str] = field(default_factory=list)
    depth: int | None = None

    @property
    def has_score(self) -> bool:
        """True when a cp or mate score was read."""
        return self.score_cp is not None or self.mate is not None


_INFO_STOP_WORDS = {"depth", "seldepth", "time", "nodes", "nps", "hashfull", "multipv",
                    "score", "currmove", "currmovenumber", "cpuload", "string", "pv",
                    "refutation", "currline", "tbhits", "sbhits"}


def parse_info(line: str) -> SearchInfo | None:
    """The score/pv/depth of an ``info`` line for the first principal variation, or
    None for lines that carry neither a score nor a pv (or belong to multipv > 1).
    Malformed numbers are skipped, never raised."""
    words = line.split()
    if not words or words[0] != "info":
        return None
    info = SearchInfo()
    i = 1
    seen = False
    while i < len(words):
        word = words[i]
        if word == "string":
            break
        if word == "multipv" and i + 1 < len(words):
            if words[i + 1] != "1":
                return None
            i += 2
        elif word == "depth" and i + 1 < len(words):
            info.depth = _int(words[i + 1])
            i += 2
        elif word == "score" and i + 2 < len(words):
            kind, value = words[i + 1], words[i + 2]
            if kind == "cp" and _int(value) is not None:
                info.score_cp, seen = _int(value), True
            elif kind == "mate":
                seen = True
                if value in ("+", "-"):
                    info.mate = (None, value == "+")
                else:
                    plies = _int(value)
                    if plies is None:
                        seen = False
                    else:
                        info.mate = (abs(plies), not value.startswith("-"))
            i += 3
        elif word == "pv":
            info.pv = [w for w in words[i + 1:]]
            seen = seen or bool(info.pv)
            break
        else:
            i += 1
    return info if seen else None


def _int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


class UsiEngine:
    """A USI engine as a child process.

    ``log(direction, text)`` is called for every line sent (``"engine<"``) and
    received (``"engine>"``, ``"engine stderr"``).
    """

    def __init__(self, command: list[str], events: "queue.Queue[tuple]",
                 log: Callable[[str, str], None]) -> None:
        self.command = list(command)
        self.events = events
        self.log = log
        self.process: subprocess.Popen | None = None
        self.generation = 0
        self.name = self.command[0] if self.command else "?"
        self.options: dict[str, str] = {}   # option name -> its "type ..." text
        self._write_lock = threading.Lock()

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the process (OSError if it cannot be run)."""
        self.generation += 1
        self.options = {}
        self.process = subprocess.Popen(
            self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
            bufsize=1, start_new_session=True)  # Ctrl-C goes to the bridge, which quits it
        generation = self.generation
        threading.Thread(target=self._read_stdout, args=(self.process, generation),
                         daemon=True, name="usi-stdout").start()
        threading.Thread(target=self._read_stderr, args=(self.process,), daemon=True,
                         name="usi-stderr").start()

    def _read_stdout(self, process: subprocess.Popen, generation: int) -> None:
        assert process.stdout is not None
        try:
            for line in process.stdout:
                line = line.rstrip("\r\n")
                if line:
                    self.events.put(("engine", generation, line))
        except (OSError, ValueError):
            pass
        try:
            code = process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        self.events.put(("engine_eof", generation, code))

    def _read_stderr(self, process: subprocess.Popen) -> None:
        assert process.stderr is not None
        try:
            for line in process.stderr:
                line = line.rstrip("\r\n")
                if line:
                    self.log("engine stderr", line)
        except (OSError, ValueError):
            pass

    def send(self, text: str) -> bool:
        """Write one line (logged); False if the engine is gone."""
        if not self.alive:
            return False
        self.log("engine<", text)
        assert self.process is not None and self.process.stdin is not None
        try:
            with self._write_lock:
                self.process.stdin.write(text + "\n")
                self.process.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    def note_line(self, line: str) -> None:
        """Remember ``option name ...`` and ``id name ...`` lines of the handshake."""
        words = line.split()
        if len(words) >= 3 and words[0] == "option" and words[1] == "name":
            if "type" in words:
                at = words.index("type")
                self.options[" ".join(words[2:at])] = " ".join(words[at:])
            else:
                self.options[" ".join(words[2:])] = ""
        elif len(words) >= 3 and words[0] == "id" and words[1] == "name":
            self.name = " ".join(words[2:])

    def has_option(self, name: str) -> bool:
        """True if the engine announced the option (case-insensitive)."""
        return name.lower() in (key.lower() for key in self.options)

    def stop_process(self, timeout_s: float = 3.0) -> None:
        """``quit``, then terminate and kill if it does not exit."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            self.send("quit")
            try:
                process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                process.terminate()
                try:
                    process.wait(timeout=timeout_s)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self.process = None
