"""YaneuraOu's NNUE evaluation files (``nn.bin``) of the HalfKP shapes: read, write,
and evaluate a position with one, in numpy (the reference the compiled evaluation is
tested against; ../shared/NNUE-FORMAT.md and YaneuraOu's source/eval/nnue/ are the
authority on the format).

Shapes read: halfkp_256x2-32-32 (tanuki-2018, the Suisho nets up to 5),
halfkp_512x2-16-32 and halfkp_1024x2-8-32 (tanuki- nets of 2023 on); a file's shape is
told by its size, as YaneuraOu's builds each take one shape and check the size.

    >>> net = random_net(seed=1)
    >>> import io
    >>> buffer = io.BytesIO(); write_net(net, buffer)
    >>> len(buffer.getvalue())
    64217066
    >>> read_net(buffer.getvalue()).shape
    (256, 32, 32)
    >>> isinstance(evaluate(net, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"), int)
    True
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from usi_engine.notation.sfen import board_cells, parse_hand

VERSION = 0x7AF32F16
#: (features, accumulator width, layer 1, layer 2) of each shape, by the name YaneuraOu
#: writes in the file's architecture text
SHAPES = {"halfkp_256x2-32-32": (256, 32, 32), "halfkp_512x2-16-32": (512, 16, 32),
          "halfkp_1024x2-8-32": (1024, 8, 32)}
#: The hashes YaneuraOu writes for halfkp_256x2-32-32 (a mismatch only warns there)
FT_HASH_256 = 0x5D69D7B8
NETWORK_HASH_256 = 0x63337156
FEATURES = 81 * 1548            # HalfKP(Friend): king square x BonaPiece, per side
BONA_PIECES = 1548
PIECE_SLOTS = 38                # every piece but the kings
WEIGHT_SCALE_BITS = 6
MAX_EVAL = 31753                # YaneuraOu's VALUE_MAX_EVAL (NNUE edition)
#: the architecture text that YaneuraOu's writers put in the file
ARCHITECTURE_TEXT = ("Features=HalfKP(Friend)[125388->{n}x2],Network=AffineTransform[1<-{l2}]"
                     "(ClippedReLU[{l2}](AffineTransform[{l2}<-{l1}](ClippedReLU[{l1}]"
                     "(AffineTransform[{l1}<-{n2}](InputSlice[{n2}(0:{n2})])))))")

# BonaPiece bases on the board (own, opponent's), by SFEN letter; promoted pawn,
# lance, knight and silver count as gold
_BOARD_BASE = {"P": (90, 171), "L": (252, 333), "N": (414, 495), "S": (576, 657),
               "G": (738, 819), "B": (900, 981), "+B": (1062, 1143), "R": (1224, 1305),
               "+R": (1386, 1467), "+P": (738, 819), "+L": (738, 819), "+N": (738, 819),
               "+S": (738, 819)}
_HAND_BASE = {"P": (1, 20), "L": (39, 44), "N": (49, 54), "S": (59, 64), "G": (69, 74),
              "B": (79, 82), "R": (85, 88)}


class NetFileError(ValueError):
    """An nn.bin that cannot be used: the reason names what is wrong."""


def _padded(n: int) -> int:
    return (n + 31) // 32 * 32


@dataclass
class HalfKpNet:
    """A HalfKP network's integer weights, as YaneuraOu stores them."""

    ft_bias: np.ndarray          # int16[n]
    ft_weight: np.ndarray        # int16[FEATURES][n]
    l1_bias: np.ndarray          # int32[l1]
    l1_weight: np.ndarray        # int8[l1][2n]
    l2_bias: np.ndarray          # int32[l2]
    l2_weight: np.ndarray        # int8[l2][l1]
    out_bias: np.ndarray         # int32[1]
    out_weight: np.ndarray       # int8[1][l2]
    architecture: str = ""

    @property
    def shape(self) -> tuple[int, int, int]:
        """(accumulator width, layer 1, layer 2)."""
        return (len(self.ft_bias), len(self.l1_bias), len(self.l2_bias))


