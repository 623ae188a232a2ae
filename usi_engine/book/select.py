"""Choosing a book move: YaneuraOu's book options applied to one position.

:func:`probe` looks the position up (and, with FlippedBook, the colour-flipped
position), drops moves that are not legal here (each reported), prints every
filters them by the options and picks one. The chosen move is reported first, as the
line a GUI attaches to the move played (its book value and depth); the other
candidates follow as ``multipv 2..N`` lines only under ``MultiPV`` N > 1.

The options (the names YaneuraOu's users know), as :class:`BookSettings`:

* ``USI_OwnBook``: use the book at all.
* ``BookMoves``: only while the position's ply (SFEN move number) is at most this.
* ``BookIgnoreRate``: percent chance of ignoring the book at a position.
* ``NarrowBook``: leave out moves chosen in under 10% of the position's count.
* ``BookDepthLimit``: no book move when the first candidate's depth is below this
  (0: any depth).
* ``BookEvalDiff``: keep moves whose value is within this of the best value.
* ``BookEvalBlackLimit`` / ``BookEvalWhiteLimit``: keep only moves valued at least
  this for black / white to move.
* ``ConsiderBookMoveCount``: pick in proportion to the counts (else uniformly).
* ``BookPvMoves``: length of the PV shown, followed through the book.
* ``IgnoreBookPly``: match a position whatever its ply.
* ``FlippedBook``: look up the colour-flipped position too.
* ``MultiPV``: how many candidates are reported (the chosen move first).
"""
from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from usi_engine.book.model import BookMove, is_move_text
from usi_engine.notation.sfen import flip_move, flip_sfen

__all__ = ["BookSettings", "BookHit", "probe", "lookup", "playable", "value_floor", "LookupBook"]


class LookupBook(Protocol):
    def find(self, sfen: str, ignore_ply: bool = False) -> list[BookMove] | None: ...


@dataclass(frozen=True)
class BookSettings:
    """The book options of one ``go`` (defaults: YaneuraOu's)."""

    own_book: bool = True
    book_moves: int = 16
    ignore_rate: int = 0
    eval_diff: int = 30
    eval_black_limit: int = 0
    eval_white_limit: int = -140
    depth_limit: int = 16
    consider_count: bool = False
    narrow: bool = False
    pv_moves: int = 8
    ignore_ply: bool = False
    flipped: bool = True
    multipv: int = 1

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> "BookSettings":
        """From an option snapshot (canonical names as keys)."""
        return cls(
            own_book=bool(options["USI_OwnBook"]), book_moves=int(options["BookMoves"]),
            ignore_rate=int(options["BookIgnoreRate"]), eval_diff=int(options["BookEvalDiff"]),
            eval_black_limit=int(options["BookEvalBlackLimit"]),
            eval_white_limit=int(options["BookEvalWhiteLimit"]),
            depth_limit=int(options["BookDepthLimit"]),
            consider_count=bool(options["ConsiderBookMoveCount"]),
            narrow=bool(options["NarrowBook"]), pv_moves=int(options["BookPvMoves"]),
            ignore_ply=bool(options["IgnoreBookPly"]), flipped=bool(options["FlippedBook"]),
            multipv=int(options.get("MultiPV", 1)))


@dataclass
class BookHit:
    """A book move chosen: ``best`` and ``ponder`` (move ints, ponder 0 if none), the
    ``info`` lines of the candidates, and ``notes`` (texts for ``info string``)."""

    best: int
    ponder: int
    info_lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def usi_lines(self) -> list[str]:
        """``info string`` notes, the candidates' ``info`` lines, then ``bestmove``."""
        from usi_engine.core.position import move_to_usi
        best = f"bestmove {move_to_usi(self.best)}"
        if self.ponder:
            best += f" ponder {move_to_usi(self.ponder)}"
        return [f"info string {note}" for note in self.notes] + self.info_lines + [best]


def lookup(book: LookupBook, sfen: str, settings: BookSettings) -> list[BookMove] | None:
    """The book's moves of ``sfen``, or, with FlippedBook, those of the flipped
    position turned back to this side; None when neither is in the book."""
    moves = book.find(sfen, settings.ignore_ply)
    if moves:
        return moves
    if settings.flipped:
        flipped = book.find(flip_sfen(sfen), settings.ignore_ply)
        if flipped:
            return [BookMove(flip_move(m.move), flip_move(m.ponder), m.value, m.depth, m.count)
                    for m in flipped]
    return None


def value_floor(moves: list[BookMove], turn: int, settings: BookSettings) -> int:
    """The least value a book move may have to be played (``turn`` 0 black, 1 white):
    within BookEvalDiff of the best move's, and at least the side's BookEval*Limit."""
    side_limit = settings.eval_black_limit if turn == 0 else settings.eval_white_limit
    return max(max(m.value for m in moves) - settings.eval_diff, side_limit)


def playable(moves: list[BookMove], turn: int, settings: BookSettings) -> list[BookMove]:
    """The moves of a book position that the value filters let through, in book order
    (legality and the count filters aside): what :func:`probe` may choose among."""
    if not moves:
        return []
    floor = value_floor(moves, turn, settings)
    return [m for m in moves if m.value >= floor]


def _legal(position: Any, text: str) -> int:
    """The move int of ``text`` if it is legal here, else 0."""
    if not is_move_text(text):
        return 0
    try:
        return int(position.parse_usi(text))
    except ValueError:
        return 0


