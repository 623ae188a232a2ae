"""Test helper: drive the real `usi-engine` executable through pipes.

:class:`UsiProcess` starts the engine, writes lines, and collects every output
line in a reader thread with its arrival time (``time.perf_counter``), so tests
can wait for a line with a timeout and measure latencies from the moment a
command was written.

The command is, in order: ``$USI_ENGINE_CMD`` (split on spaces) if set; the
``usi-engine`` console script installed next to this interpreter (CI's
``pip install -e .``); else ``python -m usi_engine`` run from the repository.
"""
from __future__ import annotations

import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def engine_command() -> list[str]:
    """The command line that starts the engine under test."""
    override = os.environ.get("USI_ENGINE_CMD")
    if override:
        return shlex.split(override)
    script = Path(sys.executable).with_name("usi-engine")
    if script.exists():
        return [str(script)]
    found = shutil.which("usi-engine")
    if found and Path(found).resolve().parent == Path(sys.executable).resolve().parent:
        return [found]
    return [sys.executable, "-m", "usi_engine"]


def engine_env() -> dict[str, str]:
    """Environment for the engine: this repository importable even when not installed."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def write_engine_script(directory: Path) -> Path:
    """An executable file that starts the engine (clients such as cshogi take one path)."""
    path = directory / "usi-engine-under-test"
    command = " ".join(shlex.quote(part) for part in engine_command())
    path.write_text(
        "#!/bin/sh\n"
        f"PYTHONPATH={shlex.quote(str(ROOT))}${{PYTHONPATH:+:$PYTHONPATH}}\n"
        "export PYTHONPATH\n"
        f"cd {shlex.quote(str(ROOT))}\n"
        f"exec {command} \"$@\"\n"
    )
    path.chmod(0o755)
    return path


@dataclass
class Line:
    text: str
    at: float  # time.perf_counter() when the reader thread got it


class UsiProcess:
    """One engine process. Use as a context manager; it is killed on exit if alive.

    Example::

        with UsiProcess() as engine:
            engine.send("isready")
            engine.expect("readyok")
    """

    def __init__(self, args: list[str] | None = None, start: bool = True) -> None:
        self.args = args or []
        self.lines: list[Line] = []        # every line received, in order
        self._queue: queue.Queue[Line | None] = queue.Queue()
        self._pending: list[Line] = []     # received but not consumed by expect()
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0
        self.stderr_file = tempfile.TemporaryFile()
        if start:
            self.start()

    # -- process -----------------------------------------------------------------------

    def start(self) -> None:
        self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(
            engine_command() + self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr_file, cwd=ROOT, env=engine_env(), bufsize=0)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, b""):
            line = Line(raw.decode("utf-8", "replace").rstrip("\r\n"), time.perf_counter())
            self.lines.append(line)
            self._queue.put(line)
        self._queue.put(None)

    def __enter__(self) -> "UsiProcess":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.proc.stdin.close()  # type: ignore[union-attr]
        self.proc.stdout.close()  # type: ignore[union-attr]
        self.stderr_file.close()

    def stderr(self) -> str:
        self.stderr_file.seek(0)
        return self.stderr_file.read().decode("utf-8", "replace")

    def cpu_seconds(self) -> float:
        """User + system CPU time the engine process has used so far (Linux /proc)."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    # -- talking -----------------------------------------------------------------------

    def send(self, *lines: str) -> float:
        """Write lines (LF-terminated); returns perf_counter() just before the write."""
        return self.send_raw("".join(line + "\n" for line in lines).encode())

    def send_raw(self, data: bytes) -> float:
        assert self.proc is not None and self.proc.stdin is not None
        at = time.perf_counter()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return at

    def _next(self, deadline: float) -> Line | None:
        """The next unconsumed line, or None on timeout/EOF."""
        if self._pending:
            return self._pending.pop(0)
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None
        try:
            line = self._queue.get(timeout=remaining)
        except queue.Empty:
            return None
        if line is None:
            self._queue.put(None)  # keep reporting EOF
        return line

    def read_until(self, predicate, timeout: float = 10.0) -> list[Line]:
        """Lines up to and including the first one matching ``predicate`` (a str prefix
        or a callable); AssertionError if none comes within ``timeout`` s."""
        if isinstance(predicate, str):
            prefix = predicate
            predicate = lambda text: text == prefix or text.startswith(prefix + " ")  # noqa: E731
        deadline = time.perf_counter() + timeout
        got: list[Line] = []
        while True:
            line = self._next(deadline)
            if line is None:
                raise AssertionError(
                    f"no matching line within {timeout} s; got {len(got)} lines, last "
                    f"{[l.text for l in got[-5:]]}; "
                    f"alive={self.proc.poll() is None if self.proc else None}; stderr={self.stderr()!r}")
            got.append(line)
            if predicate(line.text):
                return got

    def expect(self, predicate, timeout: float = 10.0) -> Line:
        """The first line matching ``predicate`` (earlier lines are dropped)."""
        return self.read_until(predicate, timeout)[-1]

    def collect(self, seconds: float) -> list[Line]:
        """Every line arriving in the next ``seconds`` s (a fixed window)."""
        deadline = time.perf_counter() + seconds
        got: list[Line] = []
        while (line := self._next(deadline)) is not None:
            got.append(line)
        return got

    def drain(self, quiet: float = 0.2) -> list[Line]:
        """Every line arriving until ``quiet`` s pass with nothing new."""
        got: list[Line] = []
        while True:
            line = self._next(time.perf_counter() + quiet)
            if line is None:
                return got
            got.append(line)

    def handshake(self) -> list[Line]:
        """usi ... usiok, isready ... readyok; returns the usi reply."""
        self.send("usi")
        reply = self.read_until("usiok")
        self.send("isready")
        self.expect("readyok")
        return reply

    def go(self, position: str, go: str, timeout: float = 30.0) -> tuple[list[Line], float]:
        """Send ``position`` and ``go``; returns (lines up to bestmove, go write time)."""
        self.send(position)
        at = self.send(go)
        return self.read_until("bestmove", timeout), at

    def wait_exit(self, timeout: float) -> int | None:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
