"""What the ``usi-engine book`` commands (:mod:`usi_engine.cli.book`) do with books:
read and write any format by its name (``.db`` text, ``.bin`` Apery), one canonical
entry a position, the search of one position for ``book think`` and its worker, the
positions an opening file and a book's own moves lead to, and the games of record
files for ``book from-records``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from usi_engine.record.usi import split_position_line
from usi_engine.book.model import BookMove, MemoryBook, NO_MOVE, sort_moves
from usi_engine.notation.score import MATE_VALUE
from usi_engine.notation.sfen import split_ply
from usi_engine.console.progress import in_place

__all__ = ["bin_to_memory", "fill_ponders", "read_any", "write_any", "normalised", "is_bin",
           "think_position", "think_worker_init", "think_task", "opening_positions",
           "children", "games_of_file", "records_of_file"]


def progress_note(text: str) -> None:
    if sys.stderr.isatty():
        print(in_place(text), end="", file=sys.stderr, flush=True)


def is_bin(path: str) -> bool:
    return path.lower().endswith(".bin")


def bin_to_memory(path: str, root: str | None = None, unreg_depth: int = 1,
                  progress: Callable[[int], None] | None = None) -> MemoryBook:
    """A .bin book as a text book: the .bin holds keys, not positions, so walk the
    tree from ``root`` (default: the start position) through every legal move,
    keeping the positions found in the book; a position off the book is looked
    through for ``unreg_depth`` plies more (transpositions). Moves illegal in a
    position (a key collision) leave that position out. Ponder moves are the next
    position's first book move."""
    from usi_engine.book.apery import APERY_DEPTH, AperyBook, apery_key
    from usi_engine.core.position import Position, STARTPOS_SFEN

    bin_book = AperyBook(path)
    out = MemoryBook()
    seen: set[str] = set()
    stack: list[tuple[Position, int]] = [(Position(root or STARTPOS_SFEN), unreg_depth)]
    while stack:
        position, budget = stack.pop()
        sfen = position.sfen()
        key_text = split_ply(sfen)[0]
        entries = bin_book.find_key(apery_key(sfen))
        if entries:
            if key_text in seen:
                continue
            seen.add(key_text)
            legal = []
            for entry in entries:
                try:
                    legal.append(position.parse_usi(entry.move))
                except ValueError:
                    break
            if len(legal) != len(entries):
                continue
            out.set_moves(sfen, entries)
            if progress is not None and len(seen) % 1000 == 0:
                progress(len(seen))
            budget = unreg_depth
        elif budget <= 0:
            continue
        else:
            budget -= 1
        for legal_move in position.legal_moves():
            child = position.copy()
            child.push(legal_move)
            stack.append((child, budget))
    # (a .bin holds no depth: unknown, written 0 as a .db line without one, not the
    # APERY_DEPTH it is given for play)
    fill_ponders(out, lambda move: 0 if move.depth == APERY_DEPTH else move.depth)
    return out


def fill_ponders(book: MemoryBook, depth_of: Callable[[BookMove], int] = lambda m: m.depth
                 ) -> None:
    """Each move's ponder: the first (most played) move of the position it leads to, or
    none; ``depth_of`` gives the depth each move keeps."""
    from usi_engine.core.position import Position
    for sfen, moves in list(book.items()):
        position = Position(sfen)
        filled = []
        for move in moves:
            child = position.copy()
            child.push_usi(move.move)
            reply = book.find(child.sfen(), ignore_ply=True)
            filled.append(BookMove(move.move, reply[0].move if reply else NO_MOVE,
                                   move.value, depth_of(move), move.count))
        book.set_moves(sfen, filled)


def read_any(path: str, root: str | None = None) -> MemoryBook:
    if is_bin(path):
        return bin_to_memory(path, root=root, progress=lambda n: progress_note(f"{path}: {n} positions"))
    from usi_engine.book.textdb import read_db
    return read_db(path, progress=lambda n: progress_note(f"{path}: {n} positions"))


def write_any(path: str, book: MemoryBook) -> int:
    from usi_engine.book import write_book
    return write_book(path, book)


def normalised(book: MemoryBook) -> MemoryBook:
    """Every SFEN rewritten by the Position (canonical hands); bad ones dropped."""
    from usi_engine.core.position import Position
    out = MemoryBook()
    for sfen, moves in book.items():
        try:
            canonical = Position(sfen).sfen()
        except ValueError:
            print(f"usi-engine book: skipping a bad position: sfen {sfen[:100]}", file=sys.stderr)
            continue
        for move in moves:
            out.add(canonical, move, add_counts=True)
    return out


# --- think ------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def think_worker_init(hash_mb: int, eval_file: str | None) -> None:
    from usi_engine.search.searcher import Searcher
    searcher = Searcher()
    searcher.set_hash(hash_mb)
    if eval_file:
        from usi_engine.eval.loader import load_network
        searcher.set_evaluation(load_network(eval_file))
    _WORKER["searcher"] = searcher


def _mate_value(mate: int) -> int:
    return MATE_VALUE - mate if mate > 0 else -(MATE_VALUE + mate)


