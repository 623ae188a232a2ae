"""JKF, the JSON kifu format (json-kifu-format): header, initial position (a preset
name or a board), moves with times, comments, specials and forks (variations)."""
from __future__ import annotations

import json

from usi_engine.notation.csa_board import PROMOTE
from usi_engine.record.board import (HAND_KINDS, Game, board_from_sfen, handicap_of,
                                     square_usi, usi_squares)
from usi_engine.record.csa import CSA_TERMINATIONS, TERMINATION_CSA
from usi_engine.notation.sfen import STARTPOS_SFEN
from usi_engine.record.model import (Record, RecordError, Variation,
                                     result_of)

#: JKF presets and the handicap names they are.
PRESETS = {"HIRATE": "平手", "KY": "香落ち", "KY_R": "右香落ち", "KA": "角落ち",
           "HI": "飛車落ち", "HIKY": "飛香落ち", "2": "二枚落ち", "3": "三枚落ち",
           "4": "四枚落ち", "5": "五枚落ち", "5_L": "左五枚落ち", "6": "六枚落ち",
           "7_L": "左七枚落ち", "7_R": "右七枚落ち", "8": "八枚落ち", "10": "十枚落ち"}
PRESET_OF = {v: k for k, v in PRESETS.items()}
HEADER_FIELDS = {"先手": "black", "下手": "black", "後手": "white", "上手": "white",
                 "開始日時": "start_time", "終了日時": "end_time", "棋戦": "event"}


