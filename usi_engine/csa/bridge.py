"""``usi-engine csa``: play on a CSA server (floodgate) with a USI engine.

The bridge logs in, agrees to the game the server proposes, and relays moves between the
server (CSA protocol 1.2.1, :mod:`usi_engine.csa.protocol`) and a USI engine child
process (driven by the package's USI client, :mod:`usi_engine.usi.client`): this engine
by default, any USI engine with ``--engine``. It mirrors the server's clocks
(:mod:`usi_engine.csa.clock`), sends floodgate's ``'* <score> <pv>`` comment with each
move, ponders when asked, keeps the connection alive, plays ``--games N`` games
reconnecting with back-off, and writes a timestamped log and a CSA record of each game.
The password is never printed, logged or recorded: the LOGIN line is logged with its
password field masked, and no other line is changed.

One thread (the caller's) runs everything; reader threads only turn the server's
and the engine's lines into events on one queue.

Example::

    from usi_engine.csa.bridge import BridgeConfig, Bridge
    code = Bridge(BridgeConfig(host="wdoor.c.u-tokyo.ac.jp", id="me",
                               password="secret", game="floodgate-300-10F")).run()
"""

from __future__ import annotations

import os
import queue
import shlex
import socket
import threading
import time
from typing import Any, TextIO

from usi_engine.csa.config import (DEFAULT_PASSWORD_ENV, BridgeConfig, ConfigError,
                                   build_config, load_config_file)
from usi_engine.csa.game import BridgeLog, GameReport, GameState, write_record
from usi_engine.csa.protocol import (RESULT_WORDS, SummaryError, floodgate_comment,
                                     parse_game_summary, parse_move_line)
from usi_engine.usi.client import Line, UsiClient, default_engine_command
from usi_engine.usi.info import parse_info

__all__ = ["Bridge", "BridgeConfig", "GameReport", "ConfigError", "build_config",
           "load_config_file", "DEFAULT_PASSWORD_ENV", "PV_LIMIT"]

#: Moves of the expected line sent in a floodgate comment, at most.
PV_LIMIT = 24


def _duration(seconds: float) -> str:
    """``15 min`` or ``40 s``."""
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


# --- the bridge --------------------------------------------------------------------------------

class _Interrupted(Exception):
    pass


