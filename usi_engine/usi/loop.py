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
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from usi_engine import __version__

from usi_engine.usi import tuning
from usi_engine.usi.clock import MoveClock
from usi_engine.usi.hashsize import HashSizer
from usi_engine.usi.options import Options
from usi_engine.usi.info import below_resign_value, format_info, format_mate_info, same_line
from usi_engine.usi.stdio import Output, iter_lines

if TYPE_CHECKING:                     # the compiled core's types, for the checker only
    from usi_engine.core.position import Position
    from usi_engine.core.tt import HashMemory
    from usi_engine.eval.kp import Network
    from usi_engine.mate.solver import MateSolver
    from usi_engine.search.searcher import SearchResult


class EngineSearcher(Protocol):
    """What the loop asks of its searcher (:class:`usi_engine.search.searcher.Searcher`
    has it all; a stand-in in a test subclasses it): the evaluation, threads and
    parameters set at ``isready``, the table memory handed over by :class:`HashSizer`,
    the tsume solver that lives in that memory, and the search with its stop and
    deadlines, which the protocol thread may change while it runs."""

    def set_evaluation(self, network: Network | None) -> None: ...
    def set_parameter(self, name: str, value: int) -> None: ...
    def set_threads(self, threads: int) -> None: ...
    def use_memory(self, memory: HashMemory) -> None: ...
    @property
    def hash_mb(self) -> int: ...
    def release_memory(self) -> None: ...
    def mate_solver(self) -> MateSolver: ...
    def new_game(self) -> None: ...
    def hashfull(self) -> int: ...
    def stop(self) -> None: ...
    def clear_stop(self) -> None: ...
    def set_deadlines(self, soft_ms: float | None, hard_ms: float | None) -> None: ...
    def search(self, position: Position, *, depth: int = 0, nodes: int = 0,
               soft_ms: float | None = None, hard_ms: float | None = None,
               multipv: int = 1, searchmoves: Iterable[int] | None = None,
               max_game_ply: int = 0, entering_king_rule: bool | str = True,
               on_info: Callable[[dict[str, Any]], None] | None = None,
               clear_stop: bool = True, mate_probe_ms: int = 0, draw_value: int = 0,
               pv_interval: int = 0, extend_pv: bool = False,
               bound_pv_after_ms: int = -1, clock: MoveClock | None = None) -> SearchResult: ...

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
    "eval", "e",            # (YaneuraOu's: the static evaluation of the current position)
})

# A token is any run of non-blanks; spaces and tabs (any whitespace) separate them.
_TOKEN = re.compile(r"\S+")

#: How long ``quit``/EOF waits for a running search to wind down before the process
#: leaves anyway (the spec allows 1 s in total).
QUIT_GRACE_S = 0.5
#: The nodes of the proof a `go mate` still makes when stop or quit came before its
#: solver began (a mate in a few plies takes a few hundred; some milliseconds).
STOPPED_EARLY_MATE_NODES = 20_000
#: The longest ``info string`` printed: input echoed in an error (a 100 kB token) is
#: cut to this many characters.
MAX_INFO_STRING = 400
#: How long a new ``go``/``gameover``/``usinewgame`` waits for the previous search to end
#: after stopping it; a search that ignores ``stop`` longer than this is abandoned.
JOIN_TIMEOUT_S = 2.0


# --- one go ---------------------------------------------------------------------------


