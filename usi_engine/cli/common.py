"""What every command shares: exit codes, one-line errors, bounded number arguments,
progress notes on a terminal."""
from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, NoReturn


#: Exit code for bad input (as argparse uses); 130 for Ctrl-C, as shells do; 141
#: (128 + SIGPIPE, as a C program killed by SIGPIPE) when the reader of the output
#: went away (``usi-engine bench | head -1``): writing stops, without a traceback.
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
#: Upper bounds of the numeric arguments the commands share: what the core takes (C
#: ints), or what could ever finish.
MAX_HASH_MB = 32768              # as USI_Hash
MAX_TIME_MS = 2**31 - 1          # 24 days


def fail(message: str, command: str = "") -> int:
    """One line on stderr (``usi-engine[ command]: error: ...``); returns the usage
    exit code."""
    print(f"usi-engine{' ' + command if command else ''}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def progress_note(text: str) -> None:
    """A progress note on stderr, only when stderr is a terminal (rewritten in place)."""
    if sys.stderr.isatty():
        from usi_engine.console.progress import in_place
        print(in_place(text), end="", file=sys.stderr, flush=True)


def nodes_line(nodes: int, seconds: float) -> str:
    ms = int(seconds * 1000)
    return f"nodes {nodes} time_ms {ms} nps {int(nodes / seconds) if seconds > 0 else 0}"


class CommandParser(argparse.ArgumentParser):
    """argparse with one-line errors: ``usi-engine perft: error: ...`` and exit 2
    (the usage is in --help)."""

    def error(self, message: str) -> "NoReturn":  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def _ascii_int(text: str) -> int:
    digits = text[1:] if text[:1] in "+-" else text
    if not digits or not all(ch in "0123456789" for ch in digits):
        raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}")
    return int(text)


def _ascii_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None


def _bounded(convert: Callable[[str], Any], low: Any, high: Any, name: str
             ) -> Callable[[str], Any]:
    """An argparse type: convert(text), which must lie from low to high (NaN never does)."""
    def parse(text: str) -> Any:
        value = convert(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {text[:40]}")
        return value
    parse.__name__ = name
    return parse


def int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer (ASCII digits) from low to high."""
    return _bounded(_ascii_int, low, high, "integer")


def float_in(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a number from low to high."""
    return _bounded(_ascii_float, low, high, "number")


def train_from_arguments(train: Callable[..., Any], config: Callable[..., Any],
                         args: Any, **own: Any) -> int:
    """learn's and learn-net's run: the arguments both take (epochs, batch size, rates,
    the win-rate scale, the score cap, the held-out share, the seed) and ``own`` into
    ``config``, then ``train(data, out, config, log)``; exit code 0, or 2 with the
    trainer's ValueError on one line."""
    try:
        cfg = config(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                     lambda_=args.lambda_, scale=args.scale, max_score=args.max_score,
                     val_fraction=args.val_fraction, seed=args.seed, **own)
        train(args.data, args.out, cfg, log=lambda line: print(line, flush=True))
    except ValueError as exc:
        return fail(str(exc))
    return 0
