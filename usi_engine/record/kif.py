"""KIF and KI2 (Kakinoki's formats): read and write, variations (変化) included.

KIF names each move's origin (``７六歩(77)``); KI2 writes only the destination and,
when several pieces could go there, words that tell them apart (右 左 直 上 引 寄 打),
so reading KI2 needs the legal moves of each position."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from usi_engine.record.board import (HAND_KINDS, KANJI_DIGITS, KIND_BOARD_NAME,
                                     KIND_MOVE_NAME, NAME_KIND, PROMOTE, UNPROMOTE,
                                     WIDE_DIGITS, Game, board_from_sfen, handicap_of,
                                     handicap_sfen, kanji_count, kanji_number, square_usi,
                                     usi_squares)
from usi_engine.notation.sfen import STARTPOS_SFEN
from usi_engine.record.model import (Record, RecordError, Variation,
                                     result_of, start_turn)

#: Termination words in moves and result lines, and what `write` uses for each.
SPECIAL_WORDS = {"投了": "resign", "中断": "interrupt", "千日手": "repetition_draw",
                 "持将棋": "impass", "詰み": "mate", "不詰": "no_mate", "切れ負け": "timeout",
                 "反則勝ち": "foul_win", "反則負け": "foul_lose", "入玉勝ち": "entering_king",
                 "不戦勝": "win_by_default", "不戦敗": "lose_by_default", "トライ": "try",
                 "最大手数": "max_moves", "引き分け": "draw", "封じ手": "interrupt",
                 "持将棋(引き分け)": "impass"}
TERMINATION_WORD = {"resign": "投了", "interrupt": "中断", "repetition_draw": "千日手",
                    "perpetual_check": "千日手", "impass": "持将棋", "draw": "持将棋",
                    "max_moves": "持将棋", "mate": "詰み", "no_mate": "不詰",
                    "timeout": "切れ負け", "foul_win": "反則勝ち", "foul_lose": "反則負け",
                    "entering_king": "入玉勝ち", "win_by_default": "不戦勝",
                    "lose_by_default": "不戦敗", "try": "トライ", "error": "中断"}
HEADER_FIELDS = {"先手": "black", "下手": "black", "後手": "white", "上手": "white",
                 "開始日時": "start_time", "終了日時": "end_time", "棋戦": "event"}
_PIECE_NAMES = sorted(NAME_KIND, key=len, reverse=True)
_MOVE_NUMBER_RE = re.compile(r"^\s*([0-9]+)\s+(\S.*)$")
_TIME_RE = re.compile(r"\(\s*([0-9]+):([0-9]+)(?:\.[0-9]+)?\s*(?:/\s*([0-9:]+)\s*)?\)")
_BRANCH_RE = re.compile(r"^変化[：:]\s*([0-9]+)手")
_KI2_MOVE_RE = re.compile(r"([▲△▽☗☖])([^▲△▽☗☖]+)")
_RESULT_RE = re.compile(r"^まで、?(?:([0-9]+)手で?)?(.*)$")
_SENTE = "▲"
_GOTE = "△"


@dataclass
class _RawMove:
    text: str
    line: int
    time: float | None = None
    comments: list[str] = field(default_factory=list)


@dataclass
class _RawLine:
    ply: int                       # move number of its first move
    moves: list[_RawMove] = field(default_factory=list)
    special: str | None = None     # a termination
    special_line: int = 0
    children: list["_RawLine"] = field(default_factory=list)
    winner_word: str | None = None

    @property
    def end(self) -> int:
        return self.ply + len(self.moves) - 1 + (1 if self.special else 0)


# ---- reading ----------------------------------------------------------------------------

def read_kif(text: str, source: str | None = None, ki2: bool | None = None) -> list[Record]:
    """The game of a KIF or KI2 text (one per text).  `ki2` None: KI2 if the moves are
    written ``▲７六歩`` without origins."""
    lines = text.splitlines()
    if ki2 is None:
        ki2 = any(_KI2_MOVE_RE.match(line.lstrip()) for line in lines) and not any(
            _MOVE_NUMBER_RE.match(line) for line in lines)
    record = Record(source=source or "")
    bod: dict = {"rows": [], "hands": {}, "turn": None, "line": 0}
    main = _RawLine(ply=1)
    stack = [main]
    current = main
    started = False           # a move (or the move list's heading) has been read
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("*"):
            comment = stripped[1:]
            if current.moves:
                current.moves[-1].comments.append(comment)
            elif current is main and not main.special:
                record.comment = (record.comment + "\n" if record.comment else "") + comment
            continue
        if stripped.startswith("&"):
            continue
        branch = _BRANCH_RE.match(stripped)
        if branch:
            ply = int(branch.group(1))
            while stack and not (stack[-1].ply <= ply <= stack[-1].end
                                 if stack[-1] is main else stack[-1].ply < ply <= stack[-1].end):
                stack.pop()
            if not stack:
                raise RecordError(f"変化 at move {branch.group(1)} branches off no line "
                                  "read before it", source, number)
            current = _RawLine(ply=ply)
            stack[-1].children.append(current)
            stack.append(current)
            started = True
            continue
        if stripped.startswith("まで"):
            _read_result_line(current, stripped, number)
            continue
        if stripped.startswith("手数") and "指手" in stripped:
            started = True
            continue
        if not started and _read_board_line(stripped, bod, number):
            continue
        if ki2 and stripped[0] in "▲△▽☗☖":
            if current is main and not main.moves and not started:
                main.ply = bod.get("ply") or 1
            started = True
            for mark, move in _KI2_MOVE_RE.findall(stripped.replace("\u3000", "")):
                move = move.strip()
                if move in SPECIAL_WORDS:
                    current.special, current.special_line = SPECIAL_WORDS[move], number
                else:
                    current.moves.append(_RawMove(move, number))
            continue
        match = _MOVE_NUMBER_RE.match(line)
        if match and not ki2:
            started = True
            _read_kif_move(current, match, number, source, main)
            continue
        if not started:
            key, sep, value = stripped.replace(":", "：", 1).partition("：") \
                if "：" not in stripped else stripped.partition("：")
            if sep:
                _read_header(record, key.strip(), value.strip(), bod, number, source)
                continue
        # anything else (a free text line, an unknown marker) is passed over
    start = _start_position(record, bod, source)
    first = bod.get("ply") or main.ply
    if first > 1:                      # the move number of the first move
        start = " ".join(start.split()[:3] + [str(first)])
    record.start_sfen = start
    if record.handicap is None:
        record.handicap = handicap_of(start)
    game = Game(start, source, bod["line"] or None)
    _replay(record, main, game, source, ki2, top=True, offset=main.ply - 1)
    return [record]


def _read_header(record: Record, key: str, value: str, bod: dict, number: int,
                 source: str | None) -> None:
    if key in HEADER_FIELDS:
        setattr(record, HEADER_FIELDS[key], value)
    elif key == "手合割":
        record.handicap = value
        bod["handicap_line"] = number
    elif key in ("先手の持駒", "下手の持駒", "後手の持駒", "上手の持駒"):
        color = "+" if key[0] in "先下" else "-"
        bod["hands"][color] = _read_hand(value, source, number)
        bod["line"] = bod["line"] or number
    elif key == "手数" or key == "手数＝":
        pass
    else:
        record.headers[key] = value


def _read_board_line(stripped: str, bod: dict, number: int) -> bool:
    if stripped.startswith("|") and len(bod["rows"]) < 9:
        bod["rows"].append((stripped, number))
        bod["line"] = bod["line"] or number
        return True
    if stripped.startswith("手数＝"):
        try:
            bod["ply"] = kanji_number(stripped[3:]) + 1
        except ValueError:
            pass
        return True
    if stripped.startswith("+--") or stripped.startswith("９ ８"):
        return True
    if stripped in ("先手番", "下手番"):
        bod["turn"] = "+"
        return True
    if stripped in ("後手番", "上手番"):
        bod["turn"] = "-"
        return True
    if stripped.startswith("９") and "１" in stripped and "|" not in stripped:
        return True
    return False


def _read_hand(value: str, source: str | None, number: int) -> dict[str, int]:
    hand: dict[str, int] = {}
    value = value.replace("\u3000", " ").strip()
    if value in ("なし", ""):
        return hand
    for token in value.split():
        kind = NAME_KIND.get(token[0])
        if kind not in HAND_KINDS:
            raise RecordError(f"bad piece in hand {token!r}", source, number)
        try:
            count = kanji_number(token[1:]) if token[1:] else 1
        except ValueError:
            raise RecordError(f"bad count in hand {token!r}", source, number) from None
        hand[kind] = hand.get(kind, 0) + count
    return hand


def _start_position(record: Record, bod: dict, source: str | None) -> str:
    if bod["rows"]:
        if len(bod["rows"]) != 9:
            raise RecordError("a board diagram needs 9 ranks", source, bod["rows"][0][1])
        board = board_from_sfen("9/9/9/9/9/9/9/9/9 b - 1")
        for rank, (row, number) in enumerate(bod["rows"], 1):
            cells = row[1:].split("|")[0]
            file, color = 9, "+"
            for ch in cells:
                if ch in " ^":
                    continue
                if ch == "v":
                    color = "-"
                    continue
                if ch in "・":
                    file -= 1
                elif ch in NAME_KIND:
                    if file < 1:
                        raise RecordError("more than 9 squares in a rank", source, number)
                    board.squares[(file, rank)] = (color, NAME_KIND[ch])
                    file -= 1
                else:
                    raise RecordError(f"bad square {ch!r} in the board diagram", source, number)
                color = "+"
            if file != 0:
                raise RecordError(f"{9 - file} squares in a rank, not 9", source, number)
        board.hands = {"+": bod["hands"].get("+", {}), "-": bod["hands"].get("-", {})}
        board.turn = bod["turn"] or "+"
        return board.sfen()
    if record.handicap and record.handicap not in ("平手",):
        sfen = handicap_sfen(record.handicap)
        if sfen is None:
            raise RecordError(f"unknown handicap {record.handicap!r} and no board diagram",
                              source, bod.get("handicap_line"))
        return sfen
    return STARTPOS_SFEN


def _read_kif_move(current: _RawLine, match: re.Match, number: int, source: str | None,
                   main: _RawLine) -> None:
    ply, rest = int(match.group(1)), match.group(2).replace("\u3000", "")
    if current is main and not current.moves and not current.special:
        main.ply = ply                   # a record starting at move N (手数＝N-1)
    elif ply != current.ply + len(current.moves):
        raise RecordError(f"move number {ply} where {current.ply + len(current.moves)} "
                          "was expected", source, number)
    token = rest.split()[0] if rest.split() else rest
    time = _TIME_RE.search(rest)
    seconds = int(time.group(1)) * 60 + int(time.group(2)) if time else None
    word = token.split("(")[0]
    if word in SPECIAL_WORDS or token in SPECIAL_WORDS:
        current.special, current.special_line = SPECIAL_WORDS.get(word) or SPECIAL_WORDS[token], number
        return
    current.moves.append(_RawMove(token, number, seconds))


def _read_result_line(current: _RawLine, text: str, number: int) -> None:
    match = _RESULT_RE.match(text.replace("\u3000", "").replace(" ", ""))
    words = match.group(2) if match else ""
    if words.startswith("で"):
        words = words[1:]
    for who in ("先手", "下手", "後手", "上手"):
        if who in words and ("勝ち" in words or "負け" in words):
            mover_named = "+" if who in ("先手", "下手") else "-"
            current.winner_word = mover_named + ("W" if words.endswith("勝ち") else "L")
    if current.special:
        return
    termination: str | None
    if words.startswith("時間切れ") or words.endswith("切れ負け"):
        termination = "timeout"
    elif words.endswith("反則勝ち"):
        termination = "foul_win"
    elif words.endswith("反則負け"):
        termination = "foul_lose"
    elif words.endswith("入玉勝ち"):
        termination = "entering_king"
    elif words.endswith("勝ち"):
        termination = "resign"
    else:
        termination = next((SPECIAL_WORDS[w] for w in SPECIAL_WORDS if words.endswith(w)), None)
    if termination:
        current.special, current.special_line = termination, number


def _parse_square(text: str, game: Game) -> tuple[tuple[int, int], str]:
    """The destination at the start of a move text and the rest of the text."""
    if text.startswith("同"):
        if game.last_to is None:
            raise ValueError("同 with no move before")
        return game.last_to, text[1:]
    if len(text) >= 2:
        f, r = text[0], text[1]
        file = WIDE_DIGITS.index(f) + 1 if f in WIDE_DIGITS else int(f) if f in "123456789" else 0
        rank = KANJI_DIGITS.index(r) + 1 if r in KANJI_DIGITS else int(r) if r in "123456789" else 0
        if file and rank:
            rest = text[2:]
            if rest.startswith("同"):      # ``同７六歩``? no: ``７六同歩`` is not written; pass
                rest = rest[1:]
            return (file, rank), rest
    raise ValueError("no square")


def _parse_piece(text: str) -> tuple[str, str]:
    for name in _PIECE_NAMES:
        if text.startswith(name):
            return NAME_KIND[name], text[len(name):]
    raise ValueError("no piece name")


def kif_move_to_usi(game: Game, text: str) -> str:
    """A KIF move (``７六歩(77)``, ``同　銀(43)``, ``５五角打``, ``２二角成(88)``) in
    USI, in the game's position (ValueError if it does not read)."""
    to, rest = _parse_square(text.replace("\u3000", "").replace(" ", ""), game)
    kind, rest = _parse_piece(rest)
    promote = False
    if rest.startswith("成"):
        promote, rest = True, rest[1:]
    elif rest.startswith("不成") or rest.startswith("生"):
        rest = rest[2:] if rest.startswith("不成") else rest[1:]
    if rest.startswith("打"):
        if kind not in HAND_KINDS:
            raise ValueError(f"cannot drop {KIND_MOVE_NAME.get(kind, kind)}")
        return f"{_sfen_letter(kind)}*{square_usi(*to)}"
    match = re.match(r"^\(([1-9])([1-9])\)", rest)
    if not match:
        if not rest:                          # no origin: a drop written without 打
            if kind in HAND_KINDS:
                return f"{_sfen_letter(kind)}*{square_usi(*to)}"
        raise ValueError("no origin square (NN)")
    frm = (int(match.group(1)), int(match.group(2)))
    on_board = game.piece_kind(frm)
    if on_board is None:
        raise ValueError(f"no piece on {frm[0]}{frm[1]}")
    if on_board != kind and not (promote and PROMOTE.get(on_board) == kind):
        raise ValueError(f"the piece on {frm[0]}{frm[1]} is {KIND_MOVE_NAME[on_board]}")
    return f"{square_usi(*frm)}{square_usi(*to)}{'+' if promote else ''}"


