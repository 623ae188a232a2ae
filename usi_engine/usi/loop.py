"""The USI protocol loop: read commands on stdin, think in a worker thread, print.

This module is the engine's only talker. It owns the option values, the current
position and the running search; everything below it (``position``, ``search``)
is silent and works with move ints.

Threads (the project's architecture notes describe the same model):

* the **main thread** reads stdin and dispatches; it never waits on a search, so
  ``isready``, ``stop``, ``ponderhit`` and ``quit`` are answered mid-search;
* each ``go`` starts a **worker thread** (a :class:`SearchJob`) that runs the
  blocking ``Searcher.search`` (which releases the GIL) and prints the final
  ``info`` and the one ``bestmove`` the ``go`` is owed;
* one lock (:class:`Output`) guards stdout, so lines never interleave;
* ``isready`` sizes the table memory (``USI_Hash``) in an **allocation thread**
  and that thread prints ``readyok``, so the reader keeps answering (``quit``)
  while gigabytes are touched; nothing is allocated or cleared inside ``go``.

Start-up must be fast (``usi`` is answered within ~100 ms of process start), so
the compiled core (``usi_engine.core.position``, ``usi_engine.search.searcher``) and even
``timeman`` are imported on first use, never at import time.

Example (in-process, with a scripted stdin)::

    >>> import io
    >>> out = io.BytesIO()
    >>> engine = UsiEngine(out)
    >>> engine.handle_line("  joho\\tdebug on")    # unknown token skipped
    True
    >>> engine.debug
    True
    >>> engine.handle_line("quit")
    False
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from usi_engine import __version__

from usi_engine.usi import tuning
from usi_engine.core.hashsize import HashSizer
from usi_engine.usi.options import Options
from usi_engine.usi.info import below_resign_value, format_info, format_mate_info, same_line
from usi_engine.usi.stdio import Output, iter_lines

__all__ = ["ENGINE_NAME", "ENGINE_AUTHOR", "UsiEngine", "Output", "SearchJob", "format_info",
           "iter_lines", "main"]

# The compiled core imports numpy (the evaluation weights are numpy arrays). numpy's
# BLAS starts a thread pool whose threads spin on idle cores after start-up; the
# engine does no linear algebra, so keep BLAS single-threaded: nothing may burn CPU
# while the engine is idle, nor compete with the search. Set before the lazy import.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

ENGINE_NAME = f"usi_engine {__version__}"
ENGINE_AUTHOR = "the usi_engine developers"

#: The commands a GUI may send; anything else on a line is skipped until one of these.
COMMANDS = frozenset({
    "usi", "debug", "isready", "setoption", "register", "usinewgame", "position",
    "go", "stop", "ponderhit", "gameover", "quit",
})

# A token is any run of non-blanks; spaces and tabs (any whitespace) separate them.
_TOKEN = re.compile(r"\S+")

#: How long ``quit``/EOF waits for a running search to wind down before the process
#: leaves anyway (the spec allows 1 s in total).
QUIT_GRACE_S = 0.5
#: The longest ``info string`` printed: input echoed in an error (a 100 kB token) is
#: cut to this many characters.
MAX_INFO_STRING = 400
#: How long a new ``go``/``gameover``/``usinewgame`` waits for the previous search to end
#: after stopping it; a search that ignores ``stop`` longer than this is abandoned.
JOIN_TIMEOUT_S = 2.0


# --- one go ---------------------------------------------------------------------------


@dataclass(eq=False)
class SearchJob:
    """The state of one ``go``, shared by the main thread and its worker.

    ``lock`` guards the fields the two threads both touch (``stopped``,
    ``cancelled``, ``ponderhit_at``, ``searching``); ``release`` is set when the
    ``bestmove`` may be printed (at once for a normal ``go``; at ``stop`` for
    ``go infinite``; at ``ponderhit``/``stop`` for ``go ponder``); ``done`` is set
    when the worker has finished (its ``bestmove`` printed or suppressed).
    """

    position: Any                 # a private copy of the Position (the GUI may send a new one)
    params: Any                   # go.GoParams
    plan: Any                     # timeman.TimePlan
    options: dict[str, Any]       # options snapshot at go time
    started_at: float             # time.monotonic() when the go line arrived
    searchmoves: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    release: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    stopped: bool = False         # stop/quit/gameover asked the search to end
    cancelled: bool = False       # gameover/quit: print no bestmove
    ponderhit_at: float | None = None
    deadlines_applied: bool = False  # set_deadlines seen by a running search (ponder)
    searching: bool = False       # Searcher.search has been entered
    answered: bool = False        # its bestmove/checkmate is being written: done at once
    thread: threading.Thread | None = None
    stopper: Callable[[], None] | None = None  # stops whichever engine the job runs

    @property
    def waits_for_release(self) -> bool:
        """True when the bestmove must wait for stop (infinite) or ponderhit/stop (ponder).
        A `go mate` answers as soon as it knows, infinite or not."""
        if self.params.mate is not None:
            return False
        return bool(self.plan.infinite or self.params.ponder)

    def stop_engine(self) -> None:
        """Tell the running search or solver to stop (call with `searching` true)."""
        if self.stopper is not None:
            self.stopper()


def _mate_probe_budget(hard_ms: int | None) -> int:
    """Time for the df-pn probe that runs before the tree search: a tenth of the hard
    deadline up to 200 ms (300 ms when unlimited), none under 500 ms."""
    if hard_ms is None:
        return 300
    if hard_ms < 500:
        return 0
    return min(200, hard_ms // 10)


def _remaining(limit_ms: int | None, since: float, now: float | None = None) -> int | None:
    """``limit_ms`` measured from ``since`` (monotonic s), as ms from ``now``; >= 1 ms."""
    if limit_ms is None:
        return None
    elapsed_ms = ((time.monotonic() if now is None else now) - since) * 1000.0
    return max(1, int(limit_ms - elapsed_ms))


def _deadlines(plan: Any, since: float) -> tuple[int | None, int | None]:
    """The plan's soft and hard limits as ms from now, the clock started at ``since``.

    Both are read off one clock reading, so that equal limits (byoyomi: the time
    cannot be saved) stay equal; the search treats soft == hard as "use it all".
    """
    now = time.monotonic()
    return _remaining(plan.soft_ms, since, now), _remaining(plan.hard_ms, since, now)


# --- the engine ---------------------------------------------------------------------------


class UsiEngine:
    """The protocol state machine. Feed it lines with :meth:`handle_line`.

    ``output``: a binary stream (stdout's buffer). ``searcher_factory``: builds the
    searcher (default: ``usi_engine.search.searcher.Searcher``, imported on first use);
    tests may pass a stand-in with the same interface.
    """

    def __init__(self, output: BinaryIO, searcher_factory: Callable[[], Any] | None = None) -> None:
        self.out = Output(output)
        self.options = Options()
        self._tuning = tuning.enabled()        # search parameters as options (USI_ENGINE_TUNE)
        if self._tuning:
            for spec in tuning.option_specs():
                self.options.add(spec)
        self.debug = False
        self._searcher_factory = searcher_factory
        self._searcher: Any = None
        self._search_error: str | None = None  # why the searcher could not be made
        self._eval_loader: Any = None  # EvalType/EvalFile state (eval.loader.EvalLoader)
        self._needs_new_game = False           # TT/histories to forget before next search
        self._position: Any = None             # current Position (None until first needed)
        self._clock_loss: Any = None           # timeman.ClockLoss, made at the first go
        self._job: SearchJob | None = None     # the last go (maybe finished)
        self._hash = HashSizer(self.out.write, after=self._forget_game_if_asked)

    # -- small helpers -----------------------------------------------------------------

    def info_string(self, text: str) -> None:
        """Print ``info string <text>`` (one line; newlines in text are flattened, and
        text beyond :data:`MAX_INFO_STRING` characters is cut)."""
        text = " ".join(text.split())
        if len(text) > MAX_INFO_STRING:
            text = f"{text[:MAX_INFO_STRING]}... (cut, {len(text)} characters)"
        self.out.write("info string " + text)

    def error(self, text: str) -> None:
        """Report bad input the USI way: ``info string error: ...``; never fatal."""
        self.info_string("error: " + text)

    def _active_job(self) -> SearchJob | None:
        job = self._job
        return job if job is not None and not job.done.is_set() else None

    def _position_now(self) -> Any:
        """The current position, creating the start position on first use."""
        if self._position is None:
            from usi_engine.core.position import Position  # lazy: keeps `usi` fast
            self._position = Position()
        return self._position

    def _ensure_searcher(self) -> Any:
        """Import and build the searcher once (no table memory is allocated here).

        Returns ``None`` (after one ``info string error``) if the search module
        cannot be loaded, in which case ``go`` still answers with a legal move.
        """
        if self._searcher is None and self._search_error is None:
            try:
                factory = self._searcher_factory
                if factory is None:
                    from usi_engine.search.searcher import Searcher  # lazy: heavy, compiled
                    factory = Searcher
                self._searcher = factory()
                self._apply_eval_options()
            except Exception as exc:  # ImportError (not built) or anything else
                self._search_error = f"search unavailable ({type(exc).__name__}: {exc})"
                self.error(self._search_error + "; playing the first legal move")
        return self._searcher

    def _apply_eval_options(self) -> None:
        """EvalType/EvalFile take effect (at isready, and when the searcher is built)."""
        if self._eval_loader is None:
            from usi_engine.eval.loader import EvalLoader  # lazy: imports the core
            self._eval_loader = EvalLoader()
        for message in self._eval_loader.apply(str(self.options["EvalType"]),
                                               str(self.options["EvalFile"]),
                                               str(self.options["EvalDir"])):
            self.info_string(message)
        if hasattr(self._searcher, "set_evaluation"):
            self._searcher.set_evaluation(self._eval_loader.network)

    def _forget_game(self) -> None:
        """Forget the last game's tables and histories now if the searcher is free (it
        costs nothing: the tables take a new salt), else before the next search."""
        if self._searcher is None or self._hash.busy or self._active_job() is not None:
            self._needs_new_game = True
            return
        self._forget_game_now()

    def _forget_game_now(self) -> None:
        if self._searcher is not None:
            self._searcher.new_game()
        self._needs_new_game = False

    def _forget_game_if_asked(self) -> None:
        """After the memory is sized (in the allocation thread): a usinewgame that came
        meanwhile is applied now."""
        if self._needs_new_game:
            self._forget_game_now()

    def _finish_job(self, cancel: bool, timeout: float = JOIN_TIMEOUT_S) -> None:
        """Stop the running search (if any) and wait for its worker.

        ``cancel``: the ``bestmove`` is no longer wanted (gameover/quit). Otherwise
        it is released and printed (a new ``go`` arrived without ``stop``).
        """
        job = self._active_job()
        if job is None:
            return
        with job.lock:
            job.stopped = True
            job.cancelled = job.cancelled or cancel
            searching = job.searching
        if searching:
            job.stop_engine()
        job.release.set()
        if not job.done.wait(timeout):
            # A search that ignores stop: abandon it (its thread is a daemon) rather
            # than hang the protocol loop; it will print nothing more.
            with job.lock:
                job.cancelled = True
            self.error("search did not stop in time; abandoned")

    # -- dispatch ----------------------------------------------------------------------

    def handle_line(self, line: str, received_at: float | None = None) -> bool:
        """Handle one input line. Returns False when the engine should exit (``quit``).

        Tokens before the first known command are skipped (``joho debug on`` is
        ``debug on``). ``received_at`` is when the line arrived (monotonic s).
        """
        if received_at is None:
            received_at = time.monotonic()
        words = list(_TOKEN.finditer(line))
        for index, word in enumerate(words):
            command = word.group().lower()
            if command in COMMANDS:
                break
        else:
            if words:
                self.error(f"unknown command {words[0].group()!r}; line ignored")
            return True
        args = [w.group() for w in words[index + 1:]]
        rest = line[word.end():]  # raw text: setoption string values keep their spaces
        if command == "quit":
            return False
        handler = getattr(self, "cmd_" + command)
        try:
            handler(args, rest, received_at)
        except Exception as exc:  # a bug in a handler must not kill the engine
            self.error(f"{command}: internal error {type(exc).__name__}: {exc}")
        return True

    # -- commands ----------------------------------------------------------------------

    def cmd_usi(self, args: list[str], rest: str, received_at: float) -> None:
        """``usi``: identify, list the options, ``usiok`` (all in one write)."""
        self.out.write(f"id name {ENGINE_NAME}", f"id author {ENGINE_AUTHOR}",
                       *self.options.usi_lines(), "usiok")

    def cmd_debug(self, args: list[str], rest: str, received_at: float) -> None:
        """``debug [on|off]``: extra ``info string`` diagnostics (``debug`` alone: on)."""
        word = args[0].lower() if args else "on"
        if word not in ("on", "off"):
            self.error(f"debug: expected on or off, got {args[0][:40]!r}; debug stays "
                       f"{'on' if self.debug else 'off'}")
            return
        self.debug = word == "on"

    def cmd_isready(self, args: list[str], rest: str, received_at: float) -> None:
        """``isready``: do the heavy set-up (imports, hash) if idle, then ``readyok``.

        While a search runs this only prints ``readyok`` (at once).
        """
        job = self._job
        if job is not None and job.answered:
            job.done.wait(1.0)   # its bestmove is out: the engine is idle in a moment
        if self._active_job() is None:
            try:
                self._position_now()
                searcher = self._ensure_searcher()
                if searcher is not None and hasattr(searcher, "set_threads"):
                    searcher.set_threads(int(self.options["Threads"]))  # type: ignore[arg-type]
                    self._apply_eval_options()
                if self._tuning and hasattr(searcher, "set_parameter"):
                    tuning.apply(self.options, searcher)
                want = int(self.options["USI_Hash"])  # type: ignore[arg-type]
                if (searcher is not None and hasattr(searcher, "use_memory")
                        and self._hash.isready(searcher, want)):
                    return  # the allocation thread answers readyok
                if self._needs_new_game:
                    self._forget_game()
            except Exception as exc:  # report, but a GUI must still get readyok
                self.error(f"isready: {type(exc).__name__}: {exc}")
        self.out.write("readyok")

    def cmd_setoption(self, args: list[str], rest: str, received_at: float) -> None:
        """``setoption name <id> [value <x>]``; problems reported, never fatal.

        USI_Hash and Threads take effect at the next ``isready`` while idle.
        """
        for message in self.options.setoption(rest):
            self.info_string(message)

    def cmd_register(self, args: list[str], rest: str, received_at: float) -> None:
        """``register ...``: nothing to register; accepted and ignored."""

    def cmd_usinewgame(self, args: list[str], rest: str, received_at: float) -> None:
        """``usinewgame``: forget per-game state (tables, histories); costs nothing."""
        if self._active_job() is not None:
            # Not expected mid-search; finish it (bestmove printed) rather than
            # forgetting tables under it.
            self._finish_job(cancel=False)
        self._forget_game()
        if self._clock_loss is not None:
            self._clock_loss.forget()

    def cmd_gameover(self, args: list[str], rest: str, received_at: float) -> None:
        """``gameover win|lose|draw``: stop thinking (no bestmove owed), drop game state."""
        self._finish_job(cancel=True)
        self._forget_game()

    def cmd_stop(self, args: list[str], rest: str, received_at: float) -> None:
        """``stop``: the running search ends now and prints its bestmove; idle: ignored."""
        job = self._active_job()
        if job is None:
            return
        with job.lock:
            job.stopped = True
            searching = job.searching
        if searching:
            job.stop_engine()
        job.release.set()

    def cmd_ponderhit(self, args: list[str], rest: str, received_at: float) -> None:
        """``ponderhit``: the ponder search goes on under the clock, started now."""
        job = self._active_job()
        if job is None or not job.params.ponder:
            return  # not pondering: ignored silently
        with job.lock:
            if job.ponderhit_at is not None or job.stopped:
                return
            job.ponderhit_at = received_at
            searching = job.searching
        if searching and self._searcher is not None and job.plan.hard_ms is not None:
            self._searcher.set_deadlines(*_deadlines(job.plan, received_at))
        if self.debug:
            self.info_string(f"ponderhit: soft {job.plan.soft_ms} hard {job.plan.hard_ms} ms")
        job.release.set()

    def cmd_position(self, args: list[str], rest: str, received_at: float) -> None:
        """``position startpos|sfen <sfen> [moves ...]``.

        A bad SFEN keeps the previous position; an illegal move stops there (the
        position is the one before it). Both are reported.
        """
        from usi_engine.core.position import Position, STARTPOS_SFEN

        lowered = [a.lower() for a in args]
        moves_at = lowered.index("moves") if "moves" in lowered else len(args)
        head, moves = args[:moves_at], args[moves_at + 1:]
        head_lower = lowered[:moves_at]
        if "startpos" in head_lower:
            sfen = STARTPOS_SFEN
        elif "sfen" in head_lower:
            fields = head[head_lower.index("sfen") + 1:]
            if not fields:
                self.error("position: sfen needs <board> <side> <hand> [<ply>]; position unchanged")
                return
            sfen = " ".join(fields)
        else:
            self.error("position: expected startpos or sfen; position unchanged")
            return
        try:
            position = Position(sfen)
        except ValueError as exc:
            self.error(f"position: {exc}; position unchanged")
            return
        for number, move in enumerate(moves, start=1):
            try:
                position.push_usi(move)
            except ValueError:
                self.error(f"position: move {number} {move!r} is illegal; "
                           f"position set to the one before it")
                break
        self._position = position

    def cmd_go(self, args: list[str], rest: str, received_at: float) -> None:
        """``go ...``: start a search in a worker thread; returns at once."""
        from usi_engine.usi import timeman
        from usi_engine.usi.go import parse_go

        params, warnings = parse_go(args)
        for warning in warnings:
            self.info_string(warning)
        # A go while still thinking is a GUI error; the old go still gets its bestmove.
        self._finish_job(cancel=False)
        position = self._position_now().copy()
        snapshot = self.options.snapshot()
        if self._clock_loss is None:
            self._clock_loss = timeman.ClockLoss()
        black = position.turn == 0
        plan = timeman.plan(params, side_to_move_is_black=black, ply=position.ply,
                            options=snapshot,
                            measured_loss=self._clock_loss.before_go(params, black, position.ply))
        searchmoves: list[int] = []
        for text in params.searchmoves:
            try:
                searchmoves.append(position.parse_usi(text))
            except ValueError:
                self.error(f"go: searchmoves {text!r} is not a legal move; ignored")
        if params.searchmoves and not searchmoves:
            self.error("go: no legal move in searchmoves; searching all moves")
        if self.debug:
            self.info_string(f"plan soft {plan.soft_ms} hard {plan.hard_ms} depth {plan.depth} "
                             f"nodes {plan.nodes} infinite {plan.infinite} ponder {plan.ponder}")
        try:
            self._hash.wait()
            searcher = self._ensure_searcher()
            if self._needs_new_game and searcher is not None:
                self._forget_game()
        except Exception as exc:
            self.error(f"go: {type(exc).__name__}: {exc}")
        job = SearchJob(position=position, params=params, plan=plan, options=snapshot,
                        started_at=received_at, searchmoves=searchmoves)
        if not job.waits_for_release:
            job.release.set()
        job.thread = threading.Thread(target=self._run_job, args=(job,), name="usi-search",
                                      daemon=True)
        self._job = job
        job.thread.start()

    # -- the worker ----------------------------------------------------------------------

    def _run_job(self, job: SearchJob) -> None:
        """Worker thread: think, wait until the bestmove may be sent, send it once."""
        try:
            lines = self._think(job)
        except Exception as exc:
            # Never leave a go without its bestmove (a go mate without its checkmate
            # line): fall back to any legal move.
            lines = [f"info string error: search failed ({type(exc).__name__}: {exc})",
                     "checkmate timeout" if job.params.mate is not None
                     else self._fallback_bestmove(job.position)]
        job.release.wait()
        with job.lock:
            cancelled = job.cancelled
        job.answered = True
        if not cancelled:
            self.out.write(*lines)
            self._note_think_time(job)
        job.done.set()

    def _note_think_time(self, job: SearchJob) -> None:
        """Tell the clock-loss meter how long this move took on our side of the clock
        (from go, or from ponderhit; a ponder search never hit does not count)."""
        if self._clock_loss is None or job.params.mate is not None:
            return
        start = job.ponderhit_at if job.params.ponder else job.started_at
        self._clock_loss.after_bestmove(
            None if start is None else (time.monotonic() - start) * 1000.0)

    @staticmethod
    def _fallback_bestmove(position: Any) -> str:
        from usi_engine.core.position import move_to_usi
        moves = position.legal_moves()
        return f"bestmove {move_to_usi(moves[0])}" if moves else "bestmove resign"

    def _think(self, job: SearchJob) -> list[str]:
        """Decide the move for ``job``; returns the lines to print (final info, bestmove)."""
        from usi_engine.core.position import move_to_usi

        if job.params.mate is not None:
            return self._solve_mate(job)
        position = job.position
        options = job.options
        legal = position.legal_moves()
        if not legal:
            return ["info string no legal move", "bestmove resign"]
        if options["EnteringKingRule"] == "CSARule27" and position.declaration_win():
            return ["info string entering-king declaration (CSA 27-point rule)", "bestmove win"]
        notes: list[str] = []
        repetition = position.game_repetition()
        if repetition != "none":
            notes.append(f"info string note: the game is already over by repetition ({repetition})")
        max_ply = int(options["MaxMovesToDraw"])
        if max_ply and position.ply > max_ply:
            notes.append(f"info string note: move {position.ply} is past MaxMovesToDraw {max_ply}")

        searcher = self._searcher
        if searcher is None:
            return notes + [f"info string error: {self._search_error or 'no searcher'}",
                            self._fallback_bestmove(position)]

        multipv = int(options["MultiPV"])
        show_multipv = multipv > 1
        last_main_line: list[dict[str, Any]] = []   # the last info printed for the best line

        def on_info(info: dict[str, Any]) -> None:
            # Runs in this worker thread, inside search(). Also closes two races:
            # a stop or ponderhit that arrived just as search() was being entered
            # may have been overwritten by search()'s own start-up, so re-apply.
            with job.lock:
                stopped, cancelled = job.stopped, job.cancelled
                hit = job.ponderhit_at if not job.deadlines_applied else None
                if hit is not None:
                    job.deadlines_applied = True
            if stopped:
                searcher.stop()
            elif hit is not None and job.plan.hard_ms is not None:
                searcher.set_deadlines(*_deadlines(job.plan, hit))
            if not cancelled:
                self.out.write(format_info(info, show_multipv))
                if info.get("multipv", 1) == 1:
                    last_main_line[:] = [info]

        with job.lock:
            if job.params.ponder and job.ponderhit_at is None:
                soft = hard = None  # pondering: no clock until ponderhit
            else:
                base = job.ponderhit_at if job.params.ponder else job.started_at
                soft, hard = _deadlines(job.plan, base)  # type: ignore[arg-type]
                if job.params.ponder:
                    job.deadlines_applied = True
            stopped_early = job.stopped
            if hasattr(searcher, "clear_stop"):
                searcher.clear_stop()      # from here on a stop reaches the search
            job.stopper = searcher.stop
            job.searching = True
        if stopped_early:
            # stop came before the search began: a shallow search still gives a move.
            depth, nodes, soft, hard = 1, 0, None, None
        else:
            depth, nodes = job.plan.depth or 0, job.plan.nodes or 0
        kwargs: dict[str, Any] = dict(
            depth=depth, nodes=nodes, soft_ms=soft, hard_ms=hard, multipv=multipv,
            searchmoves=job.searchmoves or None, max_game_ply=max_ply, on_info=on_info,
            entering_king_rule=options["EnteringKingRule"] == "CSARule27")
        if hasattr(searcher, "clear_stop"):
            kwargs["clear_stop"] = False
            kwargs["mate_probe_ms"] = _mate_probe_budget(hard)
        try:
            result = searcher.search(position, **kwargs)
        except TypeError as exc:
            # A searcher without the entering-king switch (the minimal interface).
            if "entering_king_rule" not in str(exc):
                raise
            del kwargs["entering_king_rule"]
            result = searcher.search(position, **kwargs)

        best = int(result.best or 0)
        if not position.is_legal(best):
            # Defensive: never send an illegal move, whatever the search returned.
            notes.append(f"info string error: search returned an illegal move {best}")
            return notes + [self._fallback_bestmove(position)]
        final = {
            "depth": result.depth, "seldepth": result.seldepth, "time_ms": result.time_ms,
            "nodes": result.nodes,
            "nps": result.nodes * 1000 // max(result.time_ms, 1),
            "hashfull": searcher.hashfull(), "multipv": 1,
            "score_cp": result.score_cp, "score_mate": result.score_mate, "pv": result.pv,
        }
        lines = list(notes)
        if not same_line(final, last_main_line[0] if last_main_line else None):
            # The full statistics before bestmove, unless the last info said it all.
            lines.append(format_info(final, show_multipv))

        analysing = job.plan.infinite or bool(options["USI_AnalyseMode"])
        resign_value = int(options["ResignValue"])
        if not analysing and below_resign_value(result, resign_value):
            lines.append(f"info string resign: score below -{resign_value}")
            return lines + ["bestmove resign"]

        bestmove = f"bestmove {move_to_usi(best)}"
        ponder = int(result.ponder or 0)
        if ponder:
            after = position.copy()
            after.push(best)
            if after.is_legal(ponder):
                bestmove += f" ponder {move_to_usi(ponder)}"
        return lines + [bestmove]

    def _solve_mate(self, job: SearchJob) -> list[str]:
        """`go mate <ms>|infinite`: exactly one `checkmate ...` line, verified mates only."""
        try:
            if self._searcher is None:
                raise RuntimeError(self._search_error or "no searcher")
            # the solver works inside the search's memory (one USI_Hash budget)
            solver = self._searcher.mate_solver()
        except Exception as exc:
            return [f"info string error: mate solver unavailable ({type(exc).__name__}: {exc})",
                    "checkmate notimplemented"]

        def on_info(info: dict[str, Any]) -> None:
            with job.lock:
                stopped, cancelled = job.stopped, job.cancelled
            if stopped:
                solver.stop()
            if not cancelled:
                self.out.write(format_mate_info(info))

        with job.lock:
            limit = (None if job.params.mate == "infinite"
                     else _remaining(job.plan.hard_ms, job.started_at))
            solver.clear_stop()
            job.stopper = solver.stop
            job.searching = True
            stopped_early = job.stopped
        if stopped_early:
            return ["checkmate timeout"]
        result = solver.solve(job.position, time_ms=limit, on_info=on_info, clear_stop=False,
                              published=job.options["MateLength"] == "published")
        final = {"nodes": result.nodes, "time_ms": result.time_ms,
                 "nps": result.nodes * 1000 // result.time_ms if result.time_ms else result.nodes,
                 "hashfull": solver.hashfull()}
        lines = [format_mate_info(final)]
        if result.status == "mate":
            from usi_engine.mate.report import length_note
            lines.append("info string " + length_note(result))   # proven shortest or not
        return lines + [result.usi()]

    # -- the loop ------------------------------------------------------------------------

    def run(self, read: Callable[[], bytes]) -> int:
        """Read and handle lines until ``quit`` or EOF; returns the exit code (0)."""
        for line, received_at in iter_lines(read):
            if not self.handle_line(line, received_at) or self.out.broken:
                break
        return self.shutdown()

    def shutdown(self) -> int:
        """End any search within :data:`QUIT_GRACE_S`, printing the ``bestmove`` (or
        ``checkmate``) it owes, as ``stop`` would (none after ``gameover``); returns 0."""
        job = self._active_job()
        if job is not None:
            with job.lock:
                job.stopped = True
                searching = job.searching
            if searching:
                job.stop_engine()
            job.release.set()
            if not job.done.wait(QUIT_GRACE_S):
                # The search did not return in time: leave without waiting for it
                # (quit must take < 1 s); stdout has been flushed line by line.
                os._exit(0)
        return 0


def main(argv: list[str] | None = None, *, searcher_factory: Callable[[], Any] | None = None) -> int:
    """Run the USI loop on stdin/stdout; returns the process exit code.

    ``argv`` is accepted for symmetry with the other commands and ignored.
    """
    stdin_fd = sys.stdin.fileno()
    engine = UsiEngine(sys.stdout.buffer, searcher_factory=searcher_factory)

    def read() -> bytes:
        # os.read returns whatever has arrived (not a full buffer), so a line is
        # handled as soon as it is written, and a lone CR still ends it.
        try:
            return os.read(stdin_fd, 65536)
        except InterruptedError:
            return read()
        except OSError:
            return b""

    try:
        return engine.run(read)
    except KeyboardInterrupt:
        # Ctrl-C in a terminal ends the loop as quit does, without a traceback.
        return engine.shutdown()


if __name__ == "__main__":
    sys.exit(main())
