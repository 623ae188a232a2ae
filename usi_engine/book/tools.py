"""The ``usi-engine book`` commands: convert, merge, sort, think, from-records.

Each ``cmd_*`` takes the parsed arguments and returns an exit code; progress goes to
stderr when it is a terminal; the last stdout line sums up what was written.
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

__all__ = ["bin_to_memory", "cmd_convert", "cmd_merge", "cmd_sort", "cmd_think",
           "cmd_from_records", "think_position", "main_book"]

#: A score of mate in n plies as a book value (YaneuraOu's convention).


def _progress(text: str) -> None:
    if sys.stderr.isatty():
        print(in_place(text), end="", file=sys.stderr, flush=True)


def _is_bin(path: str) -> bool:
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
    # ponder: the next position's first move
    for sfen, moves in list(out.items()):
        position = Position(sfen)
        filled = []
        for move in moves:
            child = position.copy()
            child.push_usi(move.move)
            reply = out.find(child.sfen(), ignore_ply=True)
            ponder = reply[0].move if reply else NO_MOVE
            # (a .bin holds no depth: unknown, written 0 as a .db line without one,
            # not the APERY_DEPTH it is given for play)
            depth = 0 if move.depth == APERY_DEPTH else move.depth
            filled.append(BookMove(move.move, ponder, move.value, depth, move.count))
        out.set_moves(sfen, filled)
    return out


def _read_any(path: str, root: str | None = None) -> MemoryBook:
    if _is_bin(path):
        return bin_to_memory(path, root=root, progress=lambda n: _progress(f"{path}: {n} positions"))
    from usi_engine.book.textdb import read_db
    return read_db(path, progress=lambda n: _progress(f"{path}: {n} positions"))


def _write_any(path: str, book: MemoryBook) -> int:
    from usi_engine.book import write_book
    return write_book(path, book)


def _normalised(book: MemoryBook) -> MemoryBook:
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


def cmd_convert(args: argparse.Namespace) -> int:
    """.db <-> .bin (or .db -> .db, sorted)."""
    start = time.perf_counter()
    book = _read_any(args.input, root=args.root)
    _progress("")
    written = _write_any(args.output, book)
    what = "entries" if _is_bin(args.output) else "positions"
    print(f"book {args.output}: {written} {what} from {len(book)} positions "
          f"seconds {time.perf_counter() - start:.1f}")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    """Several books into one (counts summed; the deeper entry's value)."""
    merged = MemoryBook()
    for path in args.inputs:
        merged.merge(_normalised(_read_any(path)))
    _progress("")
    written = _write_any(args.output, merged)
    print(f"book {args.output}: {written} {'entries' if _is_bin(args.output) else 'positions'} "
          f"from {len(args.inputs)} books")
    return 0


def cmd_sort(args: argparse.Namespace) -> int:
    """A text book sorted for binary search (canonical SFENs, one entry a position)."""
    from usi_engine.book.textdb import read_db, write_db
    book = _normalised(read_db(args.input))
    written = write_db(args.output or args.input, book)
    print(f"book {args.output or args.input}: {written} positions sorted")
    return 0


# --- think ------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _worker_init(hash_mb: int, eval_file: str | None) -> None:
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
        _worker_init(16, None)
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


def _think_task(task: tuple[str, int, int]) -> tuple[str, list[BookMove]]:
    sfen, depth, multipv = task
    return sfen, think_position(sfen, depth, multipv)


def _opening_positions(path: str, plies: int) -> list[str]:
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


def _roots(args: argparse.Namespace) -> tuple[MemoryBook, list[str]]:
    """The book to keep counts from (an input book, else empty) and the positions to
    think: a book's, the first --plies plies of an opening file's lines, or the start
    position for the input ``startpos``."""
    from usi_engine.core.position import Position
    if args.input == "startpos":
        return MemoryBook(), [Position().sfen()]
    if args.input.lower().endswith((".db", ".bin")):
        source = _normalised(_read_any(args.input))
        return source, [sfen for sfen, _ in source.items()]
    return MemoryBook(), _opening_positions(args.input, args.plies)


def _children(sfen: str, moves: list[BookMove], max_ply: int) -> list[str]:
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


def cmd_think(args: argparse.Namespace) -> int:
    """Search each position of a book (or of an opening file's first N plies) and
    write the lines with their values and depths; with --expand-plies, follow the moves
    the book would play, breadth first, to that ply; resumable."""
    from usi_engine.book.textdb import read_db
    from usi_engine.cluster.arguments import check_ray
    problem = check_ray(getattr(args, "ray", None))
    if problem:
        raise ValueError(problem)
    start = time.perf_counter()
    source, positions = _roots(args)
    out = read_db(args.output) if os.path.exists(args.output) and not _is_bin(args.output) \
        else MemoryBook()
    stats = {"thought": 0, "skipped": 0}
    last_save = [time.perf_counter()]

    def store(sfen: str, moves: list[BookMove]) -> None:
        merged = {m.move: m for m in (source.find(sfen, ignore_ply=True) or [])}
        for old in out.find(sfen, ignore_ply=True) or []:
            merged.setdefault(old.move, old)
        for move in moves:
            known = merged.get(move.move)
            merged[move.move] = BookMove(move.move, move.ponder, move.value, move.depth,
                                         known.count if known is not None else 1)
        out.set_moves(sfen, sort_moves(merged.values()))

    def think_level(level: list[str], pool: Any) -> None:
        todo = []
        for sfen in level:
            done = out.find(sfen, ignore_ply=True)
            if done and all(m.depth >= args.depth for m in done):
                stats["skipped"] += 1
            else:
                todo.append(sfen)
        tasks = [(sfen, args.depth, args.multipv) for sfen in todo]
        answers = pool.map(_think_task, tasks) if pool else map(_think_task, tasks)
        for finished, (sfen, moves) in enumerate(answers, start=1):
            store(sfen, moves)
            stats["thought"] += 1
            _progress(f"book think: {finished}/{len(tasks)} positions of this level, "
                      f"{len(out)} in the book, {time.perf_counter() - start:.0f} s")
            if time.perf_counter() - last_save[0] > args.save_every:
                _write_any(args.output, out)
                last_save[0] = time.perf_counter()

    def run(pool: Any) -> None:
        seen = {split_ply(sfen)[0] for sfen in positions}
        level = sorted(positions)
        while level:
            think_level(level, pool)
            if not args.expand_plies:
                return
            following = []
            for sfen in level:
                for child in _children(sfen, out.find(sfen, ignore_ply=True) or [],
                                       args.expand_plies):
                    key = split_ply(child)[0]
                    if key not in seen and len(seen) < args.max_positions:
                        seen.add(key)
                        following.append(child)
            level = sorted(following)

    try:
        if getattr(args, "ray", None) is not None:
            from usi_engine.cluster.ray_pool import RayPool
            with RayPool(args.ray or None, _worker_init,
                         (args.hash, args.eval_file)) as ray_pool:
                run(ray_pool)
        elif args.workers <= 1:
            _worker_init(args.hash, args.eval_file)
            run(None)
        else:
            from concurrent.futures import ProcessPoolExecutor
            with ProcessPoolExecutor(args.workers, initializer=_worker_init,
                                     initargs=(args.hash, args.eval_file)) as pool:
                run(pool)
    finally:
        _progress("")
        _write_any(args.output, out)
    print(f"book {args.output}: thought {stats['thought']} positions, skipped "
          f"{stats['skipped']} already at depth {args.depth}, {len(out)} positions "
          f"seconds {time.perf_counter() - start:.1f}")
    return 0


# --- from-records ------------------------------------------------------------------------

_RECORD_SUFFIXES = (".kif", ".kifu", ".ki2", ".ki2u", ".csa", ".jkf", ".json")
_WINNERS = {"black_win": 0, "white_win": 1}


def _games_of_file(path: str) -> Iterator[tuple[str, list[str], int | None]]:
    """``(start SFEN, USI moves, winner colour or None)`` of each game in a file."""
    if path.lower().endswith(_RECORD_SUFFIXES):
        yield from _records_of_file(path)
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


def _records_of_file(path: str) -> Iterator[tuple[str, list[str], int | None]]:
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


def cmd_from_records(args: argparse.Namespace) -> int:
    """A book of the moves played in games: each (position, move) counted."""
    from usi_engine.core.position import Position
    book = MemoryBook()
    games = used = 0
    for path in args.inputs:
        for sfen, moves, winner in _games_of_file(path):
            games += 1
            if args.winner_only and winner is None:
                continue
            try:
                position = Position(sfen)
            except ValueError as exc:
                print(f"usi-engine book: {path}: {exc}; game skipped", file=sys.stderr)
                continue
            used += 1
            for text in moves:
                if position.ply > args.max_ply:
                    break
                try:
                    move = position.parse_usi(text)
                except ValueError:
                    print(f"usi-engine book: {path}: illegal move {text} in "
                          f"sfen {position.sfen()}; rest of the game skipped", file=sys.stderr)
                    break
                if not args.winner_only or position.turn == winner:
                    book.add(position.sfen(), BookMove(text, NO_MOVE, 0, 0, 1), add_counts=True)
                position.push(move)
            _progress(f"book from-records: {games} games")
    _progress("")
    # ponder: the next position's most played move
    for sfen, book_moves in list(book.items()):
        position = Position(sfen)
        filled = []
        for book_move in book_moves:
            child = position.copy()
            child.push_usi(book_move.move)
            reply = book.find(child.sfen(), ignore_ply=True)
            filled.append(BookMove(book_move.move, reply[0].move if reply else NO_MOVE,
                                   book_move.value, book_move.depth, book_move.count))
        book.set_moves(sfen, filled)
    written = _write_any(args.output, book)
    print(f"book {args.output}: {written} {'entries' if _is_bin(args.output) else 'positions'} "
          f"from {used} of {games} games")
    return 0


def main_book(args: argparse.Namespace) -> int:
    """Dispatch ``usi-engine book <action>``."""
    return {"convert": cmd_convert, "merge": cmd_merge, "sort": cmd_sort,
            "think": cmd_think, "from-records": cmd_from_records}[args.action](args)
