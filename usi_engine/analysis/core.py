"""Analysing one game: every position searched with MultiPV, the played move valued
(a search restricted to it where it is not among the lines), win rates and the marks
GUIs give a move that loses some of them.

The conventions are ShogiHome's: a score turns into a win rate with the logistic
function of coefficient 600 (``1 / (1 + exp(-cp / 600))``); a move that loses at
least 5, 10, 20 or 50 points of win rate against the best line is a 緩手, 疑問手, 悪手
or 大悪手, unless it is the best line's own first move.

The same record, settings and node limit (with one thread) give the same analysis:
the searcher starts each game from ``new_game()`` and meets the positions in order.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from usi_engine.notation.score import MATE_VALUE

__all__ = ["AnalysisSettings", "Line", "PlyAnalysis", "GameAnalysis",
           "WIN_RATE_COEFFICIENT", "MARKS", "win_rate", "mark_for", "analyze_record"]

#: ShogiHome's coefficient of the logistic function from cp to win rate.
WIN_RATE_COEFFICIENT = 600.0
#: (least loss of win rate, mark), worst first.
MARKS = ((0.50, "大悪手"), (0.20, "悪手"), (0.10, "疑問手"), (0.05, "緩手"))


@dataclass(frozen=True)
class AnalysisSettings:
    """How hard each position is searched: ``nodes`` (reproducible) or ``time_ms``
    per position, ``multipv`` lines, plies ``from_ply``..``to_ply`` (1-based move
    numbers; 0 = to the end), ``threads`` and ``hash_mb`` of the searcher."""

    nodes: int = 0
    time_ms: int = 0
    multipv: int = 3
    from_ply: int = 1
    to_ply: int = 0
    threads: int = 1
    hash_mb: int = 64

    def limits(self) -> dict[str, Any]:
        """The keyword arguments of ``Searcher.search`` that bound one search."""
        if self.nodes:
            return {"nodes": self.nodes}
        return {"soft_ms": self.time_ms, "hard_ms": self.time_ms}


@dataclass
class Line:
    """One line of a search: USI moves, the value to the side to move in cp (a mate in
    n plies as ±(MATE_VALUE - n)) and ``mate`` (plies, signed; None if none)."""

    pv: list[str]
    value: int
    mate: int | None = None
    depth: int = 0

    @property
    def move(self) -> str:
        return self.pv[0] if self.pv else ""


@dataclass
class PlyAnalysis:
    """The analysis of the position before move ``ply`` (1-based) of the game.

    ``lines`` are the MultiPV lines, best first; ``played`` the line of the move
    played (``lines``' own when it is there); win rates and ``loss`` are the side to
    move's; ``mark`` one of ``MARKS``' names or ""."""

    ply: int
    sfen: str
    move: str
    turn: int
    lines: list[Line]
    played: Line
    nodes: int = 0
    win_best: float = 0.5
    win_played: float = 0.5
    loss: float = 0.0
    mark: str = ""

    @property
    def best(self) -> Line:
        return self.lines[0]

    @property
    def is_best(self) -> bool:
        return self.move == self.best.move

    def black_value(self, line: Line | None = None) -> int:
        """``line``'s value (the played move's by default) from black's side."""
        value = (line or self.played).value
        return value if self.turn == 0 else -value


@dataclass
class GameAnalysis:
    """A game's analysis: where it came from, its players, the settings and a
    :class:`PlyAnalysis` for each analysed move."""

    name: str
    source: str
    game_index: int
    black: str
    white: str
    start_sfen: str
    moves: list[str]
    settings: AnalysisSettings
    plies: list[PlyAnalysis] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["settings"] = asdict(self.settings)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GameAnalysis":
        def line(d: dict[str, Any]) -> Line:
            return Line(list(d["pv"]), int(d["value"]), d.get("mate"), int(d.get("depth", 0)))
        plies = [PlyAnalysis(p["ply"], p["sfen"], p["move"], p["turn"],
                             [line(x) for x in p["lines"]], line(p["played"]), p["nodes"],
                             p["win_best"], p["win_played"], p["loss"], p["mark"])
                 for p in data["plies"]]
        return cls(data["name"], data["source"], data["game_index"], data["black"],
                   data["white"], data["start_sfen"], list(data["moves"]),
                   AnalysisSettings(**data["settings"]), plies)


def win_rate(value: int, mate: int | None = None) -> float:
    """The win rate of a value (side to move): a mate is 1 or 0.

        >>> round(win_rate(600), 3)
        0.731
    """
    if mate is not None:
        return 1.0 if mate > 0 else 0.0
    return 1.0 / (1.0 + math.exp(-value / WIN_RATE_COEFFICIENT))