def _sfen_letter(kind: str) -> str:
    return {"FU": "P", "KY": "L", "KE": "N", "GI": "S", "KI": "G", "KA": "B", "HI": "R"}[kind]


def _forward(color: str, frm: tuple[int, int], to: tuple[int, int]) -> int:
    return (frm[1] - to[1]) if color == "+" else (to[1] - frm[1])


def _motion(color: str, frm: tuple[int, int], to: tuple[int, int]) -> str:
    dy = _forward(color, frm, to)
    return "上" if dy > 0 else "引" if dy < 0 else "寄"


def _rightness(color: str, square: tuple[int, int]) -> int:
    return -square[0] if color == "+" else square[0]


_GOLD_STEPS = ((0, -1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1))
_KING_STEPS = ((0, -1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, 1), (1, 1), (-1, 1))
_DIAGONALS = ((1, -1), (-1, -1), (1, 1), (-1, 1))
_ORTHOGONALS = ((0, -1), (1, 0), (-1, 0), (0, 1))
#: (steps, slides) of each kind, for black (rank 1 ahead); white's are mirrored.
_MOVES = {"FU": (((0, -1),), ()), "KY": ((), ((0, -1),)), "KE": (((1, -2), (-1, -2)), ()),
          "GI": (((0, -1), (1, -1), (-1, -1), (1, 1), (-1, 1)), ()),
          "KI": (_GOLD_STEPS, ()), "TO": (_GOLD_STEPS, ()), "NY": (_GOLD_STEPS, ()),
          "NK": (_GOLD_STEPS, ()), "NG": (_GOLD_STEPS, ()), "OU": (_KING_STEPS, ()),
          "KA": ((), _DIAGONALS), "HI": ((), _ORTHOGONALS),
          "UM": (_ORTHOGONALS, _DIAGONALS), "RY": (_DIAGONALS, _ORTHOGONALS)}


