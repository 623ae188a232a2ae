"""Readers of the reference files the bench scripts use, one implementation each.

* ``name | field | field ...`` lines (``#`` starts a comment): :func:`read_fields`;
* tsume suites, ``name | sfen | length`` (``?`` or nothing: length unknown), a line with
  an SFEN alone accepted too: :func:`read_tsume_suite`;
* positions, ``name | sfen`` (a bare SFEN is named by its line): :func:`read_positions`;
* perft references, ``name | sfen | depth=count ...``: :func:`read_perft_file`;
* openings, one ``startpos moves ...`` (or ``sfen ... moves ...``) a line:
  :func:`read_openings`.

The package has its own copy of the tsume reader for ``usi-engine mate --suite``
(``usi_engine/__main__.py``, ``read_tsume_suite``); this one adds the suite's
strict-length flag.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: A header line holding this says that the suite's lengths count every defence,
#: useless interpositions included (the generated suites, whose lengths a full-width
#: search verified); published compositions do not.
STRICT_MARK = "lengths: strict minimax"


def _lines(path: str | Path) -> list[tuple[int, str]]:
    out = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append((number, line))
    return out


def read_fields(path: str | Path) -> list[tuple[int, list[str]]]:
    """(line number, stripped ``|``-separated fields) of every non-comment line."""
    return [(n, [part.strip() for part in line.split("|")]) for n, line in _lines(path)]


@dataclass(frozen=True)
class TsumeProblem:
    suite: str             # the file's stem
    name: str
    sfen: str
    length: int | None     # None: unknown
    strict: bool           # lengths count useless interpositions (STRICT_MARK)


def read_tsume_suite(path: str | Path, exact: bool = False) -> list[TsumeProblem]:
    """The problems of a tsume suite file.  ``exact``: every line must have the three
    fields (SystemExit naming the line otherwise)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    strict = any(line.startswith("#") and STRICT_MARK in line for line in text.splitlines())
    problems = []
    for number, parts in read_fields(path):
        if exact and len(parts) != 3:
            raise SystemExit(f"{path}:{number}: expected 'name | sfen | length', "
                             f"got {' | '.join(parts)!r}")
        if len(parts) == 1:
            problems.append(TsumeProblem(path.stem, f"line {number}", parts[0], None, strict))
        else:
            length = parts[2] if len(parts) > 2 else "?"
            problems.append(TsumeProblem(path.stem, parts[0], parts[1],
                                         int(length) if length.isdigit() else None, strict))
    return problems


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
    return [line for _n, line in _lines(path)]


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
