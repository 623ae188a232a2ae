"""The differential corpus: reproducible random games chosen with cshogi, replayed
through usi_engine and cshogi side by side, and a single walk over them that runs
every registered per-position check at once.

Many tests compare the two libraries at every position of the same 1,050 games
(tests/core/test_differential.py, tests/core/test_generators.py).  Replaying the games and
generating the move lists once per check made the default run minutes long, so each
check is a function registered with :func:`corpus_check`; the first test that asks for
a check's result (:func:`checked`) walks the corpus once with all of them, and every
test then asserts on its own check's discrepancies.  The families of games are
described in tests/core/test_differential.py.
"""
from __future__ import annotations

import functools
import os
import pickle
import random
import re
import shutil
import signal
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cshogi                    # in the test extra: a missing cshogi fails, never skips
import pytest

from conftest import read_perft_suite
from usi_engine import Position, move_to_usi

MAX_PLIES = 250
DEFAULT_GAMES = {"rich": 120, "suite": 20, "tsume": 10, "shuffle": 30, "perpetual": 30}
LARGE_GAMES = {"rich": 3000, "suite": 600, "tsume": 300, "shuffle": 800, "perpetual": 800}
SUITE_STARTS = [sfen for _, sfen, _ in read_perft_suite()]
TSUME_STARTS = [
    "8k/9/9/9/9/9/9/9/9 b G 1",
    "7nk/9/6N2/9/9/9/9/9/9 b GSP2r2b3g3s2n4l17p 1",
    "6snl/6gk1/6ppp/9/9/9/9/9/9 b BGN2rb2g3s2n3l15p 1",
    "lnsgkgsnl/9/ppppppppp/9/9/9/9/9/9 b 2R2B2G2S2N2L9P 1",
    "9/9/9/9/9/9/PPP6/1KG6/LNS6 w RBrb2g3s3n3l15p 1",        # white attacks
]
NO_KING = 81                                 # cshogi's king_square() when there is none
CORPORA = [pytest.param("default", id="default"),
           pytest.param("large", id="large", marks=pytest.mark.slow)]

REPETITION_OF = {
    cshogi.NOT_REPETITION: "none",
    cshogi.REPETITION_DRAW: "draw",
    cshogi.REPETITION_WIN: "win",
    cshogi.REPETITION_LOSE: "lose",
    cshogi.REPETITION_SUPERIOR: "superior",
    cshogi.REPETITION_INFERIOR: "inferior",
}
HAND_ORDER = "RBGSNLP"


# ---- the games ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Game:
    family: str
    seed: int
    start: str | None          # SFEN, or None for the start position
    moves: tuple

    def usi_position(self, ply: int) -> str:
        """The USI command that reaches this game's position after `ply` moves."""
        start = "startpos" if self.start is None else "sfen " + self.start
        return f"position {start} moves " + " ".join(self.moves[:ply])

    def positions(self):
        """(ours, cshogi's) at the start of the game, with no history."""
        if self.start is None:
            return Position(), cshogi.Board()
        return Position(self.start), cshogi.Board(self.start)

    def where(self, ply: int) -> str:
        return f"{self.family} game {self.seed}, ply {ply}"


def _board_and_side(board) -> str:
    board_text, side = board.sfen().split()[:2]
    return board_text + " " + side


def _weighted_move(rng, board, legal, weights):
    has_target = board.king_square(board.turn ^ 1) != NO_KING
    checks = set(board.check_moves) if has_target else set()
    scores = []
    for m in legal:
        score = 1.0
        if cshogi.move_cap(m):
            score *= weights["capture"]
        if cshogi.move_is_drop(m):
            score *= weights["drop"]
        if m in checks:
            score *= weights["check"]
        if cshogi.move_is_promotion(m):
            score *= weights["promotion"]
        scores.append(score)
    return rng.choices(legal, scores)[0]


def _moves_back_to_seen_boards(board, candidates, seen_boards):
    back = []
    for m in candidates:
        board.push(m)
        if _board_and_side(board) in seen_boards:
            back.append(m)
        board.pop()
    return back