class SearchJob:
    """The state of one ``go``, shared by the main thread and its worker.

    ``lock`` guards the fields the two threads both touch (``stopped``,
    ``cancelled``, ``searching``; the clock has its own); ``release`` is set when the
    ``bestmove`` may be printed (at once for a normal ``go``; at ``stop`` for
    ``go infinite``; at ``ponderhit``/``stop`` for ``go ponder``); ``done`` is set
    when the worker has finished (its ``bestmove`` printed or suppressed).
    """

    def __init__(self, position: Any, params: Any, clock: MoveClock, options: dict[str, Any],
                 started_at: float, searchmoves: list[int] | None = None,
                 full_position: Any = None, stochastic: bool = False,
                 measured_loss: int | None = None) -> None:
        self.position = position      # a private copy of the Position (the GUI may send a new one)
        self.params = params          # go.GoParams
        self.clock = clock            # the plan (timeman.TimePlan) and when its clock started
        self.options = options        # options snapshot at go time
        self.started_at = started_at  # time.perf_counter() when the go line arrived
        self.searchmoves: list[int] = [] if searchmoves is None else searchmoves
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.done = threading.Event()
        self.stopped = False          # stop/quit/gameover asked the search to end
        self.cancelled = False        # gameover/quit: print no bestmove
        self.searching = False        # Searcher.search has been entered
        self.answered = False         # its bestmove/checkmate is being written: done at once
        self.thread: threading.Thread | None = None
        self.stopper: Callable[[], None] | None = None  # stops whichever engine the job runs
        # the position the GUI sent (differs under Stochastic_Ponder)
        self.full_position = full_position
        self.stochastic = stochastic  # Stochastic_Ponder: thinking on the position before it
        self.measured_loss = measured_loss  # timeman.ClockLoss's figure at go time

    @property
    def plan(self) -> Any:
        """The time plan (timeman.TimePlan) the clock counts."""
        return self.clock.plan

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


