"""cshogi as an independent referee of mate lines (its own rules and move generator,
nothing of usi_engine's)."""
from __future__ import annotations

import cshogi


def mate_line_fault(sfen: str, line: list[str]) -> str:
    """What makes `line` (USI moves from `sfen`) not a mate by cshogi's rules, or ''.

    A mate line has odd length, legal moves only, a check by every attacker move, and
    ends in checkmate.
    """
    if len(line) % 2 != 1:
        return f"the line has {len(line)} plies, not an odd number"
    board = cshogi.Board(sfen)
    for ply, usi in enumerate(line, start=1):
        move = board.move_from_usi(usi)
        if not move or not board.is_legal(move):
            return f"ply {ply} ({usi}) is not legal"
        board.push(move)
        if ply % 2 == 1 and not board.is_check():
            return f"ply {ply} ({usi}) is not a check"
    if not board.is_game_over():
        return "the last position is not checkmate"
    return ""