def _moves_back_to_seen_positions(board, candidates, seen_keys):
    back = []
    for m in candidates:
        board.push(m)
        if board.zobrist_hash() in seen_keys:
            back.append(m)
        board.pop()
    return back


def _undo_own_last_move(board, moves):
    """The move taking back the side to move's previous board move, if it is legal."""
    if len(moves) < 2:
        return None
    last = moves[-2]
    if "*" in last or last.endswith("+"):
        return None
    m = board.move_from_usi(last[2:4] + last[0:2])
    return m if m and board.is_legal(m) else None


def play_game(family: str, seed: int, max_plies: int = MAX_PLIES) -> Game:
    """One reproducible game, its moves chosen with cshogi only (the reference)."""
    rng = random.Random(f"{family}/{seed}")
    weights = {"capture": rng.choice([1, 4, 10, 30]), "drop": rng.choice([1, 3, 8]),
               "check": rng.choice([1, 5, 20]), "promotion": rng.choice([1, 3, 8])}
    opening = max_plies if family in ("rich", "suite", "tsume") else rng.randrange(10, 80)
    attacker = rng.randrange(2)
    start = {"suite": SUITE_STARTS[seed % len(SUITE_STARTS)],
             "tsume": TSUME_STARTS[seed % len(TSUME_STARTS)]}.get(family)
    board = cshogi.Board() if start is None else cshogi.Board(start)
    seen_keys = {board.zobrist_hash()}
    seen_boards = {_board_and_side(board)}
    moves = []
    for ply in range(max_plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        m = None
        if ply >= opening and family == "shuffle":
            if rng.random() < 0.85:
                m = _undo_own_last_move(board, moves)
            if m is None and rng.random() < 0.5:
                same_board = _moves_back_to_seen_boards(board, legal, seen_boards)
                same_position = _moves_back_to_seen_positions(board, legal, seen_keys)
                other_hand = [c for c in same_board if c not in same_position]
                pool = other_hand if other_hand and rng.random() < 0.5 else same_position
                if pool:
                    m = rng.choice(pool)
        elif ply >= opening and family == "perpetual":
            if board.turn == attacker:
                checks = list(board.check_moves)
                if checks:
                    m = rng.choice(_moves_back_to_seen_boards(board, checks, seen_boards)
                                   or checks)
            else:
                back = _moves_back_to_seen_boards(board, legal, seen_boards)
                if back:
                    m = rng.choice(back)
        if m is None:
            m = _weighted_move(rng, board, legal, weights)
        moves.append(cshogi.move_to_usi(m))
        board.push(m)
        seen_keys.add(board.zobrist_hash())
        seen_boards.add(_board_and_side(board))
    return Game(family, seed, start, tuple(moves))


@functools.lru_cache(maxsize=None)
def corpus(name: str = "default") -> tuple:
    """The games of the named run: DEFAULT_GAMES or LARGE_GAMES per family."""
    sizes = DEFAULT_GAMES if name == "default" else LARGE_GAMES
    return tuple(play_game(family, seed)
                 for family, count in sizes.items() for seed in range(count))


def walk(games):
    """Replay each game in both libraries.  Yields (game, ply, pos, board) for every
    position, ply 0 (the start) to the end; pos is ours and board cshogi's, both with the
    game's history pushed.  Do not push or pop on them without undoing."""
    for game in games:
        pos, board = game.positions()
        for ply in range(len(game.moves) + 1):
            yield game, ply, pos, board
            if ply < len(game.moves):
                usi = game.moves[ply]
                try:
                    pos.push_usi(usi)
                except ValueError as exc:
                    pytest.fail(f"{game.where(ply)}: we reject cshogi's legal move {usi} "
                                f"in {pos.sfen()} ({exc})")
                board.push_usi(usi)


class Discrepancies:
    """Collects failures so one assertion reports the first few with their positions."""

    def __init__(self, what: str, keep: int = 8):
        self.what, self.keep, self.count, self.shown = what, keep, 0, []

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.shown) < self.keep:
            self.shown.append(message)

    def __bool__(self):
        return self.count > 0

    def report(self) -> str:
        return f"{self.count} positions where {self.what}:\n" + "\n".join(self.shown)