def _reaches(game: Game, frm: tuple[int, int], to: tuple[int, int]) -> bool:
    """Can the piece on frm move to `to` by its movement (pins and checks aside)?"""
    color, kind = game.board.squares[frm]
    steps, slides = _MOVES[kind]
    sign = 1 if color == "+" else -1
    df, dr = to[0] - frm[0], (to[1] - frm[1]) * sign
    df *= sign
    if (df, dr) in steps:
        return True
    for sf, sr in slides:
        f, r = frm[0] + sf * sign, frm[1] + sr * sign
        while 1 <= f <= 9 and 1 <= r <= 9:
            if (f, r) == to:
                return True
            if (f, r) in game.board.squares:
                break
            f, r = f + sf * sign, r + sr * sign
    return False


def _candidates(game: Game, kind: str, to: tuple[int, int]) -> list[tuple[int, int]]:
    """Squares of the mover's pieces of `kind` that could move to `to` (pins aside, as
    KI2 writers tell pieces apart)."""
    target = game.board.squares.get(to)
    if target is not None and target[0] == game.turn:
        return []
    return sorted(sq for sq, (color, k) in game.board.squares.items()
                  if color == game.turn and k == kind and _reaches(game, sq, to))


def ki2_move_to_usi(game: Game, text: str) -> str:
    """A KI2 move without its mark (``７六歩``, ``同歩``, ``５八金右``, ``２二角成``,
    ``５五角打``) in USI, in the game's position (ValueError if it does not read or is
    ambiguous)."""
    to, rest = _parse_square(text.replace("\u3000", "").replace(" ", ""), game)
    kind, rest = _parse_piece(rest)
    words, promote = set(), None
    while rest:
        if rest.startswith("不成"):
            promote, rest = False, rest[2:]
        elif rest[0] == "生":
            promote, rest = False, rest[1:]
        elif rest[0] == "成":
            promote, rest = True, rest[1:]
        elif rest[0] in "右左直上引寄行打":
            words.add("上" if rest[0] == "行" else rest[0])
            rest = rest[1:]
        else:
            raise ValueError(f"unknown word {rest!r}")
    color = game.turn
    target = square_usi(*to)
    legal = game.legal()
    drop = f"{_sfen_letter(kind)}*{target}" if kind in HAND_KINDS else None
    if drop and drop not in legal:
        drop = None
    origins = set()     # the squares a piece of this kind legally moves to `to` from
    for usi in legal:
        if usi[2:4] != target:
            continue
        frm = usi_squares(usi)[0]
        if frm is not None and game.piece_kind(frm) == kind:     # None: a drop
            origins.add(frm)
    legal_squares = sorted(origins)
    if "打" in words:
        if drop is None:
            raise ValueError("no such drop")
        return drop
    if not legal_squares:
        if drop:
            return drop
        raise ValueError(f"no {KIND_MOVE_NAME[kind]} can go to {target}")
    # the words tell apart the pieces that could go there, pinned ones included (as
    # most writers count them); failing that, the pieces that legally can
    squares = _by_words(color, to, _candidates(game, kind, to), words)
    if len(squares) != 1 or squares[0] not in legal_squares:
        squares = _by_words(color, to, legal_squares, words)
    if len(squares) != 1:
        raise ValueError("ambiguous" if squares else "no piece fits those words")
    plain = f"{square_usi(*squares[0])}{target}"
    if promote is True:
        return plain + "+"
    if promote is False or plain in legal:
        return plain
    return plain + "+"


