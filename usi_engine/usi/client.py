"""A USI client: drive any USI engine (this one, YaneuraOu, gpsusi, ...) as a child process.

The package's one client, used by the CSA bridge (:mod:`usi_engine.csa.bridge`), the
teacher of ``usi-engine relabel`` (:mod:`usi_engine.training.relabel`), the tests and
the benchmarks.  Standard library only.

* :class:`UsiClient` starts the engine (a command as a list, or a string split the
  shell's way), and a reader thread puts every line it prints on a queue, stamped with
  its arrival time, so that every wait has a time-out and a hung or dead engine is
  noticed instead of blocking forever.
* Waits raise :class:`UsiTimeout` (nothing matching in time) or :class:`UsiEngineExited`
  (the engine ended); both are :class:`UsiError` and name the engine.
* The protocol: :meth:`~UsiClient.handshake` (``usi`` .. ``usiok`` with ``id`` and
  ``option`` lines, ``setoption``, ``isready`` .. ``readyok``), ``usinewgame``,
  ``position``, :meth:`~UsiClient.go` returning a :class:`GoResult` (bestmove, ponder,
  and the ``info`` lines parsed by :func:`usi_engine.usi.info.parse_info`), ``stop``,
  ``ponderhit``, ``gameover``, :meth:`~UsiClient.quit` (killed if it does not exit).
* An event-driven caller (the CSA bridge) can have the lines handed to its own
  callback instead of queued: :meth:`~UsiClient.forward`.

Example::

    from usi_engine.usi.client import UsiClient, default_engine_command

    with UsiClient(default_engine_command()) as engine:
        engine.handshake({"USI_Hash": 64})
        engine.usinewgame()
        engine.position("startpos", ["7g7f"])
        result = engine.go("depth 6")
        print(result.bestmove, result.score.score_cp, result.score.pv)
"""
from __future__ import annotations

import collections
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterable, Mapping, Sequence, Union

from usi_engine.usi.info import Info, parse_info

__all__ = ["UsiClient", "Line", "GoResult", "UsiOption", "UsiError", "UsiTimeout",
           "UsiEngineExited", "split_command", "default_engine_command", "Info", "parse_info"]

#: A wait's target: the line's first words (``"bestmove"`` matches ``bestmove 7g7f``,
#: not ``bestmoves``), or a test of the whole line.
Predicate = Union[str, Callable[[str], bool]]
#: Where the engine's stderr goes: None (read by the client: :attr:`UsiClient.stderr_tail`
#: and the log), a file name, an open binary file, or ``subprocess.DEVNULL``.
StderrTarget = Union[None, str, "os.PathLike[str]", IO[bytes], int]


class UsiError(Exception):
    """The engine did not follow the protocol in time (base of the client's errors)."""


class UsiTimeout(UsiError, TimeoutError):
    """Nothing awaited came from the engine in time."""