# ---- SFEN helpers -----------------------------------------------------------------------------
def without_move_number(sfen: str) -> str:
    return sfen.rsplit(" ", 1)[0]


def hand_counts(hand: str) -> Counter:
    counts = Counter()
    if hand != "-":
        for number, letter in re.findall(r"(\d*)([A-Za-z])", hand):
            counts[letter] += int(number) if number else 1
    return counts


def canonical_hand(counts: Counter) -> str:
    """Hands as SFEN: black's then white's, each in the order R B G S N L P."""
    text = ""
    for letters in (HAND_ORDER, HAND_ORDER.lower()):
        for letter in letters:
            n = counts.get(letter, 0)
            if n:
                text += (str(n) if n > 1 else "") + letter
    return text or "-"


def _our_usi_table() -> list:
    """USI text of every 15-bit value that is a move (None otherwise): the walk turns
    millions of moves into text, and a list look-up is much cheaper than the call."""
    table = []
    for value in range(1 << 15):
        try:
            table.append(move_to_usi(value))
        except ValueError:
            table.append(None)
    return table


OUR_USI = _our_usi_table()
_CSHOGI_USI: dict[int, str] = {}         # cshogi's 16-bit move -> USI text, filled as met


def cshogi_usi(m: int) -> str:
    """cshogi.move_to_usi(m), remembered by the move's low 16 bits (squares, promotion,
    drop), which alone decide the text."""
    text = _CSHOGI_USI.get(m & 0xFFFF)
    if text is None:
        text = _CSHOGI_USI[m & 0xFFFF] = cshogi.move_to_usi(m)
    return text


def usi_moves(pos) -> dict:
    return {OUR_USI[m]: m for m in pos.legal_moves()}


def cshogi_moves(board) -> dict:
    get = _CSHOGI_USI.get
    return {get(m & 0xFFFF) or cshogi_usi(m): m for m in board.legal_moves}


def cshogi_gives_check(board, m) -> bool:
    board.push(m)
    check = board.is_check()
    board.pop()
    return check


# ---- the single walk -------------------------------------------------------------------------
class At:
    """One position of the walk: ours and cshogi's, with what several checks need computed
    once.  ``game`` is None for the positions of sfen/perft.txt (``where`` names them).
    Checks must not leave moves pushed on ``pos`` or ``board``."""

    def __init__(self, game, ply, pos, board, where=None):
        self.game, self.ply, self.pos, self.board = game, ply, pos, board
        self.where = where if where is not None else game.where(ply)

    @functools.cached_property
    def sfen(self) -> str:
        return self.pos.sfen()

    @functools.cached_property
    def legal(self) -> list:
        return self.pos.legal_moves()

    @functools.cached_property
    def ours(self) -> dict:
        """{usi: our move} of the legal moves."""
        return {OUR_USI[m]: m for m in self.legal}

    @functools.cached_property
    def theirs(self) -> dict:
        """{usi: cshogi move} of cshogi's legal moves."""
        return cshogi_moves(self.board)

    @functools.cached_property
    def in_check(self) -> bool:
        """cshogi's view."""
        return bool(self.board.is_check())

    @functools.cached_property
    def checking(self) -> frozenset:
        """USI text of cshogi's legal moves after which cshogi sees check."""
        return frozenset(u for u, m in self.theirs.items() if cshogi_gives_check(self.board, m))

    @functools.cached_property
    def cshogi_sfen(self) -> str:
        return self.board.sfen()

    @functools.cached_property
    def fresh(self):
        """Our position set up from our SFEN (no history)."""
        return Position(self.sfen)


@dataclass
class CheckResult:
    """What one check found over a corpus: discrepancies, counts, and any state it keeps
    from position to position (``state``)."""
    corpus: str
    bad: Discrepancies
    counts: Counter = field(default_factory=Counter)
    state: dict = field(default_factory=dict)


@dataclass(frozen=True)
class _Check:
    run: Callable[[At, CheckResult], None]
    what: str
    suite: bool          # also at the positions of sfen/perft.txt


CHECKS: dict[str, _Check] = {}


def corpus_check(what: str, *, suite: bool = False):
    """Register fn(at, result) as a check run at every position of the walk; ``what``
    completes "N positions where ..." in its report."""
    def register(fn):
        CHECKS[fn.__name__] = _Check(fn, what, suite)
        return fn
    return register