def file_size(n: int, l1: int, l2: int, text_length: int) -> int:
    """The exact size of a HalfKP file of this shape with an architecture text of
    text_length bytes."""
    network = (4 * l1 + l1 * _padded(2 * n) + 4 * l2 + l2 * _padded(l1)
               + 4 + _padded(l2))
    return 12 + text_length + 4 + 2 * n + 2 * FEATURES * n + 4 + network


def read_net(data: bytes) -> HalfKpNet:
    """The network in ``data`` (a whole nn.bin); NetFileError names what is wrong."""
    if len(data) < 12:
        raise NetFileError(f"{len(data)} bytes: too short for an nn.bin header")
    version, _, text_length = struct.unpack_from("<III", data, 0)
    if version != VERSION:
        raise NetFileError(f"version 0x{version:08X}, not 0x{VERSION:08X}: not an nn.bin")
    if 12 + text_length > len(data):
        raise NetFileError(f"architecture text of {text_length} bytes runs past the end")
    text = data[12:12 + text_length].decode("utf-8", "replace")
    for n, l1, l2 in SHAPES.values():
        if file_size(n, l1, l2, text_length) == len(data):
            break
    else:
        raise NetFileError(f"{len(data)} bytes fit none of the shapes read "
                           f"({', '.join(SHAPES)})")
    offset = 12 + text_length + 4          # (the hashes only warn in YaneuraOu: not checked)

    def take(dtype: str, count: int) -> np.ndarray:
        nonlocal offset
        array = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
        offset += array.nbytes
        return array

    ft_bias = take("<i2", n)
    ft_weight = take("<i2", FEATURES * n).reshape(FEATURES, n)
    offset += 4
    l1_bias = take("<i4", l1)
    l1_weight = take("i1", l1 * _padded(2 * n)).reshape(l1, -1)[:, :2 * n]
    l2_bias = take("<i4", l2)
    l2_weight = take("i1", l2 * _padded(l1)).reshape(l2, -1)[:, :l1]
    out_bias = take("<i4", 1)
    out_weight = take("i1", _padded(l2)).reshape(1, -1)[:, :l2]
    return HalfKpNet(ft_bias, ft_weight, l1_bias, l1_weight, l2_bias, l2_weight, out_bias,
                     out_weight, text)


def load_net(path: str | os.PathLike[str]) -> HalfKpNet:
    """The network in the file at ``path`` (OSError if it cannot be read)."""
    return read_net(Path(path).read_bytes())


def _hashes(n: int) -> tuple[int, int]:
    # (YaneuraOu's hashes of the other shapes are not written here: they only warn)
    return (FT_HASH_256, NETWORK_HASH_256) if n == 256 else (0, 0)


def write_net(net: HalfKpNet, out: BinaryIO) -> None:
    """Write ``net`` as YaneuraOu writes an nn.bin of its shape."""
    n, l1, l2 = net.shape
    text = ARCHITECTURE_TEXT.format(n=n, n2=2 * n, l1=l1, l2=l2).encode()
    ft_hash, network_hash = _hashes(n)

    def padded_rows(weight: np.ndarray, width: int) -> bytes:
        rows = np.zeros((weight.shape[0], width), dtype=np.int8)
        rows[:, :weight.shape[1]] = weight
        return rows.tobytes()

    out.write(struct.pack("<III", VERSION, ft_hash ^ network_hash, len(text)) + text)
    out.write(struct.pack("<I", ft_hash))
    out.write(net.ft_bias.astype("<i2").tobytes() + net.ft_weight.astype("<i2").tobytes())
    out.write(struct.pack("<I", network_hash))
    out.write(net.l1_bias.astype("<i4").tobytes() + padded_rows(net.l1_weight, _padded(2 * n)))
    out.write(net.l2_bias.astype("<i4").tobytes() + padded_rows(net.l2_weight, _padded(l1)))
    out.write(net.out_bias.astype("<i4").tobytes() + padded_rows(net.out_weight, _padded(l2)))


