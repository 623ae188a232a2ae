"""Shared by the record formats: the board behind the moves (the CSA bridge's
`CsaBoard`), set up from an SFEN; a `Game` that plays moves checked for legality by
`usi_engine.core.position.Position`; the handicap table; Japanese piece names."""
from __future__ import annotations

from usi_engine.notation.csa_board import (FROM_SFEN_LETTER, HAND_KINDS, PROMOTE, UNPROMOTE,
                                     CsaBoard)
from usi_engine.notation.sfen import STARTPOS_SFEN
from usi_engine.record.model import RecordError

RANKS = "abcdefghi"

#: Handicap names (KIF ``手合割``) and their start positions: white (上手) gives up
#: pieces and moves first.  ``平手`` is the standard start.
HANDICAPS = {
    "平手": STARTPOS_SFEN,
    "香落ち": "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "右香落ち": "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "角落ち": "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "飛車落ち": "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "飛香落ち": "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "二枚落ち": "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "三枚落ち": "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "四枚落ち": "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "五枚落ち": "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "左五枚落ち": "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "六枚落ち": "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "左七枚落ち": "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "右七枚落ち": "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "八枚落ち": "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "十枚落ち": "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
}
#: Other spellings met in files.
HANDICAP_ALIASES = {"飛落ち": "飛車落ち", "飛車香落ち": "飛香落ち", "2枚落ち": "二枚落ち",
                    "4枚落ち": "四枚落ち", "6枚落ち": "六枚落ち", "8枚落ち": "八枚落ち",
                    "10枚落ち": "十枚落ち", "3枚落ち": "三枚落ち", "5枚落ち": "五枚落ち",
                    "左5枚落ち": "左五枚落ち"}

#: Japanese names of CSA kinds: in moves (KIF/KI2) and on a board diagram (one character).
KIND_MOVE_NAME = {"FU": "歩", "KY": "香", "KE": "桂", "GI": "銀", "KI": "金", "KA": "角",
                  "HI": "飛", "OU": "玉", "TO": "と", "NY": "成香", "NK": "成桂",
                  "NG": "成銀", "UM": "馬", "RY": "龍"}
KIND_BOARD_NAME = {"FU": "歩", "KY": "香", "KE": "桂", "GI": "銀", "KI": "金", "KA": "角",
                   "HI": "飛", "OU": "玉", "TO": "と", "NY": "杏", "NK": "圭", "NG": "全",
                   "UM": "馬", "RY": "龍"}
#: Every name read, longest first when matching.
NAME_KIND = {"歩": "FU", "香": "KY", "桂": "KE", "銀": "GI", "金": "KI", "角": "KA",
             "飛": "HI", "玉": "OU", "王": "OU", "と": "TO", "成香": "NY", "杏": "NY",
             "仝": "NY", "成桂": "NK", "圭": "NK", "今": "NK", "成銀": "NG", "全": "NG",
             "馬": "UM", "龍": "RY", "竜": "RY"}
WIDE_DIGITS = "１２３４５６７８９"
KANJI_DIGITS = "一二三四五六七八九"


def handicap_of(sfen: str) -> str | None:
    """The handicap name whose start position this is (move number aside), or None."""
    key = sfen.split()[:3]
    for name, start in HANDICAPS.items():
        if start.split()[:3] == key:
            return name
    return None


def handicap_sfen(name: str) -> str | None:
    """The start position of a handicap name (or an alias), or None if unknown."""
    name = name.strip()
    return HANDICAPS.get(HANDICAP_ALIASES.get(name, name))