def _suite_positions():
    for name, sfen, _ in read_perft_suite():
        yield At(None, None, Position(sfen), cshogi.Board(sfen), f"perft suite {name!r}")


_RESULTS: dict[str, dict[str, CheckResult | BaseException]] = {}


def _walk_with(name: str, names: list[str]) -> None:
    results = _RESULTS.setdefault(name, {})
    fresh = {n: CheckResult(name, Discrepancies(CHECKS[n].what)) for n in names}
    try:
        _run_checks(name, names, fresh)
    except BaseException as exc:
        # A walk cut short must not leave half-filled results that pass: every check of
        # it fails with the error.
        results.update({n: exc for n in names})
        raise
    results.update(fresh)


def _run_checks(name: str, names: list[str], fresh: dict[str, CheckResult]) -> None:
    suite_checks = [(CHECKS[n].run, fresh[n]) for n in names if CHECKS[n].suite]
    if suite_checks:
        for at in _suite_positions():
            for run, result in suite_checks:
                run(at, result)
    checks = [(CHECKS[n].run, fresh[n]) for n in names]
    for game, ply, pos, board in walk(corpus(name)):
        at = At(game, ply, pos, board)
        for run, result in checks:
            run(at, result)


class _BackgroundWalk:
    """The walk of one corpus in a forked child, started at collection (conftest) so that
    it runs on the second core while other tests run; its results come back pickled
    (33 MB for the default corpus, under a second to write and read)."""

    def __init__(self, name: str) -> None:
        self.name, self.names = name, list(CHECKS)
        self.path = Path(tempfile.mkdtemp(prefix="usi-engine-walk-")) / "results.pickle"
        self.pid = os.fork()
        if self.pid == 0:                                    # the child: walk, write, leave
            code = 0
            try:
                _walk_with(name, self.names)
            except BaseException:
                code = 1
            try:
                with open(self.path, "wb") as out:
                    pickle.dump({n: _picklable(r) for n, r in _RESULTS[name].items()}, out,
                                protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException:
                code = 2
            os._exit(code)

    def join(self) -> None:
        """Wait for the child and take its results (if it left none, having died,
        :func:`checked` walks here as it would without a child)."""
        if self.pid:
            os.waitpid(self.pid, 0)
            self.pid = 0
            if self.path.exists():
                with open(self.path, "rb") as stream:
                    _RESULTS.setdefault(self.name, {}).update(pickle.load(stream))
            shutil.rmtree(self.path.parent, ignore_errors=True)

    def kill(self) -> None:
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = 0
            shutil.rmtree(self.path.parent, ignore_errors=True)


def _picklable(result):
    """A walk's exception as an AssertionError carrying its text (a pytest outcome or a
    cshogi error may not pickle)."""
    if isinstance(result, BaseException):
        return AssertionError(f"{type(result).__name__}: {result}")
    return result


_BACKGROUND: dict[str, _BackgroundWalk] = {}


def start_background_walk(name: str) -> None:
    """Walk ``name`` in a forked child from now on (where the OS forks: not Windows);
    :func:`checked` takes its results.  Every check must be registered by then."""
    if hasattr(os, "fork") and name not in _BACKGROUND and name not in _RESULTS:
        _BACKGROUND[name] = _BackgroundWalk(name)


def stop_background_walks() -> None:
    for walk_ in _BACKGROUND.values():
        walk_.kill()


def checked(name: str, check) -> CheckResult:
    """The result of `check` (a function registered with corpus_check) over the named
    corpus.  The first call walks the corpus once with every check registered so far
    (or takes the results of the walk started in the background)."""
    background = _BACKGROUND.get(name)
    if background is not None and check.__name__ in background.names:
        background.join()
    results = _RESULTS.get(name, {})
    if check.__name__ not in results:
        _walk_with(name, [n for n in CHECKS if n not in results])
    result = _RESULTS[name][check.__name__]
    if isinstance(result, BaseException):
        raise AssertionError(f"the walk of the {name} corpus failed: {result!r}") from result
    return result