def random_net(seed: int, shape: tuple[int, int, int] = (256, 32, 32)) -> HalfKpNet:
    """A network of random weights (for differential tests: both engines must agree on
    it), scaled so that accumulators and layers stay inside their ranges."""
    rng = np.random.default_rng(seed)
    n, l1, l2 = shape
    return HalfKpNet(
        ft_bias=rng.integers(-64, 128, n, dtype=np.int16),
        ft_weight=rng.integers(-24, 25, (FEATURES, n), dtype=np.int16),
        l1_bias=rng.integers(-2000, 2000, l1, dtype=np.int32),
        l1_weight=rng.integers(-20, 21, (l1, 2 * n), dtype=np.int8),
        l2_bias=rng.integers(-2000, 2000, l2, dtype=np.int32),
        l2_weight=rng.integers(-64, 65, (l2, l1), dtype=np.int8),
        out_bias=rng.integers(-3000, 3000, 1, dtype=np.int32),
        out_weight=rng.integers(-127, 128, (1, l2), dtype=np.int8))


def features(sfen: str) -> tuple[list[int], list[int], int]:
    """The active HalfKP feature indices of black's and white's views of a position
    (SFEN), and the side to move (0 black, 1 white). Both kings must be on the board."""
    fields = sfen.split()
    if fields and fields[0] == "sfen":
        fields = fields[1:]
    if len(fields) < 3:
        raise ValueError(f"not an SFEN: {sfen!r}")
    cells = board_cells(fields[0])
    pieces: list[tuple[str, int, int]] = []           # (kind, colour, square)
    kings = [-1, -1]
    for rank, row in enumerate(cells):
        for column, cell in enumerate(row):
            if not cell:
                continue
            square = (8 - column) * 9 + rank           # (file - 1) * 9 + (rank - 1)
            colour = 0 if cell[-1].isupper() else 1
            kind = cell.upper()
            if kind == "K":
                kings[colour] = square
            else:
                pieces.append((kind, colour, square))
    if min(kings) < 0:
        raise ValueError("HalfKP needs both kings on the board")
    hands = [(letter.upper(), 0 if letter.isupper() else 1, count)
             for letter, count in parse_hand(fields[2]).items()]
    views: list[list[int]] = []
    for view in (0, 1):
        king = kings[view] if view == 0 else 80 - kings[view]
        active = []
        for kind, colour, square in pieces:
            base = _BOARD_BASE[kind][0 if colour == view else 1]
            active.append(king * BONA_PIECES + base + (square if view == 0 else 80 - square))
        slots = len(pieces)
        for kind, colour, count in hands:
            base = _HAND_BASE[kind][0 if colour == view else 1]
            active.extend(king * BONA_PIECES + base + k for k in range(count))
            slots += count
        active.extend([king * BONA_PIECES] * max(0, PIECE_SLOTS - slots))   # absent pieces
        views.append(active)
    return views[0], views[1], 0 if fields[1] == "b" else 1


# our piece types (core/types.pxd: 1 pawn .. 7 gold, 9-12 promoted minors, 13 horse,
# 14 dragon) to the SFEN letters of _BOARD_BASE; hands hold types 1..7
_TYPE_LETTER = {1: "P", 2: "L", 3: "N", 4: "S", 5: "B", 6: "R", 7: "G", 9: "+P", 10: "+L",
                11: "+N", 12: "+S", 13: "+B", 14: "+R"}
_HAND_MAX = {1: 18, 2: 4, 3: 4, 4: 4, 5: 2, 6: 2, 7: 4}