def _by_words(color: str, to, squares: list, words: set) -> list:
    for word in ("上", "引", "寄"):
        if word in words:
            squares = [s for s in squares if _motion(color, s, to) == word]
    if "直" in words:
        squares = [s for s in squares if s[0] == to[0] and _forward(color, s, to) > 0]
    if "右" in words or "左" in words:
        sign = 1 if "右" in words else -1
        best = max((sign * _rightness(color, s) for s in squares), default=None)
        squares = [s for s in squares if sign * _rightness(color, s) == best]
    return squares


def _replay(record: Record | Variation, raw: _RawLine, game: Game, source: str | None,
            ki2: bool, top: bool = False, offset: int = 0) -> None:
    convert = ki2_move_to_usi if ki2 else kif_move_to_usi
    children: dict[int, list[_RawLine]] = {}
    for child in raw.children:
        children.setdefault(child.ply, []).append(child)
    for index, move in enumerate(raw.moves + [None]):
        ply = raw.ply + index
        for child in children.get(ply, []):
            branch = Variation(ply=ply - offset)
            _replay(branch, child, game.copy(), source, ki2, offset=offset)
            record.variations.append(branch)
        if move is None:
            break
        try:
            usi = convert(game, move.text)
        except ValueError as exc:
            raise RecordError(f"bad move {move.text!r} at move {game.ply + 1}: {exc}",
                              source, move.line) from None
        game.push(usi, source, move.line, move.text)
        record.moves.append(usi)
        record.times.append(move.time)
        record.comments.append("\n".join(move.comments))
    record.termination = raw.special
    if top:
        assert isinstance(record, Record)
        record.result = result_of(raw.special, (start_turn(record.start_sfen) + len(record.moves)) % 2)
        if raw.winner_word:
            side, outcome = raw.winner_word[0], raw.winner_word[1]     # "+W", "-L", ...
            winner = side if outcome == "W" else ("-" if side == "+" else "+")
            record.result = "black_win" if winner == "+" else "white_win"


