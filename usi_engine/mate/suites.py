"""Tsume suite files: the one reader of the ``name | sfen | length`` format.

A suite file (``sfen/tsume/*.txt``) holds one problem a line::

    # a comment; blank lines are skipped too
    m1 | 4k4/9/4P4/9/9/9/9/9/9 b G 1 | 1
    koten | 3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1 | 3
    4k4/9/4P4/9/9/9/9/9/9 b G 1

fields separated by ``|`` and stripped: the problem's name, its SFEN and the published
length in plies (``?``, nothing or anything not a number: unknown).  A line holding only
an SFEN is a problem named ``line N``.  A ``#`` comment line holding
:data:`STRICT_MARK` says that the lengths count every defence, useless interpositions
included (the generated suites, whose lengths a full-width search verified); published
compositions do not.  ``usi-engine mate --suite`` and the bench scripts read suites
here; the same ``name | field | ...`` lines serve bench's other reference files
(:func:`read_fields`, :func:`suite_lines`).

    >>> from usi_engine.mate.suites import read_tsume_suite           # doctest: +SKIP
    >>> [(p.name, p.length) for p in read_tsume_suite("sfen/tsume/classic.txt")][:1]  # doctest: +SKIP
    [('...', 3)]

Errors: OSError for a file that cannot be opened, UnicodeDecodeError for one that is not
UTF-8 text, ValueError (:class:`SuiteFormatError`) for a line without the three fields
when they are required (``exact=True``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["STRICT_MARK", "SuiteFormatError", "TsumeProblem", "read_fields",
           "read_tsume_suite", "suite_is_strict", "suite_lines"]

#: A '#' comment line holding this says that the suite's lengths count every defence,
#: useless interpositions included (strict minimax), rather than as published.
STRICT_MARK = "lengths: strict minimax"


class SuiteFormatError(ValueError):
    """A suite line that does not have the fields required."""


@dataclass(frozen=True)
class TsumeProblem:
    """One problem of a suite file."""
    suite: str             # the file's stem
    name: str
    sfen: str
    length: int | None     # the published length in plies; None: unknown
    strict: bool           # the suite's lengths count useless interpositions (STRICT_MARK)


def _raw_lines(path: str | Path) -> list[str]:
    """The file's lines (universal newlines, without line ends)."""
    with open(path, encoding="utf-8") as lines:
        return [line.rstrip("\n") for line in lines]


def suite_lines(path: str | Path) -> list[tuple[int, str]]:
    """(line number from 1, stripped text) of every line that is neither blank nor a
    ``#`` comment."""
    out = []
    for number, line in enumerate(_raw_lines(path), start=1):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append((number, line))
    return out


def read_fields(path: str | Path) -> list[tuple[int, list[str]]]:
    """(line number, the line's stripped ``|``-separated fields) of every line that is
    neither blank nor a ``#`` comment."""
    return [(number, [part.strip() for part in line.split("|")])
            for number, line in suite_lines(path)]


def suite_is_strict(path: str | Path) -> bool:
    """Does the suite file say, in a line starting with ``#``, that its lengths are
    strict (:data:`STRICT_MARK`)?"""
    return any(line.startswith("#") and STRICT_MARK in line for line in _raw_lines(path))


def read_tsume_suite(path: str | Path, exact: bool = False) -> list[TsumeProblem]:
    """The problems of a suite file, in order.  A line of one field is an SFEN named
    ``line N``; the length is the third field when it is all digits, else None.  With
    `exact`, every line must have exactly the three fields (SuiteFormatError naming the
    file and line otherwise)."""
    strict = suite_is_strict(path)
    stem = Path(path).stem
    problems = []
    for number, parts in read_fields(path):
        if exact and len(parts) != 3:
            raise SuiteFormatError(f"{path}:{number}: expected 'name | sfen | length', "
                                   f"got {' | '.join(parts)!r}")
        if len(parts) == 1:
            problems.append(TsumeProblem(stem, f"line {number}", parts[0], None, strict))
        else:
            length = parts[2] if len(parts) > 2 else "?"
            problems.append(TsumeProblem(stem, parts[0], parts[1],
                                         int(length) if length.isdigit() else None, strict))
    return problems