def _replaced(record: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` for go.GoParams and timeman.TimePlan; imported here, where
    those modules have imported it already, not at start-up (see usi/record.py)."""
    import dataclasses
    return dataclasses.replace(record, **changes)


def _line_score(info: dict[str, Any]) -> int:
    """A reported line's score in centipawns, a mate as +-30000 less its plies."""
    mate = info.get("score_mate")
    if mate is not None:
        return 30000 - int(mate) if int(mate) > 0 else -30000 - int(mate)
    return int(info.get("score_cp") or 0)


def _final_report(final: dict[str, Any], block: list[dict[str, Any]],
                  last_block: dict[int, dict[str, Any]], show_multipv: bool) -> list[str]:
    """The info lines before bestmove: the full statistics of the result, unless the
    last lines printed said it all. Under MultiPV N the whole block of N lines (with
    the final node count), since a GUI shows the newest block it reads."""
    if show_multipv and block:
        if all(same_line(info, last_block.get(index))
               for index, info in enumerate(block, start=1)):
            return []
        return [format_info(info, True) for info in block]
    if same_line(final, last_block.get(1)):
        return []
    return [format_info(final, show_multipv)]


def _mate_probe_budget(hard_ms: int | None) -> int:
    """Time for the df-pn probe that runs before the tree search: a tenth of the hard
    deadline up to 200 ms (300 ms when unlimited), none under 500 ms."""
    if hard_ms is None:
        return 300
    if hard_ms < 500:
        return 0
    return min(200, hard_ms // 10)


#: How each EnteringKingRule is named in the info string of a declaration.
RULE_NAMES = {"CSARule27": "CSA 27-point rule", "CSARule27H": "CSA 27-point rule, handicap",
              "CSARule24": "24-point rule", "CSARule24H": "24-point rule, handicap"}

#: OutputFailLHPV: a fail-low/high line is reported only once a search has run this long
#: (YaneuraOu's 3 s), so that short searches do not flood the GUI with bounds.
FAIL_PV_AFTER_MS = 3000


def _report_settings(job: "SearchJob") -> dict[str, Any]:
    """How the search reports: PvInterval (0 under go infinite and ConsiderationMode, as
    in YaneuraOu: an analysing GUI shows every iteration), PV extension from the table
    (ConsiderationMode), fail-low/high lines (OutputFailLHPV, never in ConsiderationMode)."""
    options = job.options
    consider = bool(options["ConsiderationMode"])
    interval = 0 if consider or job.plan.infinite else int(options["PvInterval"])
    bounds = bool(options["OutputFailLHPV"]) and not consider
    return {"pv_interval": interval, "extend_pv": consider,
            "bound_pv_after_ms": FAIL_PV_AFTER_MS if bounds else -1}


# --- DebugLogFile ------------------------------------------------------------------------


class DebugLog:
    """The DebugLogFile option: every line in (``>``) and out (``<``), each with a local
    timestamp to the millisecond, appended to a file; off while the path is empty.

    Example::

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "usi.log")
        >>> log = DebugLog(); log.use(path)
        []
        >>> log.write(">", "usi"); log.use("")
        []
        >>> open(path).read().split(" ", 2)[2]
        '> usi\\n'
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._file: Any = None
        self.path = ""

    def use(self, path: str) -> list[str]:
        """Log to ``path`` from now on ("" = off); returns problems to report."""
        with self._lock:
            if path == self.path:
                return []
            if self._file is not None:
                self._file.close()
                self._file = None
            self.path = ""
            if not path:
                return []
            try:
                self._file = open(path, "a", encoding="utf-8", errors="replace")
            except OSError as exc:
                return [f"DebugLogFile: cannot open {path!r} ({exc.strerror or exc}); "
                        f"no log is written"]
            self.path = path
            return []

    def write(self, direction: str, *lines: str) -> None:
        """Append ``lines`` (``direction`` ``>`` in, ``<`` out), flushed at once."""
        if self._file is None:
            return
        now = time.time()
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)) + f".{int(now * 1000) % 1000:03d}"
        with self._lock:
            if self._file is None:
                return
            try:
                self._file.write("".join(f"{stamp} {direction} {line}\n" for line in lines))
                self._file.flush()
            except (OSError, ValueError):
                pass   # a full disk must not stop the engine


class LoggedOutput(Output):
    """stdout that also hands every line to a :class:`DebugLog`."""

    def __init__(self, stream: BinaryIO, log: DebugLog) -> None:
        super().__init__(stream)
        self._log = log

    def write(self, *lines: str) -> None:
        self._log.write("<", *lines)      # first: the log's order is the pipe's order
        super().write(*lines)


# --- the engine ---------------------------------------------------------------------------


class UsiEngine:
    """The protocol state machine. Feed it lines with :meth:`handle_line`.

    ``output``: a binary stream (stdout's buffer). ``searcher_factory``: builds the
    searcher (default: ``usi_engine.search.searcher.Searcher``, imported on first use);
    tests may pass a stand-in with the same interface.
    """

    def __init__(self, output: BinaryIO, searcher_factory: Callable[[], EngineSearcher] | None = None) -> None:
        self._debug_log = DebugLog()
        self.out = LoggedOutput(output, self._debug_log)
        self.options = Options()
        self._tuning = tuning.enabled()        # search parameters as options (USI_ENGINE_TUNE)
        if self._tuning:
            for spec in tuning.option_specs():
                self.options.add(spec)
        self.debug = False
        self._searcher_factory = searcher_factory
        self._searcher: EngineSearcher | None = None
        self._search_error: str | None = None  # why the searcher could not be made
        self._eval_loader: Any = None  # EvalType/EvalFile state (eval.loader.EvalLoader)
        self._needs_new_game = False           # TT/histories to forget before next search
        self._position: Any = None             # current Position (None until first needed)
        self._skill_rng: Any = None            # SkillLevel's choices (random.Random)
        self._clock_loss: Any = None           # timeman.ClockLoss, made at the first go
        self._job: SearchJob | None = None     # the last go (maybe finished)
        self._hash = HashSizer(self.out.write, after=self._forget_game_if_asked)
        self._book_loader: Any = None          # BookFile's book (usi_engine.book), at isready
        self._book_rng: Any = None             # random.Random of the book's choices

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
        fv_scale = int(self.options["FV_SCALE"])  # type: ignore[arg-type]
        for message in self._eval_loader.apply(str(self.options["EvalType"]),
                                               str(self.options["EvalFile"]),
                                               str(self.options["EvalDir"]), fv_scale):
            self.info_string(message)
        if self._searcher is not None:
            self._searcher.set_evaluation(self._eval_loader.network)

    def _apply_book_options(self) -> None:
        """BookFile/BookDir/BookOnTheFly take effect (at isready): the book is read now,
        never before ``usiok``, and not at all under ``USI_OwnBook false``."""
        book_file = str(self.options["BookFile"]).strip()
        if (not book_file or os.path.basename(book_file) == "no_book"   # YaneuraOu's name
                or not self.options["USI_OwnBook"]):    # (read at the isready that wants it)
            if self._book_loader is not None:
                self._book_loader.apply("", "", False)         # drops the book it held
            return                     # no book asked for: nothing to import or read
        if self._book_loader is None:
            from usi_engine.book.loader import BookLoader
            self._book_loader = BookLoader()
        for message in self._book_loader.apply(str(self.options["BookFile"]),
                                               str(self.options["BookDir"]),
                                               bool(self.options["BookOnTheFly"])):
            self.info_string(message)

    def _book_move(self, job: SearchJob) -> list[str] | None:
        """The lines of a book move for ``job`` (info lines, bestmove), or None to search.
        Not under go infinite (analysis), nor for the opponent's move (Stochastic_Ponder)."""
        loader = self._book_loader
        if (loader is None or loader.book is None or not job.options["USI_OwnBook"]
                or job.plan.infinite or job.stochastic):
            return None
        import random
        from usi_engine.book.select import BookSettings, probe
        if self._book_rng is None:
            self._book_rng = random.Random()
        hit, notes = probe(loader.book, job.position, BookSettings.from_options(job.options),
                           self._book_rng, job.searchmoves or None)
        if hit is None:
            for note in notes:
                self.info_string(note)
            return None
        return hit.usi_lines()

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
        ``debug on``). ``received_at`` is when the line arrived (time.perf_counter() s).
        """
        if received_at is None:
            received_at = time.perf_counter()
        self._debug_log.write(">", line)
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
                if searcher is not None:
                    searcher.set_threads(int(self.options["Threads"]))  # type: ignore[arg-type]
                    self._apply_eval_options()
                if self._tuning and searcher is not None:
                    tuning.apply(self.options, searcher)
                self._apply_book_options()
                want = int(self.options["USI_Hash"])  # type: ignore[arg-type]
                if searcher is not None and self._hash.isready(searcher, want):
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
        was = self._debug_log.path
        for message in self._debug_log.use(str(self.options["DebugLogFile"])):
            self.info_string(message)
        if self._debug_log.path and self._debug_log.path != was:
            self._debug_log.write(">", "setoption" + rest.rstrip())

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

    def cmd_eval(self, args: list[str], rest: str, received_at: float) -> None:
        """``eval`` (and YaneuraOu's short ``e``): ``eval = V``, the static evaluation
        of the current position for the side to move, in the engine's units (90 a pawn:
        YaneuraOu's internal units, its own value with an nn.bin), by the evaluation that
        the options chose (taken as at isready)."""
        self._apply_eval_options()
        network = self._eval_loader.network
        sfen = self._position_now().sfen()
        if network is not None:
            value = network.evaluate(sfen)
        else:
            from usi_engine.eval.handwritten import evaluate_sfen
            value = evaluate_sfen(sfen)
        self.out.write(f"eval = {value}")

    cmd_e = cmd_eval

    def cmd_ponderhit(self, args: list[str], rest: str, received_at: float) -> None:
        """``ponderhit [btime B wtime W byoyomi Y binc I winc I]``: the ponder search goes
        on under the clock, started now; clocks given here (ShogiHome's early ponder)
        replace those of the ``go ponder``. Under Stochastic_Ponder the search on the
        position before the guessed move ends (its bestmove unsaid) and a new one starts
        on the position the GUI sent."""
        from usi_engine.usi import timeman
        from usi_engine.usi.go import parse_go

        job = self._active_job()
        if job is None or not job.params.ponder:
            return  # not pondering: ignored silently
        params = job.params
        if args:
            given, warnings = parse_go(args)
            for warning in warnings:
                self.info_string(warning)
            clocks = {name: getattr(given, name)
                      for name in ("btime", "wtime", "binc", "winc", "byoyomi", "movestogo")
                      if getattr(given, name) is not None}
            if clocks:
                params = _replaced(params, **clocks)
        if job.stochastic:
            with job.lock:
                if job.stopped:
                    return
            self._finish_job(cancel=True)
            self._launch(_replaced(params, ponder=False), job.full_position,
                         job.options, job.measured_loss, received_at)
            return
        plan = None
        if params is not job.params:
            position = job.full_position
            plan = _replaced(
                timeman.plan(params, side_to_move_is_black=position.turn == 0,
                             ply=position.ply, options=job.options,
                             measured_loss=job.measured_loss), ponder=True)
        with job.lock:
            if job.stopped:
                return
        if not job.clock.start(received_at, plan):
            return      # a second ponderhit
        if self.debug:
            self.info_string(f"ponderhit: soft {job.plan.soft_ms} hard {job.plan.hard_ms} ms")
        job.release.set()

    def cmd_position(self, args: list[str], rest: str, received_at: float) -> None:
        """``position startpos|sfen <sfen> [moves ...]``.

        A line USI does not allow (``move`` for ``moves``, a stray token) or a bad SFEN
        keeps the previous position; an illegal move stops there (the position is the
        one before it). Each is reported with an ``info string error``.
        """
        from usi_engine.core.position import Position, STARTPOS_SFEN
        from usi_engine.notation.position_line import PositionLineError, parse_position_line

        try:
            line = parse_position_line(args)
        except PositionLineError as exc:
            self.error(f"position: {exc}; position unchanged")
            return
        sfen = STARTPOS_SFEN if line.sfen is None else line.sfen
        moves = line.moves
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
        if self._clock_loss is None:
            self._clock_loss = timeman.ClockLoss()
        loss = self._clock_loss.before_go(params, position.turn == 0, position.ply)
        self._launch(params, position, self.options.snapshot(), loss, received_at)

    def _launch(self, params: Any, position: Any, snapshot: dict[str, Any],
                loss: int | None, received_at: float) -> None:
        """Plan the clock and start the worker for a go on ``position`` (the GUI's)."""
        from usi_engine.usi import timeman

        plan = timeman.plan(params, side_to_move_is_black=position.turn == 0, ply=position.ply,
                            options=snapshot, measured_loss=loss)
        think_on = position
        stochastic = (params.ponder and params.mate is None
                      and bool(snapshot["Stochastic_Ponder"]) and position.history_length > 0)
        if stochastic:
            # Stochastic_Ponder: think on the position before the guessed move, where the
            # opponent is to move; ponderhit starts a search on `position` itself.
            think_on = position.copy()
            think_on.pop()
        searchmoves: list[int] = []
        for text in params.searchmoves:
            try:
                searchmoves.append(think_on.parse_usi(text))
            except ValueError:
                self.error(f"go: searchmoves {text!r} is not a legal move; ignored")
        if params.searchmoves and not searchmoves:
            self.error("go: no legal move in searchmoves; searching all moves")
        if self.debug:
            self.info_string(f"plan soft {plan.soft_ms} hard {plan.hard_ms} depth {plan.depth} "
                             f"nodes {plan.nodes} infinite {plan.infinite} ponder {plan.ponder} "
                             f"loss {'unmeasured' if loss is None else loss}"
                             + (" stochastic" if stochastic else ""))
        try:
            self._hash.wait()
            searcher = self._ensure_searcher()
            if self._needs_new_game and searcher is not None:
                self._forget_game()
        except Exception as exc:
            self.error(f"go: {type(exc).__name__}: {exc}")
        clock = MoveClock(plan, None if params.ponder else received_at)
        job = SearchJob(position=think_on, params=params, clock=clock, options=snapshot,
                        started_at=received_at, searchmoves=searchmoves,
                        full_position=position, stochastic=stochastic, measured_loss=loss)
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
        start = job.clock.started_at
        self._clock_loss.after_bestmove(
            None if start is None else (time.perf_counter() - start) * 1000.0)

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
        from usi_engine.core.referee import game_over
        position = job.position
        options = job.options
        rule = str(options["EnteringKingRule"])
        max_ply = int(options["MaxMovesToDraw"])
        # (under Stochastic_Ponder the opponent is to move: its declaration is no move of ours)
        ended = game_over(position, "NoEnteringKing" if job.stochastic else rule, max_ply)
        if ended is not None and ended.reason == "no legal move":
            # mated (or no move at all): said at once, as YaneuraOu says it; under go
            # infinite or ponder only the bestmove waits for stop
            self.out.write("info depth 0 score mate -0")
            return ["bestmove resign"]
        if rule == "TryRule" and not job.stochastic:
            tried = position.try_move()
            if tried:
                return ["info string try rule: the king steps onto the enemy king's square",
                        f"bestmove {move_to_usi(tried)}"]
        if ended is not None and ended.reason == "declaration":
            return [f"info string entering-king declaration ({RULE_NAMES[rule]})",
                    "bestmove win"]
        book = self._book_move(job)
        if book is not None:
            return book
        notes: list[str] = []
        repetition = position.game_repetition()
        if ended is not None and ended.reason in ("repetition", "perpetual check"):
            notes.append(f"info string note: the game is already over by repetition ({repetition})")
        if ended is not None and ended.reason == "move limit":
            notes.append(f"info string note: move {position.ply} is past MaxMovesToDraw {max_ply}")

        searcher = self._searcher
        if searcher is None:
            return notes + [f"info string error: {self._search_error or 'no searcher'}",
                            self._fallback_bestmove(position)]

        multipv = int(options["MultiPV"])
        show_multipv = multipv > 1
        last_block: dict[int, dict[str, Any]] = {}   # the last info printed for each line
        skill = self._skill(job)
        searched_lines = max(multipv, skill.lines())    # (SkillLevel chooses among more)

        def on_info(info: dict[str, Any]) -> None:
            # (runs in this worker thread, inside search(); it only reports: stop and
            # ponderhit reach the search through its stop flag and the clock)
            with job.lock:
                cancelled = job.cancelled
            if not cancelled and int(info.get("multipv", 1)) <= multipv:
                self.out.write(format_info(info, show_multipv))
                last_block[int(info.get("multipv", 1))] = info

        with job.lock:
            stopped_early = job.stopped
            searcher.clear_stop()          # from here on a stop reaches the search
            job.stopper = searcher.stop
            job.searching = True
        clock: MoveClock | None = job.clock
        if stopped_early:
            # stop came before the search began: a shallow search still gives a move.
            depth, nodes, clock = 1, 0, None
        else:
            depth, nodes = job.plan.depth or 0, job.plan.nodes or 0
            limit = skill.depth_limit()
            if limit is not None:
                depth = min(depth, limit) if depth else limit
        hard = None if clock is None else clock.deadlines()[1]
        kwargs: dict[str, Any] = dict(
            depth=depth, nodes=nodes, clock=clock, multipv=searched_lines,
            searchmoves=job.searchmoves or None, max_game_ply=max_ply, on_info=on_info)
        extras: dict[str, Any] = dict(entering_king_rule=rule, **_report_settings(job))
        # (DrawValueBlack/White: what a draw is worth to us, the colour the GUI's
        # position has to move; under Stochastic_Ponder the root is the opponent's)
        ours = job.full_position if job.full_position is not None else position
        draw = int(options["DrawValueBlack" if ours.turn == 0 else "DrawValueWhite"])
        extras["draw_value"] = draw if position.turn == ours.turn else -draw
        kwargs["clear_stop"] = False
        kwargs["mate_probe_ms"] = _mate_probe_budget(hard)
        try:
            result = searcher.search(position, **kwargs, **extras)
        finally:
            job.clock.detach()

        block = result.lines[:multipv] if show_multipv else []
        chosen = None
        if not skill.full and len(result.lines) > 1:
            chosen, block = self._skill_choice(skill, result.lines, multipv)
            result.best = chosen["pv"][0]
            result.ponder = chosen["pv"][1] if len(chosen["pv"]) > 1 else 0
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
        if chosen is not None:
            # (the move played is the last line 1 a GUI reads, with its own score)
            final.update(score_cp=chosen.get("score_cp"), score_mate=chosen.get("score_mate"),
                         pv=chosen["pv"])
            last_block = {}
        lines = list(notes) + _final_report(final, block, last_block, show_multipv)

        analysing = job.plan.infinite or bool(options["USI_AnalyseMode"])
        resign_value = int(options["ResignValue"])
        if not analysing and not job.stochastic and below_resign_value(result, resign_value):
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

    @staticmethod
    def _skill(job: SearchJob) -> Any:
        """The SkillLevel of this go: full strength under go infinite, USI_AnalyseMode
        and for the opponent's move (Stochastic_Ponder), where the truth is wanted."""
        from usi_engine.search.skill import Skill
        if job.plan.infinite or job.options["USI_AnalyseMode"] or job.stochastic:
            return Skill()
        return Skill(int(job.options["SkillLevel"]))

    def _skill_choice(self, skill: Any, infos: list[dict[str, Any]],
                      multipv: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The line SkillLevel plays among the searched ``infos`` (best first), and the
        block to report: the chosen line first, then the others up to MultiPV."""
        import random
        if self._skill_rng is None:
            self._skill_rng = random.Random()
        scores = [_line_score(info) for info in infos]
        chosen = infos[skill.choose(scores, self._skill_rng)]
        others = [info for info in infos if info is not chosen][:multipv - 1]
        block = [dict(info, multipv=index)
                 for index, info in enumerate([chosen, *others], start=1)]
        return chosen, block if multipv > 1 else []

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

        interval_s = int(job.options["PvInterval"]) / 1000.0
        last_line = [float("-inf")]

        def on_info(info: dict[str, Any]) -> None:
            # (the solver's progress about every 500 ms, no more often than PvInterval,
            # and its notes on the phases: a mate found, the longest defence settled)
            with job.lock:
                cancelled = job.cancelled
            if cancelled:
                return
            if "string" in info:
                self.info_string(str(info["string"]))
                return
            now = time.perf_counter()
            if now - last_line[0] >= interval_s:
                last_line[0] = now
                self.out.write(format_mate_info(info))

        with job.lock:
            limit = None if job.params.mate == "infinite" else job.clock.deadlines()[1]
            solver.clear_stop()
            job.stopper = solver.stop
            job.searching = True
            stopped_early = job.stopped
        from usi_engine.mate.solver import defender_moves_first
        level = job.options["PostSearchLevel"]
        ways = dict(published=job.options["MateLength"] == "published",
                    shortest=level != "None", upper_bound=level == "UpperBound",
                    defender_first=defender_moves_first(
                        job.position, bool(job.options["RootIsAndNodeIfChecked"])))
        if stopped_early:
            # stop (or quit) came before the solver began: a small bounded proof still
            # answers a short mate, as a stopped search still gives a move
            result = solver.solve(job.position, nodes=STOPPED_EARLY_MATE_NODES,
                                  clear_stop=False, **ways)
        else:
            # go nodes N mate ..., or NodesLimit: a bound on the whole solve
            result = solver.solve(job.position, time_ms=limit, nodes=job.clock.plan.nodes or 0,
                                  on_info=on_info, clear_stop=False, **ways)
        final: dict[str, Any] = {
            "nodes": result.nodes, "time_ms": result.time_ms,
            "nps": result.nodes * 1000 // result.time_ms if result.time_ms else result.nodes,
            "hashfull": solver.hashfull()}
        if result.status == "mate":
            # (negative when the side to move is the one mated)
            final.update(score_mate=-len(result.pv) if ways["defender_first"] else len(result.pv),
                         pv=list(result.pv))
        lines = [format_mate_info(final)]
        if result.status == "mate":
            from usi_engine.mate.report import length_note
            lines.append("info string " + length_note(result))   # proven shortest or not
            if job.options["MateCheck"] and ways["defender_first"]:
                lines.append("info string MateCheck: not run, the side to move defends "
                             "(a composition's check starts with the attacker's move)")
            elif job.options["MateCheck"] and not stopped_early:
                from usi_engine.mate.check import check_composition, report_lines
                report = check_composition(job.position, result.pv, solver=solver,
                                           clear_stop=False)
                lines.extend("info string " + line for line in report_lines(report))
        return lines + [result.usi()]

    # -- the loop ------------------------------------------------------------------------

    def run(self, read: Callable[[], bytes]) -> int:
        """Read and handle lines until ``quit`` or EOF; returns the exit code (0)."""
        def said_cp932(line: str) -> None:
            self.info_string("input line not UTF-8: read as CP932 (Shift-JIS): " + line)

        for line, received_at in iter_lines(read, said_cp932):
            if not self.handle_line(line, received_at) or self.out.broken:
                break
        return self.shutdown()

    def close_log(self) -> None:
        """Close the DebugLogFile (at exit)."""
        self._debug_log.use("")

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


def main(argv: list[str] | None = None, *, searcher_factory: Callable[[], EngineSearcher] | None = None) -> int:
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