# ---- writing ----------------------------------------------------------------------------

def _square_text(to: tuple[int, int], game: Game) -> str:
    if game.last_to == to:
        return "同\u3000"
    return WIDE_DIGITS[to[0] - 1] + KANJI_DIGITS[to[1] - 1]


def _moving_kind(game: Game, frm: tuple[int, int]) -> str:
    """The kind of the piece on `frm`. A move from an empty square (one that is not
    legal, say a stale PV's) raises KeyError, as looking up its name always did: the
    writers and the analysis's line texts catch that."""
    kind = game.piece_kind(frm)
    if kind is None:
        raise KeyError(f"no piece on {frm[0]}{frm[1]}")
    return kind


def kif_move_text(game: Game, usi: str) -> str:
    """The KIF text of a legal USI move in the game's position."""
    frm, to, promote, dropped = usi_squares(usi)
    square = _square_text(to, game)
    if frm is None:
        assert dropped is not None      # usi_squares names the kind of every drop
        return f"{square}{KIND_MOVE_NAME[dropped]}打"
    kind = _moving_kind(game, frm)
    return f"{square}{KIND_MOVE_NAME[kind]}{'成' if promote else ''}({frm[0]}{frm[1]})"


def ki2_move_text(game: Game, usi: str) -> str:
    """The KI2 text of a legal USI move (without its ▲/△ mark)."""
    frm, to, promote, dropped = usi_squares(usi)
    square = _square_text(to, game)
    legal = game.legal()
    target = usi[2:4] if frm is not None else usi[2:]
    color = game.turn
    if frm is None:
        assert dropped is not None      # usi_squares names the kind of every drop
        rivals = _candidates(game, dropped, to)
        return f"{square}{KIND_MOVE_NAME[dropped]}{'打' if rivals else ''}"
    kind = _moving_kind(game, frm)
    squares = _candidates(game, kind, to)
    words = _ki2_words(color, kind, frm, to, squares)
    suffix = ""
    if promote:
        suffix = "成"
    elif usi + "+" in legal:
        suffix = "不成"
    name = KIND_MOVE_NAME[kind]
    if square.startswith("同") and len(name) == 1:
        square = "同\u3000"
    elif square.startswith("同"):
        square = "同"
    return f"{square}{name}{words}{suffix}"