def read_jkf(text: str, source: str | None = None) -> list[Record]:
    """The game of a JKF text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc.msg}", source, exc.lineno) from None
    if not isinstance(data, dict):
        raise RecordError("a JKF record is a JSON object", source)
    record = Record(source=source or "")
    for key, value in (data.get("header") or {}).items():
        if key in HEADER_FIELDS:
            setattr(record, HEADER_FIELDS[key], str(value))
        elif key != "手合割":
            record.headers[key] = str(value)
    record.start_sfen = _initial(data.get("initial"), source)
    record.handicap = handicap_of(record.start_sfen)
    moves = data.get("moves") or [{}]
    if not isinstance(moves, list):
        raise RecordError("'moves' must be a list", source)
    game = Game(record.start_sfen, source)
    if moves and isinstance(moves[0], dict) and "move" not in moves[0]:
        record.comment = "\n".join(moves[0].get("comments") or [])
        moves = moves[1:]
    _read_moves(record, moves, game, source, 1)
    record.result = result_of(record.termination, 0 if game_turn_after(record) == "+" else 1)
    return [record]


def game_turn_after(record: Record) -> str:
    return "+" if record.mover_at_end == 0 else "-"


def _initial(initial, source) -> str:
    if not initial:
        return STARTPOS_SFEN
    preset = initial.get("preset", "HIRATE")
    if preset != "OTHER":
        from usi_engine.record.board import HANDICAPS
        if preset not in PRESETS:
            raise RecordError(f"unknown preset {preset!r}", source)
        return HANDICAPS[PRESETS[preset]]
    data = initial.get("data")
    if not isinstance(data, dict):
        raise RecordError("preset OTHER needs 'data'", source)
    board = board_from_sfen("9/9/9/9/9/9/9/9/9 b - 1")
    try:
        for x, column in enumerate(data["board"], 1):
            for y, cell in enumerate(column, 1):
                if cell and cell.get("kind"):
                    board.squares[(x, y)] = ("+" if cell.get("color", 0) == 0 else "-", cell["kind"])
        for color, hand in zip("+-", data.get("hands") or [{}, {}]):
            board.hands[color] = {k: int(v) for k, v in hand.items() if int(v) and k in HAND_KINDS}
        board.turn = "+" if data.get("color", 0) == 0 else "-"
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"bad initial data: {exc}", source) from None
    return board.sfen()


def _read_moves(line: Record | Variation, entries: list, game: Game, source, first_ply: int):
    for index, entry in enumerate(entries):
        ply = first_ply + index
        if not isinstance(entry, dict):
            raise RecordError(f"move {ply}: not an object", source)
        for fork in entry.get("forks") or []:
            branch = Variation(ply=ply)
            _read_moves(branch, fork, game.copy(), source, ply)
            line.variations.append(branch)
        if "special" in entry:
            special = entry["special"]
            if special in ("+ILLEGAL_ACTION", "-ILLEGAL_ACTION"):
                line.termination = "foul_lose" if special[0] == game.turn else "foul_win"
            else:
                line.termination = CSA_TERMINATIONS.get(special)
            break
        move = entry.get("move")
        if not isinstance(move, dict):
            if entry.get("comments") and line.comments:
                line.comments[-1] += "\n" + "\n".join(entry["comments"])
            continue
        try:
            usi = _move_usi(move, game)
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"move {ply}: bad move {json.dumps(move, ensure_ascii=False)}: "
                              f"{exc}", source) from None
        game.push(usi, source, None, json.dumps(move, ensure_ascii=False))
        line.moves.append(usi)
        time = entry.get("time", {}).get("now") if isinstance(entry.get("time"), dict) else None
        line.times.append(None if time is None else
                          time.get("h", 0) * 3600 + time.get("m", 0) * 60 + time.get("s", 0))
        line.comments.append("\n".join(entry.get("comments") or []))


def _move_usi(move: dict, game: Game) -> str:
    to = move.get("to")
    if to is None:
        if not move.get("same") or game.last_to is None:
            raise ValueError("no destination")
        to = {"x": game.last_to[0], "y": game.last_to[1]}
    target = square_usi(int(to["x"]), int(to["y"]))
    if "from" not in move or move["from"] is None:
        kind = move["piece"]
        letter = {"FU": "P", "KY": "L", "KE": "N", "GI": "S", "KI": "G", "KA": "B", "HI": "R"}[kind]
        return f"{letter}*{target}"
    frm = move["from"]
    return f"{square_usi(int(frm['x']), int(frm['y']))}{target}{'+' if move.get('promote') else ''}"


def write_jkf(record: Record) -> str:
    """The record as JKF (one JSON object, UTF-8 text)."""
    record.fill()
    header = {}
    for key, name in (("先手", "black"), ("後手", "white"), ("開始日時", "start_time"),
                      ("終了日時", "end_time"), ("棋戦", "event")):
        if getattr(record, name):
            header[key] = getattr(record, name)
    header.update({k: v for k, v in record.headers.items() if k not in header})
    data: dict[str, object] = {"header": header, "initial": _initial_data(record.start_sfen)}
    first: dict = {}
    if record.comment:
        first["comments"] = record.comment.split("\n")
    data["moves"] = [first] + _write_moves(record, Game(record.start_sfen))
    return json.dumps(data, ensure_ascii=False) + "\n"


def _initial_data(sfen: str) -> dict:
    handicap = handicap_of(sfen)
    if handicap:
        return {"preset": PRESET_OF[handicap]}
    board = board_from_sfen(sfen)
    cells: list[list[dict[str, int | str]]] = [[{} for _ in range(9)] for _ in range(9)]
    for (x, y), (color, kind) in board.squares.items():
        cells[x - 1][y - 1] = {"color": 0 if color == "+" else 1, "kind": kind}
    hands = [{k: board.hands[c].get(k, 0) for k in HAND_KINDS} for c in "+-"]
    return {"preset": "OTHER",
            "data": {"board": cells, "color": 0 if board.turn == "+" else 1, "hands": hands}}


def _write_moves(line, game: Game) -> list[dict]:
    forks: dict[int, list] = {}
    out = []
    positions = []
    totals = [0, 0]
    for index, usi in enumerate(line.moves):
        positions.append(game.copy())
        out.append(_move_entry(game, usi, line.times[index] if index < len(line.times) else None,
                               line.comments[index] if index < len(line.comments) else "",
                               totals))
    positions.append(game.copy())
    first_ply = getattr(line, "ply", 1)
    if line.termination:
        special = TERMINATION_CSA.get(line.termination, "CHUDAN")
        if line.termination == "foul_win":
            special = ("-" if game.turn == "+" else "+") + "ILLEGAL_ACTION"
        out.append({"special": special})
    for variation in line.variations:
        index = variation.ply - first_ply
        if 0 <= index < len(out):
            forks.setdefault(index, []).append(
                _write_moves(variation, positions[index].copy()))
    for index, fork_list in forks.items():
        out[index]["forks"] = fork_list
    return out


def _move_entry(game: Game, usi: str, seconds, comment: str, totals: list[int]) -> dict:
    frm, to, promote, dropped = usi_squares(usi)
    color = 0 if game.turn == "+" else 1
    move: dict = {"color": color, "to": {"x": to[0], "y": to[1]}}
    if frm is None:
        move["piece"] = dropped
    else:
        kind = game.board.squares[frm][1]
        move["from"] = {"x": frm[0], "y": frm[1]}
        move["piece"] = kind
        if promote:
            move["promote"] = True
        elif kind in PROMOTE and usi + "+" in game.legal():
            move["promote"] = False
        captured = game.board.squares.get(to)
        if captured:
            move["capture"] = captured[1]
    if game.last_to == to:
        move["same"] = True
    game.push(usi)
    entry: dict = {"move": move}
    if seconds is not None:
        s = int(round(seconds))
        totals[color] += s
        t = totals[color]
        entry["time"] = {"now": {"m": s // 60, "s": s % 60},
                         "total": {"h": t // 3600, "m": t // 60 % 60, "s": t % 60}}
    if comment:
        entry["comments"] = comment.split("\n")
    return entry
