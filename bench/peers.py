"""Shared plumbing for the engine benchmarks (nps_bench.py, match.py).

* where the peer engines are, and what to say when one is missing (nothing is ever
  installed from here: the message tells the user how to install it);
* the command line that starts our own engine from this checkout;
* :class:`UsiProcess`, a small USI client with time-outs: a reader thread feeds a
  queue, so a hung or dead engine is noticed instead of blocking forever.

Peers (Debian packages; binaries live in /usr/games, which is often not on PATH):

==================  ===================  ======================================
peer                binary               protocol
==================  ===================  ======================================
Fairy-Stockfish     fairy-stockfish      UCI by default; answers ``usi`` with
                                         ``usiok`` and then speaks USI (SFEN and
                                         USI moves), variant shogi by default
gpsshogi            gpsusi               USI (``gpsshogi`` is the CSA client,
                                         ``gpsshell`` an interactive shell)
==================  ===================  ======================================
"""
from __future__ import annotations

import os
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import time
import datetime
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # the engine is built in place, not necessarily installed
    sys.path.insert(0, str(REPO))
GAMES_DIRS = ("/usr/games", "/usr/local/games")


def optional_module(name: str):
    """The module, or None when it is not installed (the benches say so in their output)."""
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


@dataclass(frozen=True)
class PeerInfo:
    key: str            # short name used on the command line
    label: str          # human name
    binary: str         # executable name
    package: str        # Debian package that ships it


PEERS = {
    "fairy-stockfish": PeerInfo("fairy-stockfish", "Fairy-Stockfish", "fairy-stockfish",
                                "fairy-stockfish"),
    "gpsshogi": PeerInfo("gpsshogi", "gpsshogi", "gpsusi", "gpsshogi"),
}


def find_binary(name: str) -> str | None:
    """The full path of ``name`` on PATH or in /usr/games, or None."""
    found = shutil.which(name)
    if found:
        return found
    for d in GAMES_DIRS:
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def find_peer(key: str) -> str | None:
    return find_binary(PEERS[key].binary)


def missing_message(key: str) -> str:
    info = PEERS[key]
    return (f"{info.label} is not installed (no `{info.binary}` on PATH or in /usr/games); "
            f"skipping it. To include it: sudo apt-get install {info.package}")


def our_engine_command() -> list[str]:
    """Our engine from this checkout: the running Python, ``-m usi_engine``.

    Started with cwd = the repository root and the root on PYTHONPATH, so the
    in-place build is used even when the package is not installed.
    """
    return [sys.executable, "-m", "usi_engine"]


def our_engine_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def split_command(cmd: str | list[str]) -> list[str]:
    return list(cmd) if isinstance(cmd, (list, tuple)) else shlex.split(cmd)


class EngineDied(RuntimeError):
    pass


class EngineTimeout(RuntimeError):
    pass


