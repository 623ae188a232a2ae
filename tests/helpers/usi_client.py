"""Test helper: drive the real `usi-engine` executable through pipes.

:class:`UsiProcess` is the package's USI client (:class:`usi_engine.usi.client.UsiClient`)
started on the engine under test, keeping every line it reads (``lines``, each with
its arrival time, ``time.perf_counter``) and its stderr in a file, so tests can wait
for a line with a timeout and measure latencies from the moment a command was written.

The command is, in order: ``$USI_ENGINE_CMD`` (split as a shell would) if set; the
``usi-engine`` console script installed next to this interpreter (CI's
``pip install -e .``); else ``python -m usi_engine`` run from the repository.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from usi_engine.usi.client import (Line, Predicate, UsiClient, UsiEngineExited, UsiError,
                                   UsiTimeout, split_command)

__all__ = ["ROOT", "Line", "UsiProcess", "engine_command", "engine_env", "write_engine_script"]

ROOT = Path(__file__).resolve().parents[2]


def engine_command() -> list[str]:
    """The command line that starts the engine under test."""
    override = os.environ.get("USI_ENGINE_CMD")
    if override:
        return split_command(override)
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


#: The table the tests' engines use unless a test says otherwise: allocating the
#: default 256 MB at each engine's first isready cost 0.09 s, some 20 s a run.
TEST_HASH_MB = 16


class UsiProcess(UsiClient):
    """The engine under test (``args`` appended to its command). Use as a context
    manager; it is quit (killed if need be) on exit.

    Everything is :class:`UsiClient`'s, but :meth:`go`, the tests' shorthand:
    ``go(position_line, go_line)`` returns (the lines up to bestmove, the go write time).

    Example::

        with UsiProcess() as engine:
            engine.send("isready")
            engine.expect("readyok")
    """

    def __init__(self, args: list[str] | None = None, start: bool = True,
                 new_session: bool = False, book: bool = False,
                 hash_mb: int | None = None) -> None:
        self.stderr_file = tempfile.TemporaryFile()
        self.book = book
        self.hash_mb = TEST_HASH_MB if hash_mb is None else hash_mb
        super().__init__(engine_command() + list(args or []), cwd=ROOT, env=engine_env(),
                         stderr=self.stderr_file, record=True, start=start,
                         new_session=new_session)

    def start(self) -> None:
        """Start the engine; unless ``book``, first tell it to play without its book
        (``setoption name BookFile value no_book``, which it answers with nothing), so
        that a ``go`` from the start position searches: the tests of the book say
        ``book=True``; and a table of ``hash_mb`` MB (TEST_HASH_MB unless given; 0: the
        engine's default, 256 MB, which its first isready allocates and touches)."""
        super().start()
        if not self.book:
            self.send("setoption name BookFile value no_book")
        if self.hash_mb:
            self.send(f"setoption name USI_Hash value {self.hash_mb}")

    def close(self) -> None:
        self.quit(timeout=2.0)
        self.stderr_file.close()

    def stderr(self) -> str:
        """All the engine wrote on stderr so far."""
        self.stderr_file.seek(0)
        return self.stderr_file.read().decode("utf-8", "replace")

    def cpu_seconds(self) -> float:
        """User + system CPU time the engine process has used so far (Linux /proc)."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def read_until(self, predicate: Predicate, timeout: float | None = 10.0) -> list[Line]:
        """:meth:`UsiClient.read_until`, its errors telling whether the engine is alive
        and what it wrote on stderr."""
        try:
            return super().read_until(predicate, timeout)
        except UsiError as exc:
            exc.args = (f"{exc.args[0] if exc.args else exc}; alive={self.alive}; "
                        f"stderr={self.stderr()[-2000:]!r}",)
            raise

    def collect(self, seconds: float) -> list[Line]:
        """Every line arriving in the next ``seconds`` s (a fixed window)."""
        deadline = time.perf_counter() + seconds
        got: list[Line] = []
        while True:
            try:
                got.append(self.read_line(deadline - time.perf_counter()))
            except (UsiTimeout, UsiEngineExited):
                return got

    def drain(self, quiet: float = 0.2) -> list[Line]:
        """Every line arriving until ``quiet`` s pass with nothing new."""
        return super().drain(quiet)

    def handshake(self) -> list[Line]:  # type: ignore[override]
        """usi ... usiok, isready ... readyok; returns the usi reply."""
        return super().handshake(timeout=10.0, ready_timeout=10.0)

    def go(self, position: str, go: str,  # type: ignore[override]
           timeout: float = 30.0) -> tuple[list[Line], float]:
        """Send ``position`` and ``go``; returns (lines up to bestmove, go write time)."""
        self.send(position)
        at = self.send(go)
        return self.read_until("bestmove", timeout), at

    def wait_exit(self, timeout: float) -> int | None:
        """The exit code, or None if the engine still runs after ``timeout`` s."""
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