def _best_line_move(book: LookupBook, position: Any, settings: BookSettings) -> int:
    """The book's move to follow in a PV: best value, then count; 0 if none."""
    moves = lookup(book, position.sfen(), settings)
    if not moves:
        return 0
    for move in sorted(moves, key=lambda m: (-m.value, -m.count)):
        legal = _legal(position, move.move)
        if legal:
            return legal
    return 0


def _ponder(book: LookupBook, position: Any, candidate: BookMove, best: int,
            settings: BookSettings) -> int:
    after = position.copy()
    after.push(best)
    ponder = _legal(after, candidate.ponder)
    if ponder:
        return ponder
    moves = lookup(book, after.sfen(), settings)   # the next position's first move
    for move in moves or ():
        ponder = _legal(after, move.move)
        if ponder:
            return ponder
    return 0


def _pv(book: LookupBook, position: Any, best: int, ponder: int,
        settings: BookSettings) -> list[int]:
    pv = [best]
    if settings.pv_moves >= 2:
        line = position.copy()
        line.push(best)
        while len(pv) < settings.pv_moves and line.repetition() == "none":
            move = _best_line_move(book, line, settings)
            if not move:
                break
            pv.append(move)
            line.push(move)
        if len(pv) == 1 and ponder:
            pv.append(ponder)
    return pv


def probe(book: LookupBook | None, position: Any, settings: BookSettings,
          rng: random.Random | None = None, searchmoves: list[int] | None = None,
          silent: bool = False) -> tuple[BookHit | None, list[str]]:
    """Choose a book move for ``position`` (a Position). Returns ``(hit, notes)``:
    ``hit`` None when the book gives no move (``notes`` then say why, where it is worth
    saying: illegal book moves, the filters that emptied the list)."""
    notes: list[str] = []
    if book is None or not settings.own_book:
        return None, notes
    rng = rng or random.Random()
    if settings.ignore_rate and rng.randrange(100) < settings.ignore_rate:
        return None, notes
    if position.ply > settings.book_moves:
        return None, notes
    sfen = position.sfen()
    found = lookup(book, sfen, settings)
    if not found:
        return None, notes
    candidates: list[tuple[BookMove, int]] = []
    for move in found:
        legal = _legal(position, move.move)
        if legal:
            candidates.append((move, legal))
        elif is_move_text(move.move):
            notes.append(f"book: illegal move {move.move} in sfen {sfen}; ignored")
    if searchmoves:
        allowed = set(searchmoves)
        candidates = [c for c in candidates if c[1] in allowed]
    if not candidates:
        return None, notes
    total = max(1, sum(max(m.count, 0) for m, _ in candidates))
    listed = list(candidates)            # every legal candidate, for the MultiPV lines
    if settings.narrow:
        before = len(candidates)
        candidates = [c for c in candidates if c[0].count * 10 >= total]
        if len(candidates) != before:
            notes.append(f"NarrowBook: {before} moves to {len(candidates)}")
    if not candidates:
        return None, notes
    if settings.depth_limit and candidates[0][0].depth < settings.depth_limit:
        notes.append(f"BookDepthLimit {settings.depth_limit}: the book's depth here is "
                     f"{candidates[0][0].depth}; not using the book")
        return None, notes
    limit_name = "BookEvalBlackLimit" if position.turn == 0 else "BookEvalWhiteLimit"
    side_limit = settings.eval_black_limit if position.turn == 0 else settings.eval_white_limit
    floor = value_floor([m for m, _ in candidates], position.turn, settings)
    before = len(candidates)
    candidates = [c for c in candidates if c[0].value >= floor]
    if len(candidates) != before:
        notes.append(f"BookEvalDiff {settings.eval_diff}, {limit_name} {side_limit}: "
                     f"{before} moves to {len(candidates)}")
    if not candidates:
        return None, notes
    if settings.consider_count:
        weights = [max(m.count, 0) for m, _ in candidates]
        if sum(weights) == 0:
            weights = [1] * len(candidates)
        chosen = rng.choices(candidates, weights=weights)[0]
    else:
        chosen = candidates[rng.randrange(len(candidates))]
    move, best = chosen
    ponder = _ponder(book, position, move, best, settings)
    info_lines = [] if silent else _info_lines(book, position, chosen, listed, settings)
    return BookHit(best, ponder, info_lines, notes), []


def _info_lines(book: LookupBook, position: Any, chosen: tuple[BookMove, int],
                listed: list[tuple[BookMove, int]], settings: BookSettings) -> list[str]:
    """The ``info`` lines of a book hit: the chosen move as line 1 (a GUI attaches the
    last line 1 to the move played), then, under MultiPV N > 1, up to N - 1 of the other
    candidates in book order."""
    from usi_engine.core.position import move_to_usi

    shown = [chosen] + [c for c in listed if c[1] != chosen[1]]
    shown = shown[:max(1, settings.multipv)]
    lines = []
    for index, (move, legal) in enumerate(shown, start=1):
        pv = _pv(book, position, legal, _legal_after(position, legal, move.ponder), settings)
        label = f" multipv {index}" if settings.multipv > 1 else ""
        lines.append(f"info{label} score cp {move.value} depth {move.depth} "
                     f"pv {' '.join(move_to_usi(m) for m in pv)}")
    return lines


def _legal_after(position: Any, move: int, text: str) -> int:
    after = position.copy()
    after.push(move)
    return _legal(after, text)