def _ki2_words(color: str, kind: str, frm, to, squares) -> str:
    others = [s for s in squares if s != frm]
    if not others:
        return ""
    motion = _motion(color, frm, to)
    if kind not in ("RY", "UM") and frm[0] == to[0] and _forward(color, frm, to) > 0:
        return "直"
    if all(_motion(color, s, to) != motion for s in others):
        return motion

    def side(group):
        ranks = sorted(_rightness(color, s) for s in group)
        mine = _rightness(color, frm)
        if mine == ranks[-1] and ranks.count(mine) == 1:
            return "右"
        if mine == ranks[0] and ranks.count(mine) == 1:
            return "左"
        return None

    word = side(squares)
    if word:
        return word
    same = [s for s in squares if _motion(color, s, to) == motion]
    word = side(same)
    if word:
        return word + motion
    raise ValueError(f"cannot tell the {KIND_MOVE_NAME[kind]} on {frm} apart in KI2")


def _time_text(seconds: float | None, total: float) -> str:
    s = int(round(seconds or 0))
    t = int(round(total))
    return f"({s // 60:>2}:{s % 60:02d}/{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d})"


def _side_names(record: Record) -> tuple[str, str]:
    handicap = record.handicap or handicap_of(record.start_sfen)
    if handicap and handicap != "平手":
        return "下手", "上手"
    return "先手", "後手"


