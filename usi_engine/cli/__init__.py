"""The command line: ``usi-engine`` speaks USI on stdin/stdout; its commands count and
time (perft, bench), solve tsume (mate), play on a CSA server (csa), make and learn from
training data (gensfen, relabel, learn, learn-net), handle books (book), and convert and
analyse game records (convert, analyze). Each command is a module of this package with
its parser (``add_*_parser``) and its run function (``cmd_*``).

bench and tsume solving.

    usi-engine                                   # the USI loop
    usi-engine perft 5 [--sfen SFEN] [--divide]  # last line: nodes N time_ms T nps X
    usi-engine bench [--depth D]                 # last line: nodes N time_ms T nps X
    usi-engine mate SFEN [--time-ms T]           # USI `checkmate ...`, then whether the
                                                 # length is proven shortest
    usi-engine csa --host H --id ID ...          # play on a CSA server (floodgate)
    usi-engine gensfen --out DIR --positions N   # self-play training data (PackedSfenValue)
    usi-engine learn DATA... --out kp.bin        # train the learned evaluation on it
    usi-engine learn-net DATA... --out kpnn.bin  # train the network on top of it
    usi-engine relabel DATA... --out DIR --engine CMD  # a USI teacher's scores instead
    usi-engine convert IN --to {usi,kif,ki2,csa,jkf} [-o OUT]  # game records
    usi-engine book convert|merge|sort|think|from-records ...  # opening books
    usi-engine analyze RECORDS_OR_FOLDERS --out DIR [--nodes N]  # game analysis reports

Bad arguments get one line on stderr and exit code 2; Ctrl-C one line and 130; a
closed output pipe (``usi-engine bench | head -1``) stops the command quietly with 141
(128 + SIGPIPE, as shells report a command killed by SIGPIPE).
"""
from __future__ import annotations

import errno
import os
import sys
from typing import TYPE_CHECKING

from usi_engine import __version__

# numpy's BLAS threads spin on idle cores after start-up; only the training
# commands do linear algebra, and bench or perft would share the cores with them
# (1-3% of a bench profile was OpenBLAS spinning). Set before numpy is imported.
if not any(arg in ("learn", "learn-net") for arg in sys.argv[1:2]):
    for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_variable, "1")

# The commands' modules (and argparse) are imported only when there is a command line
# to parse: a GUI starting the USI loop (no arguments) waits for none of them (the
# analysis and training commands alone took some 30 ms of the 100 ms budget for
# `usi` -> `usiok`).
from usi_engine.cli.usi import cmd_usi  # noqa: E402

if TYPE_CHECKING:
    import argparse

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    from usi_engine.cli.common import CommandParser
    from usi_engine.cli.analyze import add_analyze_parser
    from usi_engine.cli.bench import add_bench_parser
    from usi_engine.cli.book import add_book_parser
    from usi_engine.cli.convert import add_convert_parser
    from usi_engine.cli.csa import add_csa_parser
    from usi_engine.cli.gensfen import add_gensfen_parser
    from usi_engine.cli.learn import add_learn_parser
    from usi_engine.cli.learn_net import add_learn_net_parser
    from usi_engine.cli.mate import add_mate_parser
    from usi_engine.cli.perft import add_perft_parser
    from usi_engine.cli.relabel import add_relabel_parser
    parser = CommandParser(
        prog="usi-engine",
        description="A shogi engine speaking USI. Without a command it runs the USI loop "
                    "on stdin/stdout (register the usi-engine executable in a GUI); the "
                    "commands below count and time (perft, bench), solve tsume (mate), "
                    "play on a CSA server (csa), make and learn from training data "
                    "(gensfen, relabel, learn, learn-net), handle books (book), convert "
                    "and analyse game records (convert, analyze).",
        epilog="Bad arguments: one line on stderr and exit code 2. Ctrl-C: exit code "
               "130. Output piped into a reader that stops early (usi-engine bench | "
               "head -1): the command stops quietly with exit code 141 (128 + SIGPIPE).")
    parser.add_argument("--version", action="version", version=f"usi_engine {__version__}")
    sub = parser.add_subparsers(dest="command", title="commands", parser_class=CommandParser)
    add_perft_parser(sub)
    add_mate_parser(sub)
    add_bench_parser(sub)
    add_csa_parser(sub)
    add_gensfen_parser(sub)
    add_learn_parser(sub)
    add_learn_net_parser(sub)
    add_relabel_parser(sub)
    add_book_parser(sub)
    add_analyze_parser(sub)
    add_convert_parser(sub)
    return parser


def _break_is_interrupt() -> None:
    """On Windows, Ctrl-Break (CTRL_BREAK_EVENT, which is all a parent can send to a
    process group of its own) stops a command as Ctrl-C does, not by killing it."""
    import signal
    import threading
    ctrl_break = getattr(signal, "SIGBREAK", None)      # Windows only
    if ctrl_break is not None and threading.current_thread() is threading.main_thread():
        signal.signal(ctrl_break, signal.default_int_handler)


def _replace_unencodable() -> None:
    """A console that cannot show a character (a Western Windows console and a problem's
    Japanese name, or the help's Japanese terms) gets '?', never a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    _break_is_interrupt()
    if not argv:
        return cmd_usi()
    from usi_engine.cli.common import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, progress_note
    _replace_unencodable()
    args = build_parser().parse_args(argv)
    if args.command is None:
        return cmd_usi(args)
    try:
        code = args.func(args)
        sys.stdout.flush()      # here, not at exit, so that a closed pipe is caught
        return code
    except KeyboardInterrupt:
        progress_note("")
        print("usi-engine: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as exc:
        if not is_closed_pipe(exc):
            raise
        _drop_stdout()
        return EXIT_BROKEN_PIPE


def is_closed_pipe(exc: BaseException) -> bool:
    """Whether ``exc`` is what writing to a pipe whose reader is gone raises:
    BrokenPipeError (EPIPE) on POSIX; on Windows also a plain OSError with EINVAL
    (the C runtime's answer to a write on a closed pipe)."""
    if isinstance(exc, BrokenPipeError):
        return True
    return (sys.platform == "win32" and isinstance(exc, OSError)
            and exc.errno == errno.EINVAL)


def _drop_stdout() -> None:
    """The reader of stdout is gone: point stdout at /dev/null so that nothing more
    (Python's flush at exit included) fails or prints a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