def think_position(sfen: str, depth: int, multipv: int, searcher: Any = None) -> list[BookMove]:
    """The book moves of one position: a search to ``depth`` with MultiPV ``multipv``;
    each line's first move, its second (the ponder), its score (mover's view; a mate
    in n as 32000 - n) and the depth."""
    from usi_engine.core.position import Position, move_to_usi
    searcher = searcher or _WORKER.get("searcher")
    if searcher is None:
        think_worker_init(16, None)
        searcher = _WORKER["searcher"]
    position = Position(sfen)
    by_depth: dict[int, dict[int, dict[str, Any]]] = {}

    def on_info(info: dict[str, Any]) -> None:
        if info.get("bound") or not info.get("pv") or info.get("depth") is None:
            return
        by_depth.setdefault(int(info["depth"]), {})[int(info.get("multipv", 1))] = dict(info)

    searcher.new_game()
    result = searcher.search(position, depth=depth, multipv=multipv, on_info=on_info)
    lines = by_depth.get(max(by_depth)) if by_depth else None
    if not lines:
        if not result.best:
            return []
        lines = {1: {"pv": [result.best] + ([result.ponder] if result.ponder else []),
                     "score_cp": result.score_cp, "score_mate": result.score_mate,
                     "depth": result.depth}}
    moves = []
    for index in sorted(lines):
        info = lines[index]
        pv = info["pv"]
        value = (_mate_value(int(info["score_mate"])) if info.get("score_mate") is not None
                 else int(info.get("score_cp") or 0))
        moves.append(BookMove(move_to_usi(pv[0]), move_to_usi(pv[1]) if len(pv) > 1 else NO_MOVE,
                              value, int(info["depth"]), 1))
    return moves


def think_task(task: tuple[str, int, int]) -> tuple[str, list[BookMove]]:
    sfen, depth, multipv = task
    return sfen, think_position(sfen, depth, multipv)


def opening_positions(path: str, plies: int) -> list[str]:
    """Every position within the first ``plies`` moves of each line of an opening file
    (the start and each position before one of those moves), each once."""
    from usi_engine.core.position import Position
    found: dict[str, str] = {}
    with open(path, encoding="utf-8") as stream:
        for line in stream:
            parsed = split_position_line(line)
            if parsed is None:
                continue
            position = Position(parsed[0])
            for index in range(plies + 1):
                sfen = position.sfen()
                key, ply = split_ply(sfen)
                if key not in found or split_ply(found[key])[1] > ply:
                    found[key] = sfen
                if index == plies or index >= len(parsed[1]):
                    break
                position.push_usi(parsed[1][index])
    return list(found.values())


def children(sfen: str, moves: list[BookMove], max_ply: int) -> list[str]:
    """The positions after each move of ``sfen`` that the book would play under the
    default book options (BookEvalDiff and the BookEval*Limit), up to ply ``max_ply``."""
    from usi_engine.book.select import BookSettings, playable
    from usi_engine.core.position import Position
    position = Position(sfen)
    if position.ply >= max_ply:
        return []
    found = []
    for move in playable(moves, position.turn, BookSettings()):
        try:
            after = position.copy()
            after.push_usi(move.move)
        except ValueError:
            continue
        found.append(after.sfen())
    return found


# --- from-records ------------------------------------------------------------------------

_RECORD_SUFFIXES = (".kif", ".kifu", ".ki2", ".ki2u", ".csa", ".jkf", ".json")
_WINNERS = {"black_win": 0, "white_win": 1}


def games_of_file(path: str) -> Iterator[tuple[str, list[str], int | None]]:
    """``(start SFEN, USI moves, winner colour or None)`` of each game in a file."""
    if path.lower().endswith(_RECORD_SUFFIXES):
        yield from records_of_file(path)
        return
    from usi_engine.core.position import Position
    with open(path, encoding="utf-8", errors="replace") as stream:
        for number, line in enumerate(stream, start=1):
            try:
                parsed = split_position_line(line)
            except ValueError as exc:
                print(f"usi-engine book: {path}:{number}: {exc}; skipped", file=sys.stderr)
                continue
            if parsed is None or not parsed[1]:
                continue
            sfen, moves = parsed
            winner = None
            try:
                end = Position(sfen)
                for move in moves:
                    end.push_usi(move)
                if not end.legal_moves():        # the side to move is mated
                    winner = 1 - end.turn
            except ValueError:
                pass                              # reported when the moves are replayed
            yield sfen, moves, winner


def records_of_file(path: str) -> Iterator[tuple[str, list[str], int | None]]:
    """The games of a KIF/KI2/CSA/JKF file (usi_engine.record), main lines only; the
    winner from the record's result."""
    from usi_engine.record import RecordError, read_record
    try:
        records = read_record(path)
    except RecordError as exc:
        print(f"usi-engine book: {exc}; file skipped", file=sys.stderr)
        return
    for record in records:
        yield record.start_sfen, list(record.moves), _WINNERS.get(record.result or "")