def _bod_lines(sfen: str) -> list[str]:
    board = board_from_sfen(sfen)
    black, white = "先手", "後手"

    def hand(color):
        items = [KIND_BOARD_NAME[k] + kanji_count(board.hands[color].get(k, 0))
                 for k in HAND_KINDS if board.hands[color].get(k, 0)]
        return "\u3000".join(items) + "\u3000" if items else "なし"

    lines = [f"{white}の持駒：{hand('-')}", "  ９ ８ ７ ６ ５ ４ ３ ２ １",
             "+---------------------------+"]
    for rank in range(1, 10):
        cells = ""
        for file in range(9, 0, -1):
            piece = board.squares.get((file, rank))
            cells += " ・" if piece is None else ("v" if piece[0] == "-" else " ") + \
                KIND_BOARD_NAME[piece[1]]
        lines.append(f"|{cells}|{KANJI_DIGITS[rank - 1]}")
    lines += ["+---------------------------+", f"{black}の持駒：{hand('+')}"]
    lines.append(f"{white}番" if board.turn == "-" else f"{black}番")
    return lines


def _first_number(record: Record) -> int:
    parts = record.start_sfen.split()
    return int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else 1


def _result_line(record: Record | Variation, game: Game, count: int,
                 names: tuple[str, str] = ("先手", "後手")) -> str | None:
    t = record.termination
    if t is None:
        return None
    mover = names[0] if game.turn == "+" else names[1]
    last = names[1] if game.turn == "+" else names[0]
    head = f"まで{count}手で"
    if t in ("resign", "mate"):
        return head + f"{last}の勝ち"
    if t == "timeout":
        return head + f"時間切れにより{last}の勝ち"
    if t in ("entering_king", "foul_win", "foul_lose"):
        return head + f"{mover}の{TERMINATION_WORD[t]}"
    return head + TERMINATION_WORD[t]


def _header_lines(record: Record) -> list[str]:
    lines = []
    for key, name in (("開始日時", "start_time"), ("終了日時", "end_time"), ("棋戦", "event")):
        if getattr(record, name):
            lines.append(f"{key}：{getattr(record, name)}")
    for key, value in record.headers.items():
        if key not in HEADER_FIELDS and key != "手合割":
            lines.append(f"{key}：{value}")
    handicap = handicap_of(record.start_sfen)
    if handicap:
        lines.append(f"手合割：{handicap}")
    else:
        lines += _bod_lines(record.start_sfen)
        if _first_number(record) > 1:
            lines.append(f"手数＝{_first_number(record) - 1}")
    black, white = _side_names(record)
    if record.black:
        lines.append(f"{black}：{record.black}")
    if record.white:
        lines.append(f"{white}：{record.white}")
    for comment in record.comment.splitlines() if record.comment else []:
        lines.append("*" + comment)
    return lines


def write_kif(record: Record) -> str:
    """The record as KIF (Unicode text; encode it as CP932 for a .kif file, UTF-8 for
    .kifu)."""
    record.fill()
    lines = _header_lines(record)
    lines.append("手数----指手---------消費時間--")
    game = Game(record.start_sfen)
    with_times = any(t is not None for t in record.times)
    offset = _first_number(record) - 1
    _write_kif_line(lines, record, game, 1, with_times, [0.0, 0.0], offset)
    result = _final_result(record)
    if result:
        lines.append(result)
    _write_kif_variations(lines, record, Game(record.start_sfen), 1, with_times, offset)
    return "\n".join(lines) + "\n"