def _board_bases() -> np.ndarray:
    """BASE[view][piece code]: the BonaPiece base of a piece on square 0 of its owner's
    view as seen from `view`, -1 for an empty square or a king."""
    bases = np.full((2, 32), -1, dtype=np.int32)
    for view in (0, 1):
        for colour in (0, 1):
            for pt, letter in _TYPE_LETTER.items():
                bases[view, pt | colour << 4] = _BOARD_BASE[letter][0 if colour == view else 1]
    return bases


_BASES = _board_bases()


def board_features(board: np.ndarray, hands: np.ndarray) -> np.ndarray:
    """The HalfKP features of many positions at once, int32 [n, 2, 38]: black's view,
    then white's, each the 38 indices that :func:`features` lists (in another order),
    from our board codes (uint8 [n, 81], the training data's) and hands ([n, 2, 8]).
    Both kings must be on the board.

    >>> board = np.zeros((1, 81), np.uint8); board[0, 4 * 9 + 8] = 8; board[0, 4 * 9] = 24
    >>> hands = np.zeros((1, 2, 8), np.uint8); hands[0, 0, 1] = 1        # a black pawn
    >>> int(max(board_features(board, hands)[0, 0])) - 44 * BONA_PIECES   # 5i's king
    1
    """
    board = np.asarray(board, dtype=np.int32)
    hands = np.asarray(hands, dtype=np.int32)
    n = len(board)
    squares = np.arange(81, dtype=np.int32)
    kings = [np.argmax(board == (8 | colour << 4), axis=1).astype(np.int32)
             for colour in (0, 1)]
    if n and not all(((board == (8 | c << 4)).any(axis=1)).all() for c in (0, 1)):
        raise ValueError("HalfKP needs both kings on the board")
    out = np.empty((n, 2, PIECE_SLOTS), dtype=np.int32)
    for view in (0, 1):
        king = kings[0] if view == 0 else 80 - kings[1]
        origin = (king * BONA_PIECES)[:, None]
        base = _BASES[view][board]
        on_board = np.where(base >= 0, origin + base + (squares if view == 0 else 80 - squares),
                            -1)
        held = []
        for colour in (0, 1):
            for pt, most in _HAND_MAX.items():
                letter = _TYPE_LETTER[pt]
                k = np.arange(most, dtype=np.int32)
                first = origin + _HAND_BASE[letter][0 if colour == view else 1] + k
                held.append(np.where(k[None, :] < hands[:, colour, pt, None], first, -1))
        every = np.concatenate([on_board] + held, axis=1)
        # the valid indices first (at most 38), the rest BonaPiece zero (absent pieces)
        order = np.argsort(every < 0, axis=1, kind="stable")[:, :PIECE_SLOTS]
        chosen = np.take_along_axis(every, order, axis=1)
        out[:, view] = np.where(chosen >= 0, chosen, origin)
    return out


def evaluate(net: HalfKpNet, sfen: str, fv_scale: int = 16) -> int:
    """The static value of a position for the side to move, in YaneuraOu's internal
    units (as its ``eval`` command prints it), computed from scratch."""
    black, white, side = features(sfen)
    accumulators = [(net.ft_bias.astype(np.int32) + net.ft_weight[view].astype(np.int32)
                     .sum(axis=0)).astype(np.int16) for view in (black, white)]
    x = np.concatenate([np.clip(accumulators[side], 0, 127),
                        np.clip(accumulators[side ^ 1], 0, 127)]).astype(np.int32)
    x = np.clip((net.l1_bias + net.l1_weight.astype(np.int32) @ x) >> WEIGHT_SCALE_BITS, 0, 127)
    x = np.clip((net.l2_bias + net.l2_weight.astype(np.int32) @ x) >> WEIGHT_SCALE_BITS, 0, 127)
    output = int(net.out_bias[0] + net.out_weight.astype(np.int32)[0] @ x)
    value = abs(output) // fv_scale * (1 if output >= 0 else -1)   # (C++: toward zero)
    return max(-MAX_EVAL, min(MAX_EVAL, value))
