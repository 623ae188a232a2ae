"""The ``position`` command's arguments, read strictly.

USI allows exactly ``position startpos [moves m1 m2 ...]`` and ``position sfen <board>
<side> <hand> [<ply>] [moves m1 m2 ...]``.  Anything else (``move`` for ``moves``, a
move with no ``moves`` before it, a fifth SFEN field) is a :class:`PositionLineError`
naming the token, so that a GUI's typo is never searched as the start position.
Whether the SFEN and the moves make sense is the position's business: this module
only splits the line.

    >>> parse_position_line("startpos moves 7g7f 3c3d".split())
    PositionLine(sfen=None, moves=['7g7f', '3c3d'])
    >>> try:
    ...     parse_position_line("startpos 7g7f".split())
    ... except PositionLineError as exc:
    ...     print(exc)
    unexpected token '7g7f' after startpos (expected moves)
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PositionLine", "PositionLineError", "parse_position_line", "read_position_text"]

#: board, side to move, hand; then the optional move number
_SFEN_FIELDS = 3
_SHOWN = 40           # the longest token quoted back in an error


class PositionLineError(ValueError):
    """A ``position`` line that USI does not allow; the message names the bad token."""


@dataclass
class PositionLine:
    """A ``position`` line split: ``sfen`` None for ``startpos``, and the move texts."""

    sfen: str | None
    moves: list[str] = field(default_factory=list)


def _quoted(token: str) -> str:
    return repr(token if len(token) <= _SHOWN else token[:_SHOWN] + "...")


def parse_position_line(args: list[str]) -> PositionLine:
    """Split the tokens after ``position``; PositionLineError on anything USI does not
    allow (the keywords ``startpos``, ``sfen`` and ``moves`` in any letter case)."""
    if not args:
        raise PositionLineError("expected startpos or sfen, got nothing")
    words = [a.lower() for a in args]
    if words[0] == "startpos":
        sfen, rest = None, 1
    elif words[0] == "sfen":
        sfen, rest = _sfen_fields(args, words)
    else:
        raise PositionLineError(f"expected startpos or sfen, got {_quoted(args[0])}")
    if rest == len(args):
        return PositionLine(sfen)
    if words[rest] != "moves":
        after = "startpos" if sfen is None else "the sfen"
        raise PositionLineError(f"unexpected token {_quoted(args[rest])} after {after} "
                                f"(expected moves)")
    return PositionLine(sfen, list(args[rest + 1:]))


def _sfen_fields(args: list[str], words: list[str]) -> tuple[str, int]:
    """The SFEN text after ``sfen`` and the index of the token after it."""
    end = words.index("moves") if "moves" in words else len(args)
    fields = args[1:end]
    if len(fields) < _SFEN_FIELDS:
        raise PositionLineError(f"sfen needs <board> <side> <hand> [<ply>], got "
                                f"{len(fields)} field{'s' if len(fields) != 1 else ''}")
    # (a fourth field is the move number: the SFEN's own check names it if it is none)
    count = min(len(fields), _SFEN_FIELDS + 1)
    return " ".join(fields[:count]), 1 + count


def read_position_text(text: str) -> PositionLine | None:
    """A position as records, books and ``Position(text)`` take it: ``[position]
    startpos|sfen <SFEN>|<SFEN> [moves m1 m2 ...]``, the bare SFEN standing for ``sfen
    <SFEN>``; None for a blank line or a comment (``#``, ``//``). The rest is read by
    :func:`parse_position_line`, so its errors are the ``position`` command's.

    >>> read_position_text("position startpos moves 7g7f").moves
    ['7g7f']
    >>> read_position_text("4k4/9/9/9/9/9/9/9/4K4 b - 1 moves 5i4h")
    PositionLine(sfen='4k4/9/9/9/9/9/9/9/4K4 b - 1', moves=['5i4h'])
    """
    words = text.split()
    if not words or words[0].startswith(("#", "//")):
        return None
    if words[0].lower() == "position":
        words = words[1:]
    if words and words[0].lower() not in ("startpos", "sfen"):
        words = ["sfen"] + words
    return parse_position_line(words)
