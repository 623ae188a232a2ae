"""An analysed game as the records GUIs show: KIF with the comments ShogiHome and
ShogiGUI write, CSA with floodgate's ``'**`` comments.

The comment after move i is about the position that move made (as the GUIs do it):

* KIF: ``【悪手】`` (the move's mark, if any), ``#評価値=V`` (black's view),
  ``#読み筋=▲...△...`` (ShogiHome's keys, which its graph reads), the best move the
  mover had instead when the move lost win rate, then one line per candidate in
  ShogiGUI's form ``解析 0  候補1 時間 00:00.0 深さ D ノード数 N 評価値 V 読み筋 ...``.
* CSA: ``'** V +2726FU -3334FU`` (floodgate's: black's value, then the line), and
  ``'*【悪手】 ...`` for a marked move.
"""
from __future__ import annotations

import copy
from typing import Any

from usi_engine.analysis.core import GameAnalysis, Line, PlyAnalysis

__all__ = ["annotated_record", "kif_comment", "csa_comment", "line_text", "move_text"]

TURN_MARKS = ("▲", "△")


def _black(value: int, turn: int) -> int:
    return value if turn == 0 else -value


def _game(sfen: str) -> Any:
    from usi_engine.record.board import Game
    return Game(sfen)


def move_text(sfen: str, move: str) -> str:
    """``▲２六歩`` (KI2 notation with the mover's mark) of a USI move in ``sfen``."""
    from usi_engine.record.kif import ki2_move_text
    game = _game(sfen)
    return TURN_MARKS[0 if game.turn == "+" else 1] + ki2_move_text(game, move)


def line_text(sfen: str, pv: list[str], with_origin: bool = False, sep: str = "") -> str:
    """A line in KI2 notation (``▲７六歩△３四歩``), or KIF's with the squares moved
    from (``▲７六歩(77) △３四歩(33)``), stopping at a move it cannot play."""
    from usi_engine.record.kif import ki2_move_text, kif_move_text
    from usi_engine.record.model import RecordError
    game = _game(sfen)
    words = []
    for move in pv:
        mark = TURN_MARKS[0 if game.turn == "+" else 1]
        try:
            text = kif_move_text(game, move) if with_origin else ki2_move_text(game, move)
            game.push(move)
        except (RecordError, KeyError, ValueError):
            break
        words.append(mark + text)
    return sep.join(words)


def _score_text(line: Line, turn: int) -> str:
    """ShogiGUI's ``評価値`` field: black's value, a mate as ``詰 N`` with its sign."""
    if line.mate is not None:
        winner_black = (line.mate > 0) == (turn == 0)
        return f"{'' if winner_black else '-'}詰 {abs(line.mate)}"
    return str(_black(line.value, turn))


def _shogihome_score(line: Line, turn: int) -> list[str]:
    rows = []
    if line.mate is not None:
        winner = "先手勝ち" if (line.mate > 0) == (turn == 0) else "後手勝ち"
        rows.append(f"#詰み={winner}:{abs(line.mate)}手")
    rows.append(f"#評価値={_black(line.value, turn)}")
    return rows


def kif_comment(before: PlyAnalysis, after: PlyAnalysis | None) -> str:
    """The KIF comment after the move ``before`` analysed; ``after`` analysed the
    position it made (None at the end of the game)."""
    rows = []
    if before.mark:
        rows.append(f"【{before.mark}】")
    if after is not None:
        rows += _shogihome_score(after.best, after.turn)
        rows.append("#読み筋=" + line_text(after.sfen, after.best.pv))
    else:
        rows += _shogihome_score(before.played, before.turn)
    if not before.is_best:
        rows.append(f"最善手 {move_text(before.sfen, before.best.move)} 評価値 "
                    f"{_score_text(before.best, before.turn)} (指し手 "
                    f"{_score_text(before.played, before.turn)}, 勝率 "
                    f"-{before.loss * 100:.1f}%)")
    if after is not None:
        for index, line in enumerate(after.lines, start=1):
            rows.append(f"解析 0  候補{index} 時間 00:00.0 深さ {line.depth} ノード数 "
                        f"{after.nodes} 評価値 {_score_text(line, after.turn)} 読み筋 "
                        + line_text(after.sfen, line.pv, with_origin=True, sep=" "))
    return "\n".join(rows)


def csa_comment(before: PlyAnalysis, after: PlyAnalysis | None) -> str:
    """The CSA comment after the move ``before`` analysed (record comment text: the
    writer puts ``'*`` before each line, so ``* V ...`` becomes floodgate's ``'** V ...``)."""
    from usi_engine.record.board import board_from_sfen
    rows = []
    line, sfen, turn = ((after.best, after.sfen, after.turn) if after is not None
                        else (before.played, before.sfen, before.turn))
    pv = line.pv if after is not None else line.pv[1:]
    if after is None:
        board = board_from_sfen(sfen)
        board.push_usi(before.move)
    else:
        board = board_from_sfen(sfen)
    csa_moves = []
    for move in pv:
        try:
            csa_moves.append(board.usi_to_csa(move))
            board.push_usi(move)
        except (KeyError, ValueError):
            break
    rows.append("* " + " ".join([str(_black(line.value, turn)), *csa_moves]))
    if before.mark:
        best = board_from_sfen(before.sfen).usi_to_csa(before.best.move)
        rows.append(f"【{before.mark}】 最善手 {best} 評価値 "
                    f"{_black(before.best.value, before.turn)} 勝率 -{before.loss * 100:.1f}%")
    return "\n".join(rows)


def annotated_record(record: Any, analysis: GameAnalysis, fmt: str) -> Any:
    """A copy of ``record`` (main line only) with the analysis in the comments of the
    moves it covers, in the conventions of ``fmt`` ("kif" or "csa"); earlier
    comments are kept above."""
    out = copy.deepcopy(record)
    out.variations = []
    out.fill()
    by_ply = {p.ply: p for p in analysis.plies}
    comment_of = kif_comment if fmt in ("kif", "ki2") else csa_comment
    for ply, report in by_ply.items():
        text = comment_of(report, by_ply.get(ply + 1))
        old = out.comments[ply - 1]
        out.comments[ply - 1] = f"{old}\n{text}" if old else text
    return out

