"""Weight files of the learned king-piece evaluation (`usi_engine.kp`).

A file is a 24-byte header and the table, all little-endian:

    magic     8 bytes  b"USIEVKP1"
    buckets   uint32   45 (king squares, mirrored)
    features  uint32   2263 per king square
    scale     uint32   8 (weights are in 1/8 centipawn)
    crc32     uint32   of the table's bytes
    table     int16 x buckets * features

A file that is missing, truncated, of another shape or whose checksum does not match
is refused with `WeightFileError` saying which; nothing is installed then.

    >>> from usi_engine import eval_weights
    >>> table = eval_weights.read_weights(eval_weights.embedded_path())
    >>> table.dtype, table.shape
    (dtype('int16'), (101835,))
"""
from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import numpy as np

from usi_engine import kp

MAGIC = b"USIEVKP1"
HEADER = struct.Struct("<8sIIII")
#: The piece types of the 13 kinds of a view, in order (then the same 13 for the enemy,
#: then the enemy king).
KIND_TYPES = (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14)
#: Where each piece type's counts start among one hand's 38 slots, and how many slots.
HAND_SLOTS = {1: (0, 18), 2: (18, 4), 3: (22, 4), 4: (26, 4), 7: (30, 4), 5: (34, 2), 6: (36, 2)}


class WeightFileError(ValueError):
    """A weight file that cannot be used (the message says why)."""


def embedded_path() -> Path:
    """The weights shipped inside the package (the default of `EvalFile`)."""
    return Path(__file__).resolve().parent / "data" / "kp.bin"


def read_weights(path: str | os.PathLike) -> np.ndarray:
    """The int16 table of a weight file; `WeightFileError` if it cannot be used."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise WeightFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    expected = HEADER.size + 2 * kp.WEIGHT_COUNT
    if len(data) < HEADER.size:
        raise WeightFileError(f"{path}: truncated ({len(data)} bytes, expected {expected})")
    magic, buckets, features, scale, crc = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise WeightFileError(f"{path}: not a KP weight file (magic {magic!r})")
    if (buckets, features, scale) != (kp.KING_BUCKETS, kp.FEATURES_PER_BUCKET, kp.SCALE):
        raise WeightFileError(f"{path}: shape {buckets}x{features} scale {scale}, expected "
                              f"{kp.KING_BUCKETS}x{kp.FEATURES_PER_BUCKET} scale {kp.SCALE}")
    if len(data) != expected:
        raise WeightFileError(f"{path}: {'truncated' if len(data) < expected else 'too long'} "
                              f"({len(data)} bytes, expected {expected})")
    payload = data[HEADER.size:]
    if zlib.crc32(payload) != crc:
        raise WeightFileError(f"{path}: checksum mismatch (damaged file)")
    return np.frombuffer(payload, dtype="<i2").astype(np.int16)


def write_weights(path: str | os.PathLike, table: np.ndarray) -> None:
    """Write an int16 table (see `quantize`) as a weight file, atomically."""
    table = np.asarray(table)
    if table.dtype != np.int16 or table.shape != (kp.WEIGHT_COUNT,):
        raise ValueError(f"expected int16[{kp.WEIGHT_COUNT}], got {table.dtype}{list(table.shape)}")
    payload = table.astype("<i2").tobytes()
    header = HEADER.pack(MAGIC, kp.KING_BUCKETS, kp.FEATURES_PER_BUCKET, kp.SCALE,
                         zlib.crc32(payload))
    tmp = Path(f"{path}.tmp")
    tmp.write_bytes(header + payload)
    os.replace(tmp, path)


def quantize(weights_cp: np.ndarray) -> np.ndarray:
    """Centipawn weights (floats) to the stored int16 units, rounded and clipped."""
    scaled = np.rint(np.asarray(weights_cp, dtype=np.float64) * kp.SCALE)
    return np.clip(scaled, -32767, 32767).astype(np.int16)


def dequantize(table: np.ndarray) -> np.ndarray:
    """Stored int16 units back to centipawns (float64)."""
    return np.asarray(table, dtype=np.float64) / kp.SCALE


def hand_projection() -> np.ndarray:
    """The hand-written evaluation (`usi_engine.evaluate`) written as KP weights, in
    centipawns: material split between the two views, each piece's distance terms to
    its own and to the enemy king, and the exposed-king terms.  Up to rounding it
    scores every position as the hand-written evaluation does; training starts here."""
    from usi_engine.evaluate import default_weights
    hw = default_weights()
    piece, hand = hw["piece"], hw["hand"]
    attack, defence = hw["attack"], hw["defence"]
    exposure, pressure = hw["king_exposure"], float(hw["hand_pressure"])
    per_bucket = kp.FEATURES_PER_BUCKET
    w = np.zeros((kp.KING_BUCKETS, per_bucket), dtype=np.float64)
    squares = np.arange(81)
    for bucket in range(kp.KING_BUCKETS):
        king_file, king_rank = divmod(bucket, 9)
        distance = np.maximum(abs(squares // 9 - king_file), abs(squares % 9 - king_rank))
        back_rank_distance = 8 - king_rank
        for kind, pt in enumerate(KIND_TYPES):
            w[bucket, kind * 81:(kind + 1) * 81] = piece[pt] / 2 + defence[pt][distance]
            enemy = kind + 13
            w[bucket, enemy * 81:(enemy + 1) * 81] = -piece[pt] / 2 - attack[pt][distance]
        w[bucket, 26 * 81:27 * 81] = exposure[back_rank_distance] * 4 / 8
        per_enemy_hand_piece = (exposure[back_rank_distance] / 8
                                - pressure * (back_rank_distance > 1))
        for pt, (start, count) in HAND_SLOTS.items():
            own = 27 * 81 + start
            w[bucket, own:own + count] = hand[pt] / 2
            theirs = 27 * 81 + kp.HAND_SLOTS + start
            w[bucket, theirs:theirs + count] = -hand[pt] / 2 + per_enemy_hand_piece
    return w.reshape(-1)