def _final_result(record: Record) -> str | None:
    game = Game(record.start_sfen)
    for usi in record.moves:
        game.push(usi)
    return _result_line(record, game, len(record.moves) + _first_number(record) - 1,
                        _side_names(record))


def _write_kif_line(lines, line, game: Game, first_ply: int, with_times: bool,
                    totals: list[float], offset: int = 0) -> None:
    branched = {v.ply for v in line.variations}
    for index, usi in enumerate(line.moves):
        ply = first_ply + index
        side = (game.turn == "-") * 1
        text = kif_move_text(game, usi)
        game.push(usi, text=usi)
        entry = f"{ply + offset:>4} {text}"
        if with_times:
            seconds = line.times[index] if index < len(line.times) else None
            totals[side] += seconds or 0
            entry = _pad(entry, 14) + " " + _time_text(seconds, totals[side])
        if ply in branched:
            entry += "+"
        lines.append(entry)
        comment = line.comments[index] if index < len(line.comments) else ""
        for c in comment.splitlines() if comment else []:
            lines.append("*" + c)
    if line.termination:
        ply = first_ply + len(line.moves)
        entry = f"{ply + offset:>4} {TERMINATION_WORD[line.termination]}"
        if with_times:
            entry = _pad(entry, 14) + " " + _time_text(0, totals[(game.turn == "-") * 1])
        lines.append(entry)


def _pad(text: str, width: int) -> str:
    wide = sum(1 for ch in text if ord(ch) > 0x7F)
    return text + " " * max(0, width - len(text) - wide)


def _write_kif_variations(lines, line, game: Game, first_ply: int, with_times: bool,
                          offset: int = 0) -> None:
    """Variations in KIF order: deepest-last, later plies first (as Kakinoki writes)."""
    positions = [game.copy()]
    for usi in line.moves:
        game.push(usi)
        positions.append(game.copy())
    for variation in sorted(line.variations, key=lambda v: -v.ply):
        base = positions[variation.ply - first_ply].copy()
        lines.append("")
        lines.append(f"変化：{variation.ply + offset}手")
        _write_kif_line(lines, variation, base.copy(), variation.ply, with_times, [0.0, 0.0],
                        offset)
        _write_kif_variations(lines, variation, base.copy(), variation.ply, with_times, offset)


def write_ki2(record: Record) -> str:
    """The record as KI2."""
    record.fill()
    lines = _header_lines(record)
    game = Game(record.start_sfen)
    names = _side_names(record)
    game.ply = _first_number(record) - 1          # result lines count from there
    _write_ki2_line(lines, record, game, names)
    start = Game(record.start_sfen)
    start.ply = game.ply - len(record.moves)
    _write_ki2_variations(lines, record, start, 1, names)
    return "\n".join(lines) + "\n"


def _write_ki2_line(lines, line, game: Game, names=("先手", "後手")) -> None:
    row: list[str] = []
    for index, usi in enumerate(line.moves):
        mark = _SENTE if game.turn == "+" else _GOTE
        row.append(mark + ki2_move_text(game, usi))
        game.push(usi)
        comment = line.comments[index] if index < len(line.comments) else ""
        if comment or len(row) == 6:
            lines.append(" ".join(row))
            row = []
            for c in comment.splitlines() if comment else []:
                lines.append("*" + c)
    if row:
        lines.append(" ".join(row))
    result = _result_line(line, game, game.ply, names)
    if result:
        lines.append(result)


def _write_ki2_variations(lines, line, game: Game, first_ply: int, names) -> None:
    offset = game.ply - (first_ply - 1)        # 変化 numbers count from the record's start
    positions = [game.copy()]
    for usi in line.moves:
        game.push(usi)
        positions.append(game.copy())
    for variation in sorted(line.variations, key=lambda v: -v.ply):
        base = positions[variation.ply - first_ply]
        lines.append("")
        lines.append(f"変化：{variation.ply + offset}手")
        _write_ki2_line(lines, variation, base.copy(), names)
        _write_ki2_variations(lines, variation, base.copy(), variation.ply, names)