def kanji_number(text: str) -> int:
    """'十八' -> 18, '二' -> 2, '18' -> 18; ValueError otherwise."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        return int(text)
    if all(ch in WIDE_DIGITS for ch in text) and text:
        return int("".join(str(WIDE_DIGITS.index(ch) + 1) for ch in text))
    total, digit = 0, 0
    for ch in text:
        if ch == "十":
            total += 10 * (digit or 1)
            digit = 0
        elif ch in KANJI_DIGITS:
            digit = KANJI_DIGITS.index(ch) + 1
        else:
            raise ValueError(f"not a number: {text!r}")
    return total + digit


def kanji_count(n: int) -> str:
    """18 -> '十八' (1 -> '')."""
    if n <= 1:
        return ""
    tens, ones = divmod(n, 10)
    return ("" if tens == 0 else ("十" if tens == 1 else KANJI_DIGITS[tens - 1] + "十")) + \
        ("" if ones == 0 else KANJI_DIGITS[ones - 1])


def board_from_sfen(sfen: str) -> CsaBoard:
    """A `CsaBoard` of the SFEN (ValueError if malformed)."""
    parts = sfen.split()
    if len(parts) < 3:
        raise ValueError(f"bad SFEN {sfen!r}")
    board = CsaBoard()
    rows = parts[0].split("/")
    if len(rows) != 9:
        raise ValueError(f"bad SFEN {sfen!r}: 9 ranks expected")
    for rank, row in enumerate(rows, 1):
        file, promoted = 9, False
        for ch in row:
            if ch.isdigit():
                file -= int(ch)
            elif ch == "+":
                promoted = True
            else:
                kind = FROM_SFEN_LETTER[ch.upper()] if ch.upper() != "K" else "OU"
                if promoted:
                    kind = PROMOTE[kind]
                board.squares[(file, rank)] = ("+" if ch.isupper() else "-", kind)
                file, promoted = file - 1, False
    board.turn = "+" if parts[1] == "b" else "-"
    if parts[2] != "-":
        count = ""
        for ch in parts[2]:
            if ch.isdigit():
                count += ch
                continue
            color = "+" if ch.isupper() else "-"
            kind = FROM_SFEN_LETTER[ch.upper()]
            board.hands[color][kind] = board.hands[color].get(kind, 0) + int(count or 1)
            count = ""
    return board


def square_usi(file: int, rank: int) -> str:
    return f"{file}{RANKS[rank - 1]}"


def usi_squares(usi: str) -> tuple[tuple[int, int] | None, tuple[int, int], bool, str | None]:
    """(from square or None for a drop, to square, promotes, dropped CSA kind)."""
    to = (int(usi[2]), RANKS.index(usi[3]) + 1)
    if usi[1] == "*":
        return None, to, False, FROM_SFEN_LETTER[usi[0]]
    return (int(usi[0]), RANKS.index(usi[1]) + 1), to, usi.endswith("+"), None


class Game:
    """A position that records are played on: `Position` checks each move's legality,
    `board` (a `CsaBoard`) knows the pieces by CSA kind for the notations."""

    def __init__(self, sfen: str, source: str | None = None, line: int | None = None):
        from usi_engine.core.position import Position
        try:
            self.position = Position(sfen)
            self.board = board_from_sfen(self.position.sfen())
        except (ValueError, KeyError) as exc:
            raise RecordError(f"bad start position: {exc}", source, line) from None
        self.last_to: tuple[int, int] | None = None
        self.ply = 0
        self._legal: list[str] | None = None

    def copy(self) -> "Game":
        other = Game.__new__(Game)
        other.position = self.position.copy()
        other.board = self.board.copy()
        other.last_to = self.last_to
        other.ply = self.ply
        other._legal = self._legal
        return other

    @property
    def turn(self) -> str:
        return self.board.turn

    def legal(self) -> list[str]:
        """The legal moves here, as USI."""
        if self._legal is None:
            from usi_engine.core.position import move_to_usi
            self._legal = [move_to_usi(m) for m in self.position.legal_moves()]
        return self._legal

    def push(self, usi: str, source: str | None = None, line: int | None = None,
             text: str | None = None) -> None:
        """Play a USI move; RecordError (naming `text`, the move as written) if illegal."""
        try:
            self.position.push_usi(usi)
        except ValueError:
            raise RecordError(f"illegal move {text or usi} ({usi}) at move "
                              f"{self.ply + 1} in {self.position.sfen()}", source, line) from None
        self.board.push_usi(usi)
        self.last_to = usi_squares(usi)[1]
        self.ply += 1
        self._legal = None

    def piece_kind(self, square: tuple[int, int]) -> str | None:
        piece = self.board.squares.get(square)
        return piece[1] if piece else None

    def sfen(self) -> str:
        return self.position.sfen()


__all__ = ["HANDICAPS", "Game", "board_from_sfen", "handicap_of", "handicap_sfen",
           "PROMOTE", "UNPROMOTE", "HAND_KINDS"]