@dataclass
class UsiProcess:
    """A USI engine in a child process, driven line by line with time-outs.

    Every line sent and received can be logged, with a time stamp, to ``log``.
    stderr goes to ``stderr_path`` (or is discarded), never to an unread pipe.
    """
    argv: list[str]
    cwd: str | None = None
    env: dict[str, str] | None = None
    stderr_path: str | None = None
    log: object = None                     # a text file or None
    name: str = "?"
    options: dict[str, str] = field(default_factory=dict)
    t0: float | None = None                 # origin of the log's time stamps

    def __post_init__(self) -> None:
        self._stderr = open(self.stderr_path, "ab") if self.stderr_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, cwd=self.cwd, env=self.env)
        self._lines: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._t0 = time.monotonic() if self.t0 is None else self.t0

    # -- raw I/O ---------------------------------------------------------------------
    def _read(self) -> None:
        for raw in iter(self.proc.stdout.readline, b""):
            self._lines.put((time.monotonic(), raw.decode("utf-8", errors="replace").rstrip("\r\n")))
        self._lines.put((time.monotonic(), None))  # EOF

    def _log(self, direction: str, line: str, t: float | None = None) -> None:
        if self.log is not None:
            t = time.monotonic() if t is None else t
            self.log.write(f"{t - self._t0:9.3f} {self.name} {direction} {line}\n")

    def send(self, line: str) -> float:
        """Write one line; returns the monotonic time it was flushed."""
        self._log(">", line)
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise EngineDied(f"{self.name}: cannot write ({exc})") from exc
        return time.monotonic()

    def readline(self, timeout: float) -> tuple[float, str]:
        """The next line and the time it arrived; EngineTimeout / EngineDied."""
        try:
            t, line = self._lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise EngineTimeout(f"{self.name}: no output for {timeout:.1f} s") from None
        if line is None:
            self._lines.put((t, None))
            try:
                code = self.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = "none yet: stdout closed"
            raise EngineDied(f"{self.name}: the process ended (exit code {code})")
        self._log("<", line, t)
        return t, line

    def wait_for(self, prefix: str, timeout: float) -> tuple[float, list[str]]:
        """Read until a line that starts with ``prefix``; returns (time, all lines)."""
        deadline = time.monotonic() + timeout
        lines = []
        while True:
            t, line = self.readline(deadline - time.monotonic())
            lines.append(line)
            if line.split(" ", 1)[0] == prefix:
                return t, lines

    # -- protocol --------------------------------------------------------------------
    def handshake(self, timeout: float = 30.0) -> list[str]:
        """``usi`` .. ``usiok``, then the options, then ``isready`` .. ``readyok``."""
        self.send("usi")
        _, lines = self.wait_for("usiok", timeout)
        for ln in lines:
            if ln.startswith("id name "):
                self.id_name = ln[8:]
        for k, v in self.options.items():
            self.send(f"setoption name {k} value {v}")
        self.send("isready")
        self.wait_for("readyok", timeout)
        return lines

    def quit(self, timeout: float = 3.0) -> None:
        try:
            self.send("quit")
        except EngineDied:
            pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()


def parse_info(line: str) -> dict:
    """The numeric fields of a USI ``info`` line (depth, seldepth, time, nodes, nps, ...),
    plus ``score_cp``/``score_mate`` and ``pv`` (list)."""
    toks = line.split()
    out: dict = {}
    i = 1
    while i < len(toks):
        k = toks[i]
        if k == "pv":
            out["pv"] = toks[i + 1:]
            break
        if k == "string":
            out["string"] = " ".join(toks[i + 1:])
            break
        if k == "score" and i + 2 < len(toks):
            kind, val = toks[i + 1], toks[i + 2]
            try:
                out["score_" + kind] = int(val)
            except ValueError:
                out["score_" + kind] = val
            i += 3
            continue
        if i + 1 < len(toks):
            try:
                out[k] = int(toks[i + 1])
                i += 2
                continue
            except ValueError:
                pass
        i += 1
    return out


def machine_line() -> str:
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    cpu = ln.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"machine: {cpu}, {os.cpu_count()} logical CPUs, Python {sys.version.split()[0]}"


_ROOT = Path(__file__).resolve().parent.parent


def build_info() -> str:
    """Which build of usi_engine runs: the git commit of the checkout (read-only git
    calls), whether usi_engine/ has uncommitted changes, and when mate's extension was
    built.  The solver is built in place, so the same script can meet another build."""
    import subprocess
    try:
        head = subprocess.run(["git", "-C", str(_ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(_ROOT), "status", "--porcelain", "--", "usi_engine"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        head, dirty = "?", ""
    import usi_engine.mate.solver as _mate
    built = datetime.datetime.fromtimestamp(os.path.getmtime(_mate.__file__)).strftime("%Y-%m-%d %H:%M")
    return f"usi_engine at commit {head or '?'}{' + uncommitted changes' if dirty else ''}, mate built {built}"


def replay_mate_with_cshogi(sfen: str, line: list[str]) -> str:
    """'' when the line (USI moves) is a mate by cshogi's rules alone: odd length, legal
    moves, every attacker move gives check, the last position is checkmate; else what
    is wrong.  Independent of usi_engine's move generator.  Needs cshogi."""
    import cshogi
    if len(line) % 2 == 0:
        return f"even length {len(line)}"
    board = cshogi.Board(sfen)
    for i, usi in enumerate(line):
        move = board.move_from_usi(usi)
        if not move or not board.is_legal(move):
            return f"ply {i + 1} {usi} is illegal"
        board.push(move)
        if i % 2 == 0 and not board.is_check():
            return f"ply {i + 1} {usi} does not give check"
    return "" if board.is_game_over() else "the last position is not mate"