def mark_for(loss: float, is_best: bool) -> str:
    """The mark of a move that loses ``loss`` of win rate ("" for none).

        >>> mark_for(0.12, False), mark_for(0.6, True)
        ('疑問手', '')
    """
    if is_best:
        return ""
    for least, name in MARKS:
        if loss >= least:
            return name
    return ""


def _value_of(info: dict[str, Any]) -> tuple[int, int | None]:
    mate = info.get("score_mate")
    if mate is not None:
        mate = int(mate)
        return (MATE_VALUE - abs(mate)) * (1 if mate > 0 else -1), mate
    return int(info.get("score_cp") or 0), None


def _search_lines(searcher: Any, position: Any, settings: AnalysisSettings, multipv: int,
                  searchmoves: list[int] | None = None) -> tuple[list[Line], int]:
    """The lines of one search (best first) and its node count: those of the deepest
    iteration that reported every line, the search's own best line first."""
    from usi_engine.core.position import move_to_usi
    by_depth: dict[int, dict[int, dict[str, Any]]] = {}

    def on_info(info: dict[str, Any]) -> None:
        if info.get("bound") or not info.get("pv") or info.get("depth") is None:
            return
        by_depth.setdefault(int(info["depth"]), {})[int(info.get("multipv", 1))] = dict(info)

    result = searcher.search(position, multipv=multipv, searchmoves=searchmoves,
                             on_info=on_info, **settings.limits())
    wanted = min(multipv, len(searchmoves) if searchmoves else len(position.legal_moves()))
    complete = [d for d, lines in by_depth.items() if len(lines) >= wanted]
    chosen = by_depth[max(complete)] if complete else {}
    lines = []
    for index in sorted(chosen):
        info = chosen[index]
        value, mate = _value_of(info)
        lines.append(Line([move_to_usi(m) for m in info["pv"]], value, mate, int(info["depth"])))
    if result.best and (not lines or lines[0].move != move_to_usi(result.best)):
        value, mate = _value_of({"score_cp": result.score_cp, "score_mate": result.score_mate})
        best = Line([move_to_usi(m) for m in (result.pv or [result.best])], value, mate,
                    int(result.depth))
        lines = [best] + [line for line in lines if line.move != best.move][:multipv - 1]
    return lines, int(result.nodes)


def analyze_position(searcher: Any, sfen: str, move: str, ply: int,
                     settings: AnalysisSettings) -> PlyAnalysis | None:
    """The analysis of ``move`` played in ``sfen``; None where there is nothing to
    search (no legal move)."""
    from usi_engine.core.position import Position
    position = Position(sfen)
    if not position.legal_moves():
        return None
    lines, nodes = _search_lines(searcher, position, settings, settings.multipv)
    if not lines:
        return None
    played = next((line for line in lines if line.move == move), None)
    if played is None:
        restricted, more = _search_lines(searcher, position, settings, 1,
                                         [position.parse_usi(move)])
        nodes += more
        played = restricted[0] if restricted else Line([move], -MATE_VALUE, None)
    report = PlyAnalysis(ply, sfen, move, position.turn, lines, played, nodes)
    report.win_best = win_rate(report.best.value, report.best.mate)
    report.win_played = win_rate(played.value, played.mate)
    report.loss = max(0.0, report.win_best - report.win_played)
    report.mark = mark_for(report.loss, report.is_best)
    return report


def analyze_record(record: Any, settings: AnalysisSettings, searcher: Any = None,
                   name: str = "", game_index: int = 0,
                   on_ply: Any = None) -> GameAnalysis:
    """Analyse a :class:`usi_engine.record.Record` (its main line).

    Example::

        from usi_engine.record import read_record
        from usi_engine.analysis import AnalysisSettings, analyze_record
        game = read_record("game.kif")[0]
        report = analyze_record(game, AnalysisSettings(nodes=100_000))
        print([(p.ply, p.mark) for p in report.plies if p.mark])
    """
    from usi_engine.core.position import Position
    if searcher is None:
        from usi_engine.search.searcher import Searcher
        searcher = Searcher()
        searcher.set_hash(settings.hash_mb)
        searcher.set_threads(settings.threads)
    searcher.new_game()
    analysis = GameAnalysis(name, record.source or "", game_index, record.black, record.white,
                            record.start_sfen, list(record.moves), settings)
    position = Position(record.start_sfen)
    last = settings.to_ply or len(record.moves)
    for ply, move in enumerate(record.moves, start=1):
        if settings.from_ply <= ply <= last:
            report = analyze_position(searcher, position.sfen(), move, ply, settings)
            if report is not None:
                analysis.plies.append(report)
            if on_ply is not None:
                on_ply(ply)
        position.push_usi(move)
    return analysis