class UsiEngineExited(UsiError):
    """The engine's process ended (or its pipes closed); ``returncode`` when known."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode = returncode


@dataclass(frozen=True)
class Line:
    """A line the engine printed (without its line end) and when it arrived
    (``time.perf_counter()`` in the reader thread)."""
    text: str
    at: float


@dataclass
class UsiOption:
    """An ``option name ... type ...`` line of the handshake.

    Example::

        >>> UsiOption.parse("option name USI_Hash type spin default 256 min 1 max 1024")
        UsiOption(name='USI_Hash', type='spin', default='256', min=1, max=1024, vars=[])
    """
    name: str
    type: str = ""
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, line: str) -> "UsiOption | None":
        """The option of an ``option name`` line, or None for another line."""
        words = line.split()
        if len(words) < 3 or words[:2] != ["option", "name"]:
            return None
        at = words.index("type") if "type" in words[3:] else len(words)
        option = cls(" ".join(words[2:at]))
        key: str | None = None
        values: list[str] = []
        for word in words[at:] + ["type"]:          # a sentinel keyword flushes the last
            if word in ("type", "default", "min", "max", "var"):
                if key is not None:
                    text = " ".join(values)
                    if key == "type":
                        option.type = option.type or text
                    elif key == "default":
                        option.default = text
                    elif key in ("min", "max"):
                        try:
                            setattr(option, key, int(text))
                        except ValueError:
                            pass
                    else:
                        option.vars.append(text)
                key, values = word, []
            else:
                values.append(word)
        return option


@dataclass
class GoResult:
    """What one ``go`` came to: the ``bestmove`` line and every line before it.

    ``bestmove`` is a USI move, ``resign`` or ``win``; ``infos`` are the ``info`` lines
    parsed, in order; ``lines`` every line read from the ``go`` to the ``bestmove``
    (included); ``stopped`` is True when the client had to send ``stop``; ``elapsed_s``
    runs from the ``go`` written to the ``bestmove`` read.
    """
    bestmove: str
    ponder: str | None = None
    infos: list[Info] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    stopped: bool = False
    elapsed_s: float = 0.0

    @property
    def score(self) -> Info | None:
        """The last ``info`` with a score for the main line (multipv 1; no string
        lines): the engine's final judgement, or None if it gave none."""
        for info in reversed(self.infos):
            if info.has_score and info.multipv in (None, 1) and info.string is None:
                return info
        return None

    @property
    def last_info(self) -> Info | None:
        """The last ``info`` line of the search (not an ``info string``), or None."""
        for info in reversed(self.infos):
            if info.string is None:
                return info
        return None


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command line as a list: a list is kept, a string split the shell's way
    (``shlex``; on Windows without POSIX escapes, so that ``C:\\path`` survives, and
    with a token's surrounding double quotes removed).

    Example::

        >>> split_command("gpsusi --node-count-hard-limit 3000")
        ['gpsusi', '--node-count-hard-limit', '3000']
    """
    if not isinstance(command, str):
        return [str(part) for part in command]
    posix = os.name != "nt"
    parts = shlex.split(command, posix=posix)
    if not posix:
        parts = [p[1:-1] if len(p) >= 2 and p[0] == p[-1] == '"' else p for p in parts]
    return parts


def session_arguments(new_session: bool) -> dict[str, Any]:
    """The ``subprocess.Popen`` arguments that keep a child away from the terminal's
    Ctrl-C: a session of its own on POSIX, a process group of its own on Windows
    (``start_new_session`` means nothing there).

        >>> session_arguments(False)
        {}
    """
    if not new_session:
        return {}
    if sys.platform == "win32":
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200)}
    return {"start_new_session": True}


def default_engine_command() -> list[str]:
    """This engine, the very copy this process runs, by the current interpreter.

    Not ``python -m usi_engine``: that puts the working folder first on the child's
    path, so that in a checkout it would import the uncompiled source folder (or
    another build) instead of the installed package. The child's path starts with the
    folder this process imported ``usi_engine`` from, wherever it is started.

        >>> command = default_engine_command()
        >>> command[0] == sys.executable and command[1] == "-c"
        True
    """
    import usi_engine
    # (__path__, not __file__: an uncompiled checkout sends its submodules to the
    # installed copy, see usi_engine/__init__.py)
    root = os.path.dirname(os.path.realpath(usi_engine.__path__[0]))
    return [sys.executable, "-c",
            f"import sys; sys.path.insert(0, {root!r}); import runpy; "
            "runpy.run_module('usi_engine', run_name='__main__', alter_sys=True)"]


def _default_name(argv: list[str]) -> str:
    """A short name for messages until the engine says its ``id name``."""
    if not argv:
        return "?"
    base = os.path.basename(argv[0])
    if base.lower().startswith(("python", "py.exe", "pypy")) and len(argv) > 1:
        if argv[1] == "-m" and len(argv) > 2:
            return argv[2]
        if argv[1] == "-c" and len(argv) > 2 and "run_module('usi_engine'" in argv[2]:
            return "usi_engine"                      # default_engine_command()
        return os.path.basename(argv[1])
    return base


def _matcher(predicate: Predicate) -> Callable[[str], bool]:
    if callable(predicate):
        return predicate
    word = predicate

    def first_word_is(text: str) -> bool:
        return text == word or text.startswith(word + " ") or text.split(None, 1)[:1] == [word]
    return first_word_is


class UsiClient:
    """A USI engine in a child process.

    ``command`` is a list, or a string (see :func:`split_command`); ``cwd`` and ``env``
    go to :class:`subprocess.Popen`. ``name`` names the engine in error messages (when
    none is given: the program's file name until the engine's ``id name`` is read).
    ``log(direction, text)`` is called for every line: ``"send"``, ``"recv"`` (from the
    reader thread, as it arrives) and ``"stderr"``. With ``record`` every line read is
    also kept in :attr:`lines`. ``new_session`` starts the engine in a session of its
    own (on Windows in a process group of its own: Ctrl-C in the terminal then reaches
    only the caller, which quits it). The
    process starts at once unless ``start`` is False (then call :meth:`start`); OSError
    if it cannot.

    Example::

        with UsiClient("gpsusi --node-count-hard-limit 3000") as engine:
            engine.handshake()
            engine.position("sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
            print(engine.go("btime 0 wtime 0 byoyomi 100", timeout=10).bestmove)
    """

    def __init__(self, command: str | Sequence[str], *, cwd: str | os.PathLike[str] | None = None,
                 env: Mapping[str, str] | None = None, name: str | None = None,
                 log: Callable[[str, str], None] | None = None, stderr: StderrTarget = None,
                 stderr_keep: int | None = 100, record: bool = False,
                 new_session: bool = False, start: bool = True) -> None:
        self.argv: list[str] = split_command(command)
        if not self.argv:
            raise ValueError("empty engine command")
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.name: str = name or _default_name(self.argv)
        self._named = name is not None
        self.id_name: str | None = None
        self.id_author: str | None = None
        self.options: dict[str, UsiOption] = {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0
        #: The last lines of stderr (when the client reads it: ``stderr`` None).
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=stderr_keep)
        self._stderr_done = threading.Event()
        #: Every line read, when ``record``.
        self.lines: list[Line] = []
        self._log = log
        self._stderr_target = stderr
        self._stderr_file: IO[bytes] | None = None
        self._record = record
        self._new_session = new_session
        self._queue: queue.Queue[Line | None] = queue.Queue()
        self._route_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._on_line: Callable[[Line], None] | None = None
        self._on_exit: Callable[[int | None], None] | None = None
        self._eof = False
        self._go_at: float | None = None
        if start:
            self.start()

    # --- the process -----------------------------------------------------------------------

    def start(self) -> None:
        """Start the process and its reader threads (OSError if it cannot be run)."""
        if self.proc is not None:
            raise UsiError(f"{self.name}: already started")
        target = self._stderr_target
        if target is None:
            stderr: Any = subprocess.PIPE
        elif isinstance(target, (str, os.PathLike)):
            self._stderr_file = stderr = open(target, "ab")
        else:
            stderr = target
        self.started_at = time.perf_counter()
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                cwd=self.cwd, env=self.env, bufsize=0, **session_arguments(self._new_session))
        except OSError:
            if self._stderr_file is not None:
                self._stderr_file.close()
            raise
        threading.Thread(target=self._read_stdout, daemon=True, name="usi-stdout").start()
        if target is None:
            threading.Thread(target=self._read_stderr, daemon=True, name="usi-stderr").start()

    def _read_stdout(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        try:
            for raw in iter(proc.stdout.readline, b""):
                line = Line(raw.decode("utf-8", "replace").rstrip("\r\n"), time.perf_counter())
                if self._record:
                    self.lines.append(line)
                if self._log is not None:
                    self._log("recv", line.text)
                with self._route_lock:
                    if self._on_line is not None:
                        self._on_line(line)
                    else:
                        self._queue.put(line)
        except (OSError, ValueError):
            pass
        try:
            code: int | None = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        with self._route_lock:
            self._eof = True
            if self._on_exit is not None:
                self._on_exit(code)
            else:
                self._queue.put(None)

    def _read_stderr(self) -> None:
        proc = self.proc
        assert proc is not None and proc.stderr is not None
        try:
            for raw in iter(proc.stderr.readline, b""):
                text = raw.decode("utf-8", "replace").rstrip("\r\n")
                self.stderr_tail.append(text)
                if self._log is not None and text:
                    self._log("stderr", text)
        except (OSError, ValueError):
            pass
        finally:
            self._stderr_done.set()

    def wait_stderr(self, timeout: float = 1.0) -> bool:
        """Wait until the engine's stderr is read to its end (it has exited), at most
        ``timeout`` s; True when it is (always True when stderr is not read here)."""
        return self._stderr_target is not None or self._stderr_done.wait(timeout)

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The process id, None before :meth:`start`."""
        return None if self.proc is None else self.proc.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once the process has ended, else None."""
        return None if self.proc is None else self.proc.poll()

    def forward(self, on_line: Callable[[Line], None],
                on_exit: Callable[[int | None], None] | None = None) -> None:
        """From now on hand every line to ``on_line`` (in the reader thread, in order;
        lines already queued first) and the exit code to ``on_exit`` when stdout ends,
        instead of queueing them for the waits (which then raise :class:`UsiError`).
        For callers that wait on one event queue for several sources.

        Example::

            events = queue.Queue()
            engine.forward(lambda line: events.put(("engine", line.text)),
                           lambda code: events.put(("engine_exit", code)))
        """
        with self._route_lock:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    if on_exit is not None:
                        on_exit(self.returncode)
                else:
                    on_line(item)
            self._on_line, self._on_exit = on_line, on_exit
            if self._eof and on_exit is None:
                self._queue.put(None)

    # --- writing ---------------------------------------------------------------------------

    def send(self, *lines: str) -> float:
        """Write lines (each ends with LF); returns ``time.perf_counter()`` just before
        the write.  UsiEngineExited if the engine cannot be written to."""
        if self._log is not None:
            for text in lines:
                self._log("send", text)
        return self.send_raw("".join(text + "\n" for text in lines).encode("utf-8"))

    def send_raw(self, data: bytes) -> float:
        """Write bytes as they are; returns the time just before the write."""
        if self.proc is None or self.proc.stdin is None:
            raise UsiEngineExited(f"{self.name}: not started")
        at = time.perf_counter()
        try:
            with self._write_lock:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
        except (OSError, ValueError) as exc:
            code = self.returncode
            raise UsiEngineExited(f"{self.name} exited{self._code_detail(code)}: cannot write "
                                  f"to it ({exc}){self._stderr_detail()}", code) from None
        return at

    def try_send(self, *lines: str) -> bool:
        """:meth:`send`, but False instead of an exception when the engine is gone."""
        try:
            self.send(*lines)
            return True
        except UsiEngineExited:
            return False

    # --- reading ---------------------------------------------------------------------------

    @staticmethod
    def _code_detail(code: int | None) -> str:
        return "" if code is None else f" (exit code {code})"

    def _stderr_detail(self) -> str:
        tail = " | ".join(t for t in self.stderr_tail if t)
        return f"; its last stderr: {tail[-300:]}" if tail else ""

    def _exited(self, waiting_for: str) -> UsiEngineExited:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
        self.wait_stderr(1.0)       # (its last words may still be in the pipe)
        code = self.returncode
        return UsiEngineExited(f"{self.name} exited{self._code_detail(code)} while waiting for "
                               f"{waiting_for}{self._stderr_detail()}", code)

    def read_line(self, timeout: float | None = 10.0, waiting_for: str = "output") -> Line:
        """The next line; UsiTimeout after ``timeout`` s (None: wait for ever),
        UsiEngineExited when the engine has ended and every line is read."""
        if self._on_line is not None:
            raise UsiError(f"{self.name}: lines are forwarded, not queued")
        if self.proc is None:
            raise UsiError(f"{self.name}: not started")
        try:
            item = self._queue.get(timeout=None if timeout is None else max(timeout, 0.0))
        except queue.Empty:
            raise UsiTimeout(f"{self.name}: no {waiting_for} within {timeout:g} s") from None
        if item is None:
            self._queue.put(None)                 # keep reporting the end
            raise self._exited(waiting_for)
        return item

    def read_until(self, predicate: Predicate, timeout: float | None = 10.0) -> list[Line]:
        """Lines up to and including the first matching ``predicate`` (a first word,
        e.g. ``"usiok"``, or a callable on the text); UsiTimeout if none comes within
        ``timeout`` s in all, UsiEngineExited if the engine ends first.

        Example::

            lines = engine.read_until("readyok", timeout=30)
        """
        match = _matcher(predicate)
        what = predicate if isinstance(predicate, str) else "the awaited line"
        deadline = None if timeout is None else time.perf_counter() + timeout
        got: list[Line] = []
        while True:
            left = None if deadline is None else deadline - time.perf_counter()
            try:
                line = self.read_line(left, what)
            except UsiTimeout:
                last = [l.text for l in got[-3:]]
                raise UsiTimeout(f"{self.name}: no {what} within {timeout:g} s"
                                 + (f" (last lines: {last})" if last else "")) from None
            got.append(line)
            if match(line.text):
                return got

    def expect(self, predicate: Predicate, timeout: float | None = 10.0) -> Line:
        """The first line matching ``predicate`` (the lines before it are dropped)."""
        return self.read_until(predicate, timeout)[-1]

    def drain(self, quiet: float = 0.0) -> list[Line]:
        """The lines queued now and those arriving until ``quiet`` s pass with nothing
        new (none waited for with the default 0); never raises at the engine's end."""
        got: list[Line] = []
        while True:
            try:
                got.append(self.read_line(quiet))
            except (UsiTimeout, UsiEngineExited):
                return got

    # --- the protocol ----------------------------------------------------------------------

    def usi(self, timeout: float | None = 30.0) -> list[Line]:
        """``usi`` .. ``usiok``: reads ``id name``/``id author`` (:attr:`id_name`,
        :attr:`id_author`; the name also becomes :attr:`name` unless one was given) and the options
        (:attr:`options`); returns the lines of the reply."""
        self.send("usi")
        lines = self.read_until("usiok", timeout)
        self.options = {}
        for line in lines:
            self.note_line(line.text)
        return lines

    def note_line(self, text: str) -> None:
        """Remember what an ``id`` or ``option`` line of the handshake says."""
        words = text.split()
        if len(words) >= 3 and words[0] == "id" and words[1] in ("name", "author"):
            value = text.split(None, 2)[2].strip()
            if words[1] == "name":
                self.id_name = value
                if not self._named:
                    self.name = value
            else:
                self.id_author = value
            return
        option = UsiOption.parse(text)
        if option is not None:
            self.options[option.name] = option

    def has_option(self, name: str) -> bool:
        """True if the engine announced the option (case-insensitive, as USI has it)."""
        return name.lower() in (key.lower() for key in self.options)

    def setoption(self, name: str, value: Any = None) -> None:
        """``setoption name N value V`` (``true``/``false`` for a bool); without a
        value, for a button, ``setoption name N``."""
        if value is None:
            self.send(f"setoption name {name}")
            return
        if isinstance(value, bool):
            value = "true" if value else "false"
        self.send(f"setoption name {name} value {value}")

    def isready(self, timeout: float | None = 60.0) -> Line:
        """``isready`` .. ``readyok`` (lines before it, e.g. ``info string``, dropped)."""
        self.send("isready")
        return self.expect("readyok", timeout)

    def handshake(self, options: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
                  timeout: float | None = 30.0, ready_timeout: float | None = 120.0) -> list[Line]:
        """``usi`` .. ``usiok``, ``setoption`` for each of ``options`` (in order; sent
        even when the engine did not announce it: check :meth:`has_option` first to be
        strict), ``isready`` .. ``readyok``; returns the ``usi`` reply.

        Example::

            engine.handshake({"USI_Hash": 256, "USI_Ponder": False})
        """
        reply = self.usi(timeout)
        items = options.items() if isinstance(options, Mapping) else options
        for name, value in items:
            self.setoption(name, value)
        self.isready(ready_timeout)
        return reply

    def usinewgame(self) -> None:
        """``usinewgame``."""
        self.send("usinewgame")

    def position(self, start: str = "startpos", moves: Sequence[str] = ()) -> None:
        """``position``: ``start`` is ``startpos``, an SFEN (``sfen`` in front or not),
        or a whole ``position ...`` line; ``moves`` are USI moves played from it."""
        start = start.strip()
        if start.startswith("position "):
            head = start
        elif start == "startpos" or start.startswith("sfen "):
            head = f"position {start}"
        else:
            head = f"position sfen {start}"
        self.send(head + (" moves " + " ".join(moves) if moves else ""))

    def start_go(self, limits: str = "") -> float:
        """Write ``go <limits>`` (``limits`` may also start with ``go``) and return at
        once, with the time it was written; then :meth:`wait_bestmove`.  For ``go
        ponder`` and ``go infinite``."""
        limits = limits.strip()
        if limits != "go" and not limits.startswith("go "):
            limits = ("go " + limits).strip()
        self._go_at = self.send(limits)
        return self._go_at

    def wait_bestmove(self, timeout: float | None = 60.0,
                      stop_grace: float | None = None) -> GoResult:
        """Read until ``bestmove``.  After ``timeout`` s without it: UsiTimeout, or with
        ``stop_grace`` send ``stop`` and wait that long more (then UsiTimeout)."""
        started = self._go_at if self._go_at is not None else time.perf_counter()
        lines: list[Line] = []
        stopped = False
        try:
            lines += self.read_until("bestmove", timeout)
        except UsiTimeout:
            if stop_grace is None:
                raise
            self.stop()
            stopped = True
            try:
                lines += self.read_until("bestmove", stop_grace)
            except UsiTimeout:
                raise UsiTimeout(f"{self.name}: no bestmove within {timeout:g} s nor "
                                 f"{stop_grace:g} s after stop") from None
        words = lines[-1].text.split()
        infos = []
        for line in lines:
            if line.text.startswith("info"):
                try:
                    infos.append(parse_info(line.text))
                except ValueError:
                    pass
        return GoResult(bestmove=words[1] if len(words) > 1 else "",
                        ponder=words[3] if len(words) > 3 and words[2] == "ponder" else None,
                        infos=infos, lines=lines, stopped=stopped,
                        elapsed_s=lines[-1].at - started)

    def go(self, limits: str = "", *, timeout: float | None = 60.0,
           stop_grace: float | None = None) -> GoResult:
        """``go <limits>`` and wait for ``bestmove`` (see :meth:`wait_bestmove`).

        Example::

            engine.position("startpos")
            result = engine.go("btime 0 wtime 0 byoyomi 1000", timeout=10)
            result.bestmove, result.ponder, result.score.score_cp
        """
        self.start_go(limits)
        return self.wait_bestmove(timeout, stop_grace)

    def stop(self) -> None:
        """``stop``."""
        self.send("stop")

    def ponderhit(self) -> None:
        """``ponderhit``."""
        self.send("ponderhit")

    def gameover(self, result: str) -> None:
        """``gameover win|lose|draw``."""
        self.send(f"gameover {result}")

    # --- the end ---------------------------------------------------------------------------

    def quit(self, timeout: float = 3.0) -> int | None:
        """``quit``; the process is killed if it has not exited within ``timeout`` s.
        Closes the pipes; returns the exit code (None if it was never started)."""
        proc = self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            self.try_send("quit")
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close_files()
        return proc.returncode

    def close(self) -> None:
        """:meth:`quit` with its default time-out (what the context manager calls)."""
        self.quit()

    def kill(self) -> None:
        """End the process at once (no-op when it is not running)."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            try:
                proc.kill()
            except OSError:
                pass
            proc.wait()

    def _close_files(self) -> None:
        proc = self.proc
        if proc is not None and proc.stdin is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
        if self._stderr_file is not None:
            self._stderr_file.close()
            self._stderr_file = None

    def __enter__(self) -> "UsiClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "not started" if self.proc is None else (
            "running" if self.alive else f"exited {self.returncode}")
        return f"<UsiClient {self.name!r} {state}>"
