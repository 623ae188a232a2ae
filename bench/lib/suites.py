"""Readers of the reference files the bench scripts use, one implementation each.

The ``name | field | field ...`` line format (``#`` starts a comment) and tsume suites
are read by the package, :mod:`usi_engine.mate.suites` (as ``usi-engine mate --suite``
reads them), and re-exported here:

* ``name | field | field ...`` lines: :func:`read_fields`;
* tsume suites, ``name | sfen | length`` (``?`` or nothing: length unknown), a line with
  an SFEN alone accepted too, the strict-length flag from a header holding
  :data:`STRICT_MARK`: :func:`read_tsume_suite` (SystemExit naming the line where
  ``exact`` fields are missing);

and, on top of those lines, the formats only bench reads:

* positions, ``name | sfen`` (a bare SFEN is named by its line): :func:`read_positions`;
* perft references, ``name | sfen | depth=count ...``: :func:`read_perft_file`;
* openings, one ``startpos moves ...`` (or ``sfen ... moves ...``) a line:
  :func:`read_openings`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from usi_engine.mate import suites as mate_suites
from usi_engine.mate.suites import STRICT_MARK, TsumeProblem, read_fields

__all__ = ["STRICT_MARK", "TsumeProblem", "read_fields", "read_tsume_suite",
           "read_positions", "PerftReference", "read_perft_file", "read_openings",
           "split_opening"]


def read_tsume_suite(path: str | Path, exact: bool = False) -> list[TsumeProblem]:
    """The problems of a tsume suite file (:func:`usi_engine.mate.suites.read_tsume_suite`).
    ``exact``: every line must have the three fields (SystemExit naming the line
    otherwise, for the scripts' command lines)."""
    try:
        return mate_suites.read_tsume_suite(path, exact=exact)
    except mate_suites.SuiteFormatError as exc:
        raise SystemExit(str(exc)) from None


def read_positions(path: str | Path) -> list[tuple[str, str]]:
    """[(name, sfen)] from ``name | sfen`` lines (a bare SFEN: named by its line)."""
    return [(parts[0], parts[1]) if len(parts) > 1 else (f"line {n}", parts[0])
            for n, parts in read_fields(path)]


@dataclass(frozen=True)
class PerftReference:
    name: str
    sfen: str
    counts: dict[int, int]


def read_perft_file(path: str | Path) -> list[PerftReference]:
    """sfen/perft.txt: ``name | sfen | depth=count ...``."""
    return [PerftReference(parts[0], parts[1],
                           {int(d): int(c) for d, c in (kv.split("=") for kv in parts[2].split())})
            for _n, parts in read_fields(path)]


def read_openings(path: str | Path) -> list[str]:
    """The opening lines of a file (``startpos moves ...`` or ``sfen ... moves ...``)."""
    return [line for _n, line in mate_suites.suite_lines(path)]


def split_opening(line: str) -> tuple[str, list[str]]:
    """(``startpos`` or ``sfen ...``, moves) of an opening line (a bare list of moves
    starts from the start position).

    >>> split_opening("startpos moves 7g7f 3c3d")
    ('startpos', ['7g7f', '3c3d'])
    >>> split_opening("7g7f")
    ('startpos', ['7g7f'])
    """
    words = line.split()
    if not words:
        return "startpos", []
    if words[0] == "startpos":
        return "startpos", words[2:]
    if words[0] == "sfen":
        split = words.index("moves") if "moves" in words else len(words)
        return "sfen " + " ".join(words[1:split]), words[split + 1:]
    if words[0] == "moves":
        return "startpos", words[1:]
    return "startpos", words