class Bridge:
    """Plays ``config.games`` games on the server; :meth:`run` returns the exit code
    (0: the games were played, 1: gave up, 2: bad setup, 130: interrupted)."""

    def __init__(self, config: BridgeConfig, stream: TextIO | None = None) -> None:
        self.config = config
        self.events: "queue.Queue[tuple]" = queue.Queue()
        self.log = BridgeLog(config.log_dir, echo=config.echo, stream=stream)
        self.engine_command: list[str] = list(config.engine or default_engine_command())
        self.engine: UsiClient | None = None
        self.engine_generation = 0      # grows with each (re)start: a dead engine's lines
        self.reports: list[GameReport] = []
        self.sock: socket.socket | None = None
        self.conn_id = 0
        self.last_send = 0.0
        self.game: GameState | None = None
        self.phase = "idle"
        self.phase_deadline: float | None = None
        self.outcome: str | None = None

    # --- logging helpers ---

    def _engine_log(self, tag: str, text: str) -> None:
        quiet = tag == "engine stderr" or text.startswith("info")
        self.log.write(tag, text, console=not quiet)

    def _client_log(self, direction: str, text: str) -> None:
        """The client's log: what is sent and stderr (lines read are logged when the
        bridge handles them, in order with the rest)."""
        if direction == "send":
            self._engine_log("engine<", text)
        elif direction == "stderr":
            self._engine_log("engine stderr", text)

    def note(self, text: str) -> None:
        """A line of the bridge's own."""
        self.log.write("bridge", text)

    # --- top level ---

    def request_stop(self) -> None:
        """Ask the bridge to stop as after Ctrl-C (from another thread)."""
        self.events.put(("interrupt",))

    def run(self) -> int:
        """Play the games; the exit code."""
        try:
            return self._run()
        except (KeyboardInterrupt, _Interrupted):
            self.note("interrupted")
            return 130
        finally:
            self._stop_engine()
            self._close()
            self.log.close()

    def _run(self) -> int:
        config = self.config
        self.note(f"usi-engine csa: {config.host}:{config.port} as {config.id}"
                  f"{' for ' + config.game if config.game else ''}, {config.games} game(s), "
                  f"margin {config.margin_ms} ms, ponder {'on' if config.ponder else 'off'}, "
                  f"logs in {os.path.abspath(config.log_dir)}")
        if not self._start_engine():
            return 2
        played = failures = 0
        backoff = config.backoff_initial_s
        while played < config.games:
            outcome = self._session()
            if outcome == "fatal":
                return 1
            if outcome in ("played", "aborted"):
                played += 1
                failures, backoff = 0, config.backoff_initial_s
            else:
                failures += 1
                if failures > config.max_failures:
                    self.note(f"giving up after {failures} failed attempts in a row")
                    self._summary()
                    return 1
                if failures == 1:
                    self.note(f"that attempt failed: retrying {config.max_failures} more "
                              f"time(s) over about {_duration(self._retry_seconds())} "
                              f"before giving up (check --host/--port; Ctrl-C stops)")
            if played < config.games:
                if not self._engine_alive and not self._start_engine():
                    return 1
                if outcome not in ("played",):
                    attempt = (f" (attempt {failures + 1} of {config.max_failures + 1})"
                               if failures else "")
                    self.note(f"reconnecting in {backoff:.1f} s{attempt}")
                    self._sleep(backoff)
                    backoff = min(backoff * 2, config.backoff_max_s)
        self._summary()
        return 0

    def _retry_seconds(self) -> float:
        """How long the retries after a first failure wait in all (the back-off
        sleeps; each attempt's own time comes on top)."""
        config = self.config
        total, backoff = 0.0, config.backoff_initial_s
        for _ in range(config.max_failures):
            total += backoff
            backoff = min(backoff * 2, config.backoff_max_s)
        return total

    def _summary(self) -> None:
        for report in self.reports:
            self.log.write("summary", report.line())

    def _sleep(self, seconds: float) -> None:
        end = time.perf_counter() + seconds
        while True:
            left = end - time.perf_counter()
            if left <= 0:
                return
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                return
            if event[0] == "interrupt":
                raise _Interrupted()

    def _interrupt(self) -> None:
        self.note("interrupted (Ctrl-C): logging out")
        game = self.game
        if game is not None and game.started and not game.over and self.sock is not None:
            self.note("resigning the game in progress")
            self._resign()
            game.report.result = "interrupted"
            game.report.notes.append("interrupted: resigned")
            self._finish_game()
        if self.sock is not None:
            self._send("LOGOUT")
            self._await_logout(3.0)

    # --- engine ---

    def _wait_engine(self, word: str, timeout_s: float) -> bool:
        """Process events until the engine prints ``word`` (True) or fails."""
        end = time.perf_counter() + timeout_s
        while True:
            left = end - time.perf_counter()
            if left <= 0:
                self.note(f"the engine did not answer {word} within {timeout_s:.0f} s")
                return False
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                continue
            kind = event[0]
            if kind == "interrupt":
                raise _Interrupted()
            if kind == "engine" and event[1] == self.engine_generation:
                self._engine_log("engine>", event[2])
                if self.engine is not None:
                    self.engine.note_line(event[2])
                if event[2].strip() == word:
                    return True
            elif kind == "engine_eof" and event[1] == self.engine_generation:
                self.note(f"the engine exited (code {event[2]}) before {word}")
                self._show_engine_stderr()
                return False

    #: the most lines of a dead engine's stderr shown on the console
    STDERR_SHOWN = 20

    def _show_engine_stderr(self) -> None:
        """A dead engine's last stderr lines on the console too (they say why: an
        ImportError, a missing file), not only in the log."""
        engine = self.engine
        if engine is None:
            return
        engine.wait_stderr(2.0)
        tail = [text for text in engine.stderr_tail if text][-self.STDERR_SHOWN:]
        if not tail:
            self.note("the engine printed nothing on stderr")
            return
        self.note(f"the engine's last {len(tail)} line(s) on stderr:")
        for text in tail:
            self.log.write("engine stderr", text, console=True, files=False)

    @property
    def _engine_alive(self) -> bool:
        return self.engine is not None and self.engine.alive

    def _to_engine(self, text: str) -> bool:
        """Send one line to the engine; False if it is gone (its end is an event)."""
        return self.engine is not None and self.engine.try_send(text)

    def _stop_engine(self) -> None:
        """``quit`` the engine; killed if it does not exit."""
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.quit(timeout=3.0)

    def _start_engine(self) -> bool:
        """Start the engine and do the ``usi`` handshake and options."""
        self._stop_engine()
        self.engine_generation += 1
        generation = self.engine_generation
        command = shlex.join(self.engine_command)
        try:
            # a session of its own: Ctrl-C goes to the bridge, which quits it
            engine = UsiClient(self.engine_command, log=self._client_log, new_session=True)
        except OSError as exc:
            self.note(f"cannot start the engine {command}: {exc}")
            return False

        def on_line(line: Line) -> None:
            if line.text:
                self.events.put(("engine", generation, line.text))

        engine.forward(on_line, lambda code: self.events.put(("engine_eof", generation, code)))
        self.engine = engine
        self.note(f"engine: {command}" if self.config.engine else
                  f"engine: this engine ({engine.name}, started by {self.engine_command[0]})")
        self._to_engine("usi")
        if not self._wait_engine("usiok", self.config.engine_timeout_s):
            self._stop_engine()
            return False
        self.note(f"engine is {engine.name}")
        for name, value in self.config.options:
            if not engine.has_option(name):
                self.note(f"warning: the engine has no option {name}; sent anyway")
            self._to_engine(f"setoption name {name} value {value}")
        self._to_engine("setoption name USI_Ponder value "
                        + ("true" if self.config.ponder else "false"))
        return True

    # --- connection ---

    def _connect(self) -> bool | None:
        """Connect: True, False (retry), None (fatal: the server's name does not resolve,
        which waiting will not mend)."""
        config = self.config
        self.note(f"connecting to {config.host}:{config.port}")
        try:
            sock = socket.create_connection((config.host, config.port),
                                            timeout=config.connect_timeout_s)
        except socket.gaierror as exc:
            if exc.errno == getattr(socket, "EAI_AGAIN", None):
                # a resolver that is down (no network yet) may come back: retry
                self.note(f"cannot resolve {config.host} now ({exc.strerror or exc})")
                return False
            self.note(f"cannot resolve the server name {config.host!r} "
                      f"({exc.strerror or exc}): check --host; not retrying")
            return None
        except OSError as exc:
            self.note(f"cannot connect to {config.host}:{config.port}: {exc}")
            return False
        sock.settimeout(None)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        self.conn_id += 1
        self.sock = sock
        threading.Thread(target=self._read_server, args=(sock, self.conn_id), daemon=True,
                         name="csa-reader").start()
        self.last_send = time.perf_counter()
        return True

    def _read_server(self, sock: socket.socket, conn_id: int) -> None:
        buffer = b""
        reason = "closed by the server"
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer:
                    raw, buffer = buffer.split(b"\n", 1)
                    self.events.put(("server", conn_id,
                                     raw.rstrip(b"\r").decode("utf-8", errors="replace")))
                if len(buffer) > 1 << 20:
                    reason = "a line over 1 MB"
                    break
        except OSError as exc:
            reason = f"connection error: {exc}"
        self.events.put(("server_eof", conn_id, reason))

    def _send(self, text: str, shown: str | None = None, console: bool = True) -> bool:
        """Send one line to the server (``shown`` is what the log says instead)."""
        if self.sock is None:
            return False
        self.log.write("server<", shown if shown is not None else text, console)
        try:
            self.sock.sendall((text + "\n").encode("utf-8"))
        except OSError as exc:
            self.note(f"cannot send to the server: {exc}")
            return False
        self.last_send = time.perf_counter()
        return True

    def _close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()
            self.sock = None

    def _await_logout(self, timeout_s: float) -> None:
        end = time.perf_counter() + timeout_s
        while self.sock is not None:
            left = end - time.perf_counter()
            if left <= 0:
                break
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                break
            if event[0] == "server" and event[1] == self.conn_id:
                self.log.write("server>", event[2])
                if event[2].startswith("LOGOUT:"):
                    break
            elif event[0] == "server_eof" and event[1] == self.conn_id:
                break
        self._close()

    # --- one connection: login, a game, logout ---

    def _session(self) -> str:
        """One connection. Returns ``played``, ``aborted`` (a game was started but
        did not end normally), ``failed`` (retry) or ``fatal`` (stop)."""
        connected = self._connect()
        if connected is None:
            return "fatal"
        if not connected:
            return "failed"
        self._send(self.config.login_line(), shown=self.config.login_line(masked=True))
        self.phase = "login"
        self.phase_deadline = time.perf_counter() + self.config.login_timeout_s
        self.summary_lines: list[str] | None = None
        self.outcome = None
        self.game = None
        try:
            while self.outcome is None:
                self._step()
        except (KeyboardInterrupt, _Interrupted):
            self._interrupt()
            raise
        finally:
            if self.game is not None and not self.game.over:
                self._finish_game()
            self.game = None
            self._close()
        return self.outcome

    def _step(self) -> None:
        now = time.perf_counter()
        timeout = 1.0
        if self.config.keep_alive > 0:
            timeout = min(timeout, max(0.0, self.last_send + self.config.keep_alive - now))
        for moment in self._deadlines():
            timeout = min(timeout, max(0.0, moment - now))
        try:
            event = self.events.get(timeout=timeout)
        except queue.Empty:
            event = None
        if event is not None:
            self._dispatch(event)
        if self.outcome is None:
            self._timers()

    def _deadlines(self) -> list[float]:
        out = []
        if self.phase_deadline is not None:
            out.append(self.phase_deadline)
        game = self.game
        if game is not None:
            out += [t for t in (game.stop_at, game.resign_at) if t is not None]
        return out

    def _dispatch(self, event: tuple) -> None:
        kind = event[0]
        if kind == "interrupt":
            raise _Interrupted()
        if kind == "server" and event[1] == self.conn_id:
            self._server_line(event[2])
        elif kind == "server_eof" and event[1] == self.conn_id:
            self._server_closed(event[2])
        elif kind == "engine" and event[1] == self.engine_generation:
            self._engine_line(event[2])
        elif kind == "engine_eof" and event[1] == self.engine_generation:
            self._engine_died(event[2])

    def _timers(self) -> None:
        now = time.perf_counter()
        if self.config.keep_alive > 0 and now - self.last_send >= self.config.keep_alive \
                and self.sock is not None and self.phase != "ending":
            self._send("", shown="(keep-alive)", console=False)
        if self.phase_deadline is not None and now >= self.phase_deadline:
            self._phase_timeout()
        game = self.game
        if game is None or game.over:
            return
        if game.stop_at is not None and now >= game.stop_at and not game.stop_sent:
            game.stop_sent = True
            self.note("the engine is over its time: stop")
            self._to_engine("stop")
        if game.resign_at is not None and now >= game.resign_at:
            game.resign_at = game.stop_at = None
            self.note("the engine sent no bestmove in time: resigning")
            game.report.notes.append("engine silent: resigned")
            self._resign()

    def _phase_timeout(self) -> None:
        phase = self.phase
        self.phase_deadline = None
        if phase == "login":
            self.note("no answer to LOGIN")
            self.outcome = "failed"
        elif phase == "ready":
            self.note("the engine did not answer isready: rejecting the game")
            if self.game is not None:
                self._send(f"REJECT {self.game.summary.game_id}")
                self.game.report.notes.append("engine not ready: rejected")
            self._stop_engine()
            self.phase = "agreed"
            self.phase_deadline = time.perf_counter() + 10
        elif phase == "ending":
            self._finish_game()
            self.outcome = "played" if self.game_result_normal() else "aborted"
        else:
            self.note(f"timed out while {phase}")
            self.outcome = "failed" if self.game is None or not self.game.started else "aborted"

    def game_result_normal(self) -> bool:
        """True when the current game ended with a result word from the server."""
        return self.game is not None and self.game.report.result in RESULT_WORDS

    # --- server lines ---

    def _server_line(self, line: str) -> None:
        if line == "":
            self.log.write("server>", "(empty line)", console=False)
            return
        self.log.write("server>", line)
        phase = self.phase
        if line.startswith("LOGOUT:"):
            if phase == "ending":
                self.outcome = "played" if self.game_result_normal() else "aborted"
            else:
                self.note("logged out by the server")
                self.outcome = "failed"
            return
        if phase == "login":
            if line.startswith("LOGIN:") and line.endswith(" OK"):
                self.note("logged in; waiting for a game")
                self.phase, self.phase_deadline = "waiting", None
            elif line.startswith("LOGIN:incorrect"):
                self.note("login refused (wrong name or password, or this name is "
                          "already logged in)")
                self.outcome = "fatal"
            else:
                self.note(f"skipped unexpected line before login: {line!r}")
            return
        if phase == "waiting":
            if line == "BEGIN Game_Summary":
                self.summary_lines = [line]
                self.phase = "summary"
            else:
                self.note(f"skipped unexpected line: {line!r}")
            return
        if phase == "summary":
            assert self.summary_lines is not None
            self.summary_lines.append(line)
            if line == "END Game_Summary":
                self._summary_done()
            elif len(self.summary_lines) > 1000:
                self.note("a Game_Summary of over 1000 lines: dropped")
                self.summary_lines, self.phase = None, "waiting"
            return
        if phase in ("ready", "agreed"):
            if line.startswith("START:"):
                self._start_game(line[6:])
            elif line.startswith("REJECT:"):
                self.note(f"the game was rejected: {line[7:]}")
                if self.game is not None:
                    self.game.report.result = "rejected"
                    self.game.over = True
                    self.log.close_game()
                self.game = None
                self.outcome = "failed"
            else:
                self.note(f"skipped unexpected line: {line!r}")
            return
        if phase in ("playing", "ending"):
            self._game_line(line)
            return
        self.note(f"skipped unexpected line: {line!r}")

    def _summary_done(self) -> None:
        lines, self.summary_lines = self.summary_lines or [], None
        try:
            summary = parse_game_summary(lines)
        except SummaryError as exc:
            game_id = next((l.split(":", 1)[1] for l in lines if l.startswith("Game_ID:")), "")
            self.note(f"cannot play this game: {exc}; rejecting")
            if game_id:
                self._send(f"REJECT {game_id}")
                self.phase, self.phase_deadline = "agreed", time.perf_counter() + 30
            else:
                self.outcome = "failed"
            return
        # both sides of a game may log to one directory: the name says which we were
        stem = self.log.open_game(f"{summary.game_id}-{self.config.id}")
        game = self.game = GameState(summary, self.config.margin_ms,
                                 self.config.increment_as_byoyomi)
        game.report.record_path = os.path.join(self.config.log_dir, stem + ".csa")
        for line in lines:
            self.log.write("summary", line, console=False)
        times = summary.time
        self.note(f"game {summary.game_id}: {summary.names['+']} (+) vs "
                  f"{summary.names['-']} (-); we are {summary.my_color}; time "
                  f"+ {times['+'].describe()}, - {times['-'].describe()}; max moves "
                  f"{summary.max_moves or 'none'}"
                  + (f"; {len(summary.initial_moves)} moves already played"
                     if summary.initial_moves else ""))
        for move in summary.initial_moves:
            game.apply(move.move, move.time, 0.0)
        if self.engine is None or not self.engine.alive:
            self.note("the engine is not running: rejecting the game")
            self._send(f"REJECT {summary.game_id}")
            self.phase, self.phase_deadline = "agreed", time.perf_counter() + 30
            return
        if summary.max_moves and self.engine.has_option("MaxMovesToDraw") and not any(
                name.lower() == "maxmovestodraw" for name, _ in self.config.options):
            self._to_engine(f"setoption name MaxMovesToDraw value {summary.max_moves}")
        self._to_engine("isready")
        self.phase, self.phase_deadline = "ready", time.perf_counter() + self.config.engine_timeout_s

    def _start_game(self, game_id: str) -> None:
        game = self.game
        if game is None:
            self.note(f"START for a game we did not agree to: {game_id}")
            return
        self.phase, self.phase_deadline = "playing", None
        game.started = True
        game.turn_t0 = time.perf_counter()
        self._to_engine("usinewgame")
        self.note(f"game started; {'our' if game.our_turn() else 'their'} move")
        if game.our_turn():
            self._start_search()

    def _game_line(self, line: str) -> None:
        game = self.game
        assert game is not None
        if line.startswith("#"):
            word = line[1:].strip()
            if word in RESULT_WORDS:
                game.report.result = word
                self.note(f"game over: {' '.join('#' + r for r in game.report.reasons)} "
                          f"#{word}".replace("  ", " "))
                self._end_game()
            else:
                game.report.reasons.append(word)
            return
        if line.startswith("%"):
            self.note(f"server: {line}")
            return
        if line.startswith("##"):
            self.note(f"server message: {line}")
            return
        move = parse_move_line(line)
        if move is None:
            self.note(f"skipped malformed line: {line!r}")
            return
        if game.over or self.phase == "ending":
            return
        now = time.perf_counter()
        try:
            charged = game.apply(move.move, move.time, (now - game.turn_t0) * 1000)
        except ValueError as exc:
            self.note(f"skipped a move that cannot be played here ({exc})")
            return
        if move.color == game.me:
            self._our_move_confirmed(move.move, charged)
        else:
            game.turn_t0 = now
            self._their_move(game.usi_moves[-1])

    def _our_move_confirmed(self, csa: str, charged: int) -> None:
        game = self.game
        assert game is not None
        if game.pending is not None and game.pending != csa:
            self.note(f"the server played {csa} for us, we sent {game.pending}")
        if game.pending_comment:
            # as floodgate writes it in its records
            game.record_moves.append("'*" + game.pending_comment[1:])
        game.pending = game.pending_comment = None
        left = game.clock.remaining_ms[game.me]
        self.log.write("clock", f"our move took T{charged}; {left / 1000:.1f} s left")
        if self.config.ponder and game.ponder_next and game.search == "idle":
            self._start_ponder(game.ponder_next)
        game.ponder_next = None
        game.turn_t0 = time.perf_counter()

    def _their_move(self, usi: str) -> None:
        game = self.game
        assert game is not None
        if game.search == "pondering":
            if usi == game.ponder_on:
                self.note(f"ponder hit on {usi}")
                game.report.ponder_hits += 1
                self._to_engine("ponderhit")
                game.search = "thinking"
                self._set_deadlines()
            else:
                self._to_engine("stop")
                game.search = "stopping"
                self._set_deadlines()
        elif game.search == "done_early":
            early, game.early_bestmove = game.early_bestmove, None
            game.search = "idle"
            if usi == game.ponder_on and early:
                # the engine answered its ponder search without waiting: play it now
                game.search = "thinking"
                self._set_deadlines()
                self._bestmove(early)
            else:
                self._start_search()
        elif game.search == "idle":
            self._start_search()
        else:
            self.note(f"the opponent moved while the engine was {game.search}")

    def _server_closed(self, reason: str) -> None:
        self.note(f"the server closed the connection ({reason})")
        self._close()
        game = self.game
        if self.phase == "ending" or (game is not None and game.over):
            self.outcome = "played" if self.game_result_normal() else "aborted"
            if game is not None and not game.over:
                self._finish_game()
            return
        if game is not None and game.started:
            game.report.result = "disconnected"
            game.report.notes.append(f"server disconnected at ply {game.report.plies}")
            self._stop_engine_search()
            self._finish_game()
            self.outcome = "aborted"
        else:
            if game is not None:
                game.over = True
                self.log.close_game()
            self.game = None
            self.outcome = "failed"

    # --- engine lines ---

    def _engine_line(self, line: str) -> None:
        self._engine_log("engine>", line)
        game = self.game
        words = line.split()
        if not words:
            return
        if words[0] == "readyok":
            if self.phase == "ready" and game is not None:
                self._send(f"AGREE {game.summary.game_id}")
                self.phase, self.phase_deadline = "agreed", time.perf_counter() + 300
            return
        if words[0] == "info" and game is not None:
            info = parse_info(line)
            if info.string is None and info.has_score \
                    and game.search in ("thinking", "pondering", "done_early"):
                if info.multipv in (None, 1):
                    game.last_info = info
                if info.pv:        # every line: a book move may be any of its candidates
                    game.infos[info.pv[0]] = info
            return
        if words[0] == "bestmove" and game is not None:
            self._bestmove(line)

    def _bestmove(self, line: str) -> None:
        game = self.game
        assert game is not None
        words = line.split()
        state = game.search
        if state == "stopping":
            game.search = "idle"
            if not game.over and game.our_turn():
                self._start_search()
            return
        if state == "pondering":
            game.search, game.early_bestmove = "done_early", line
            return
        if state != "thinking":
            game.search = "idle"
            return
        game.search = "idle"
        game.stop_at = game.resign_at = None
        if game.over or game.sent_final:
            return
        move = words[1] if len(words) > 1 else ""
        game.ponder_next = words[3] if len(words) > 3 and words[2] == "ponder" else None
        if move == "resign":
            self.note("the engine resigns")
            self._resign()
            return
        if move == "win":
            self.note("the engine declares a win (entering king)")
            game.sent_final = True
            self._send("%KACHI")
            game.record_moves.append("%KACHI")
            return
        problem = game.legal(move)
        if problem:
            self.note(f"the engine's move {move!r} is not legal ({problem}): resigning")
            game.report.notes.append(f"illegal engine move {move}: resigned")
            self._resign()
            return
        csa = game.board.usi_to_csa(move)
        comment = self._comment(move)
        elapsed = (time.perf_counter() - game.turn_t0) * 1000
        available = game.clock.available_ms(game.me)
        game.report.our_moves += 1
        if available is not None:
            margin = int(available - elapsed)
            game.pending_margin = margin
            mins = game.report.min_margin_ms
            game.report.min_margin_ms = margin if mins is None else min(mins, margin)
            self.log.write("clock", f"move after {elapsed:.0f} ms, {margin} ms left", False)
            if game.stop_sent or margin < game.margin_ms / 2:
                game.report.late_moves += 1
                self.note(f"late move: {margin} ms left on our clock; the engine went over "
                          f"the time it was given (margin {game.margin_ms} ms)")
        if comment:
            game.report.commented += 1
        game.pending, game.pending_comment = csa, comment
        self._send(csa + ("," + comment if comment else ""))

    def _comment(self, move: str) -> str | None:
        game = self.game
        assert game is not None
        info = game.infos.get(move)
        if info is not None:
            after = game.board.copy()
            after.push_usi(move)
            pv = after.pv_to_csa(info.pv[1:], PV_LIMIT)
        elif game.last_info is not None and not game.last_info.pv:
            info, pv = game.last_info, []
        else:
            return None
        return floodgate_comment(info.score_cp, info.mate, pv, game.me == "+")

    def _engine_died(self, code: Any) -> None:
        self.note(f"the engine exited (code {code})")
        game = self.game
        if game is not None and game.started and not game.over:
            game.report.notes.append("engine crashed: resigned")
            game.search = "idle"
            self._resign()
        elif game is not None and self.phase == "ready":
            self.phase_deadline = time.perf_counter()  # reject at once

    # --- searching ---

    def _start_search(self) -> None:
        game = self.game
        assert game is not None
        if game.over or game.sent_final:
            return
        elapsed = (time.perf_counter() - game.turn_t0) * 1000
        game.infos, game.last_info = {}, None
        self._to_engine(game.position_command())
        self._to_engine("go " + game.clock.go_args(game.me, elapsed, game.margin_ms,
                                                    game.inc_as_byoyomi))
        game.search = "thinking"
        self._set_deadlines()

    def _start_ponder(self, usi: str) -> None:
        game = self.game
        assert game is not None
        try:
            game.board.usi_to_csa(usi)
        except ValueError:
            return
        game.infos, game.last_info = {}, None
        game.ponder_on = usi
        self._to_engine(game.position_command(usi))
        self._to_engine("go ponder " + game.clock.go_args(game.me, 0.0, game.margin_ms,
                                                           game.inc_as_byoyomi))
        game.search = "pondering"
        game.report.ponders += 1
        game.stop_at = game.resign_at = None

    def _set_deadlines(self) -> None:
        game = self.game
        assert game is not None
        game.stop_sent = False
        available = game.clock.available_ms(game.me)
        if available is None:
            game.stop_at = game.resign_at = None
            return
        margin = game.margin_ms
        game.stop_at = game.turn_t0 + (available - max(margin, 400)) / 1000
        game.resign_at = game.turn_t0 + (available - max(margin / 2, 100)) / 1000

    def _stop_engine_search(self) -> None:
        game = self.game
        if game is not None and game.search in ("thinking", "pondering", "stopping"):
            self._to_engine("stop")
            game.search = "stopping"
        if game is not None:
            game.stop_at = game.resign_at = None

    def _resign(self) -> None:
        game = self.game
        assert game is not None
        if game.sent_final or game.over:
            return
        game.sent_final = True
        game.stop_at = game.resign_at = None
        if game.search in ("thinking", "pondering"):
            self._to_engine("stop")
            game.search = "stopping"
        self._send("%TORYO")
        game.record_moves.append("%TORYO")

    # --- the end of a game ---

    def _end_game(self) -> None:
        """The server said the game is over: stop the engine, tell it, log out."""
        game = self.game
        assert game is not None
        self._stop_engine_search()
        result = {"WIN": "win", "LOSE": "lose"}.get(game.report.result, "draw")
        self._to_engine(f"gameover {result}")
        game.search = "idle"
        self._finish_game()
        self._send("LOGOUT")
        self.phase, self.phase_deadline = "ending", time.perf_counter() + 5

    def _finish_game(self) -> None:
        """Write the record and the report (once)."""
        game = self.game
        if game is None or game.over:
            return
        game.over = True
        game.stop_at = game.resign_at = None
        if not game.report.result:
            game.report.result = "unfinished"
        try:
            write_record(game)
        except OSError as exc:
            self.note(f"cannot write the record {game.report.record_path}: {exc}")
        self.reports.append(game.report)
        self.note(game.report.line())
        self.log.close_game()
