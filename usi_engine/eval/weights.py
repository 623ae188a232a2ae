"""Weight files of the learned king-piece evaluation (`usi_engine.eval.kp`).

A file is a 24-byte header and the table, all little-endian:

    magic     8 bytes  b"USIEVKP1"
    buckets   uint32   45 (king squares, mirrored)
    features  uint32   2263 per king square
    scale     uint32   8 (weights are in 1/8 centipawn)
    crc32     uint32   of the table's bytes
    table     int16 x buckets * features

A network file (`kpnn.bin`, magic b"USIEVNN1") adds the first layer and the square
head (`read_net`, `write_net`); a layered network file (magic b"USIEVNN2", the
NNUE-style head of `kp.Network(..., layers=...)`) is, all little-endian:

    magic     8 bytes  b"USIEVNN2"
    buckets   uint32   45
    features  uint32   2263
    scale     uint32   8
    hidden    uint32   accumulator width (a multiple of 32, at most kp.MAX_HIDDEN)
    layer1    uint32   32
    layer2    uint32   32
    shift     uint32   6 (a layer's sums >> 6, rounded, before the clip to 0..127)
    out_div   uint32   2032 (the output sum in 1/2032 cp: 127 x 16)
    crc32     uint32   of everything after the header
    kp        int16 x 45 * 2263              the KP table, 1/8 cp
    first     int16 x 45 * 2263 * hidden     feature rows, 127 = 1.0
    bias      int16 x hidden
    l1_w      int8  x 32 * 2 * hidden        rows by output; inputs: the side to move's
    l1_b      int32 x 32                     accumulator, then the other's
    l2_w      int8  x 32 * 32
    l2_b      int32 x 32
    l3_w      int16 x 32                     1/16 cp per unit (127) of layer 2
    l3_b      int32                          1/2032 cp

A file that is missing, truncated, of another shape or whose checksum does not match
is refused with `WeightFileError` saying which.

    >>> from usi_engine.eval import weights as eval_weights
    >>> table = eval_weights.read_weights(eval_weights.embedded_kp_path())
    >>> table.dtype, table.shape
    (dtype('int16'), (101835,))
"""
from __future__ import annotations

import dataclasses
import os
import struct
import zlib
from pathlib import Path

import numpy as np

from usi_engine.eval import kp
from usi_engine.eval import nnue_file
from usi_engine.eval.kp import Network
from usi_engine.eval.nnue_file import HalfKpNet

MAGIC = b"USIEVKP1"
HEADER = struct.Struct("<8sIIII")
#: The piece types of the 13 kinds of a view, in order (then the same 13 for the enemy,
#: then the enemy king).
KIND_TYPES = (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14)
#: Where each piece type's counts start among one hand's 38 slots, and how many slots.
HAND_SLOTS = {1: (0, 18), 2: (18, 4), 3: (22, 4), 4: (26, 4), 7: (30, 4), 5: (34, 2), 6: (36, 2)}


class WeightFileError(ValueError):
    """A weight file that cannot be used (the message says why)."""


NET_MAGIC = b"USIEVNN1"
NET_HEADER = struct.Struct("<8sIIIIIII")   # magic, buckets, features, scale, hidden, qa, qb, crc


@dataclasses.dataclass
class NetWeights:
    """The KP table and the network on top of it, as the engine stores them."""
    kp: np.ndarray          # int16 [WEIGHT_COUNT], 1/8 cp
    first: np.ndarray       # int16 [WEIGHT_COUNT, HIDDEN], QA is 1.0
    first_bias: np.ndarray  # int16 [HIDDEN]
    out: np.ndarray         # int16 [2 * HIDDEN], 1/QB cp per unit of x^2
    out_bias: int           # 1/QB cp

    def network(self) -> Network:
        """These weights as the search takes them."""
        return Network(self.kp, self.first, self.first_bias, self.out, self.out_bias)


LAYERED_MAGIC = b"USIEVNN2"
LAYERED_HEADER = struct.Struct("<8sIIIIIIIII")
#: The file's arrays' little-endian types, in file order (kp ... l3_b).
LAYERED_DTYPES = ("<i2", "<i2", "<i2", "i1", "<i4", "i1", "<i4", "<i2", "<i4")


@dataclasses.dataclass
class LayeredWeights:
    """The KP table and the layered (NNUE-style) network on top of it."""
    kp: np.ndarray          # int16 [WEIGHT_COUNT], 1/8 cp
    first: np.ndarray       # int16 [WEIGHT_COUNT, hidden], 127 is 1.0
    first_bias: np.ndarray  # int16 [hidden]
    l1_w: np.ndarray        # int8 [LAYER1, 2 * hidden]
    l1_b: np.ndarray        # int32 [LAYER1]
    l2_w: np.ndarray        # int8 [LAYER2, LAYER1]
    l2_b: np.ndarray        # int32 [LAYER2]
    l3_w: np.ndarray        # int16 [LAYER2]
    l3_b: int               # int32

    @property
    def hidden(self) -> int:
        return int(self.first_bias.size)

    def network(self) -> Network:
        """These weights as the search takes them."""
        return Network(self.kp, self.first, self.first_bias,
                          layers=(self.l1_w, self.l1_b, self.l2_w, self.l2_b, self.l3_w,
                                  self.l3_b))

    def parts(self) -> list[tuple[np.ndarray, str]]:
        """The arrays in file order, each with its little-endian dtype."""
        arrays = [self.kp, self.first, self.first_bias, self.l1_w, self.l1_b, self.l2_w,
                  self.l2_b, self.l3_w, np.array([self.l3_b])]
        return list(zip(arrays, LAYERED_DTYPES))


def _layered_shapes(hidden: int) -> list[tuple[int, ...]]:
    w, l1, l2 = kp.WEIGHT_COUNT, kp.LAYER1, kp.LAYER2
    return [(w,), (w, hidden), (hidden,), (l1, 2 * hidden), (l1,), (l2, l1), (l2,), (l2,), (1,)]


def write_layered(path: str | os.PathLike, net: LayeredWeights) -> None:
    """Write a layered network's weights, atomically (format in the module docstring)."""
    hidden = net.hidden
    if hidden % 32 or not 0 < hidden <= kp.MAX_HIDDEN:
        raise ValueError(f"hidden width {hidden}: a multiple of 32 up to {kp.MAX_HIDDEN}")
    payload = b""
    for (array, dtype), shape in zip(net.parts(), _layered_shapes(hidden)):
        array = np.asarray(array)
        if array.size != int(np.prod(shape)) or np.dtype(dtype).kind != array.dtype.kind:
            raise ValueError(f"expected {dtype} of shape {shape}, got {array.dtype}{list(array.shape)}")
        payload += array.astype(dtype).tobytes()
    header = LAYERED_HEADER.pack(LAYERED_MAGIC, kp.KING_BUCKETS, kp.FEATURES_PER_BUCKET,
                                 kp.SCALE, hidden, kp.LAYER1, kp.LAYER2,
                                 kp.LAYER_SHIFT_BITS, kp.OUT_DIV, zlib.crc32(payload))
    tmp = Path(f"{path}.tmp")
    tmp.write_bytes(header + payload)
    os.replace(tmp, path)


def read_layered(path: str | os.PathLike) -> LayeredWeights:
    """The weights of a layered network file; `WeightFileError` if it cannot be used."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise WeightFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) < LAYERED_HEADER.size:
        raise WeightFileError(f"{path}: truncated ({len(data)} bytes)")
    magic, buckets, features, scale, hidden, l1, l2, shift, out_div, crc = \
        LAYERED_HEADER.unpack_from(data)
    if magic != LAYERED_MAGIC:
        raise WeightFileError(f"{path}: not a layered network file (magic {magic!r})")
    shape = (buckets, features, scale, l1, l2, shift, out_div)
    wanted = (kp.KING_BUCKETS, kp.FEATURES_PER_BUCKET, kp.SCALE, kp.LAYER1, kp.LAYER2,
              kp.LAYER_SHIFT_BITS, kp.OUT_DIV)
    if shape != wanted or hidden % 32 or not 0 < hidden <= kp.MAX_HIDDEN:
        raise WeightFileError(f"{path}: shape {shape} hidden {hidden}, expected {wanted} "
                              f"(buckets, features, scale, layer1, layer2, shift, out_div) "
                              f"and a hidden width that is a multiple of 32 up to {kp.MAX_HIDDEN}")
    dtypes = LAYERED_DTYPES
    shapes = _layered_shapes(hidden)
    sizes = [int(np.prod(s)) * np.dtype(d).itemsize for s, d in zip(shapes, dtypes)]
    expected = LAYERED_HEADER.size + sum(sizes)
    if len(data) != expected:
        raise WeightFileError(f"{path}: {'truncated' if len(data) < expected else 'too long'} "
                              f"({len(data)} bytes, expected {expected})")
    payload = memoryview(data)[LAYERED_HEADER.size:]
    if zlib.crc32(payload) != crc:
        raise WeightFileError(f"{path}: checksum mismatch (damaged file)")
    arrays: list[np.ndarray] = []
    at = 0
    for part_shape, dtype, size in zip(shapes, dtypes, sizes):
        native = np.dtype(dtype).newbyteorder("=")
        arrays.append(np.frombuffer(payload[at:at + size], dtype=dtype).astype(native)
                      .reshape(part_shape))
        at += size
    return LayeredWeights(arrays[0], arrays[1], arrays[2], arrays[3], arrays[4], arrays[5],
                          arrays[6], arrays[7], int(arrays[8][0]))


def embedded_kp_path() -> Path:
    """The king-piece table shipped inside the package (the network's starting point)."""
    return Path(__file__).resolve().parent / "data" / "kp.bin"


def embedded_net_path() -> Path:
    """The network shipped inside the package."""
    return Path(__file__).resolve().parent / "data" / "kpnn.bin"


def embedded_path() -> Path:
    """The weights shipped inside the package (the default of `EvalFile`): the network."""
    return embedded_net_path()


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


def _net_sizes() -> tuple[int, int, int, int]:
    h = kp.HIDDEN
    return kp.WEIGHT_COUNT, kp.WEIGHT_COUNT * h, h, 2 * h


def read_net(path: str | os.PathLike) -> NetWeights:
    """The weights of a network file; `WeightFileError` if it cannot be used."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise WeightFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    sizes = _net_sizes()
    expected = NET_HEADER.size + 2 * sum(sizes) + 4
    if len(data) < NET_HEADER.size:
        raise WeightFileError(f"{path}: truncated ({len(data)} bytes, expected {expected})")
    magic, buckets, features, scale, hidden, qa, qb, crc = NET_HEADER.unpack_from(data)
    if magic != NET_MAGIC:
        raise WeightFileError(f"{path}: not a network weight file (magic {magic!r})")
    shape = (buckets, features, scale, hidden, qa, qb)
    wanted = (kp.KING_BUCKETS, kp.FEATURES_PER_BUCKET, kp.SCALE, kp.HIDDEN, kp.QA, kp.QB)
    if shape != wanted:
        raise WeightFileError(f"{path}: shape {shape}, expected {wanted} (buckets, features, "
                              "scale, hidden, qa, qb)")
    if len(data) != expected:
        raise WeightFileError(f"{path}: {'truncated' if len(data) < expected else 'too long'} "
                              f"({len(data)} bytes, expected {expected})")
    payload = data[NET_HEADER.size:]
    if zlib.crc32(payload) != crc:
        raise WeightFileError(f"{path}: checksum mismatch (damaged file)")
    values = np.frombuffer(payload[:-4], dtype="<i2").astype(np.int16)
    parts = np.split(values, np.cumsum(sizes)[:-1])
    out_bias = int(np.frombuffer(payload[-4:], dtype="<i4")[0])
    return NetWeights(parts[0], parts[1].reshape(kp.WEIGHT_COUNT, kp.HIDDEN), parts[2],
                      parts[3], out_bias)


def write_net(path: str | os.PathLike, net: NetWeights) -> None:
    """Write a network's weights (see `quantize_net`), atomically."""
    arrays = (net.kp, net.first, net.first_bias, net.out)
    for arr, size in zip(arrays, _net_sizes()):
        if arr.dtype != np.int16 or arr.size != size:
            raise ValueError(f"expected int16 arrays of sizes {_net_sizes()}")
    payload = b"".join(a.astype("<i2").tobytes() for a in arrays)
    payload += np.array([net.out_bias], dtype="<i4").tobytes()
    header = NET_HEADER.pack(NET_MAGIC, kp.KING_BUCKETS, kp.FEATURES_PER_BUCKET, kp.SCALE,
                             kp.HIDDEN, kp.QA, kp.QB, zlib.crc32(payload))
    tmp = Path(f"{path}.tmp")
    tmp.write_bytes(header + payload)
    os.replace(tmp, path)


def read_any(path: str | os.PathLike) -> np.ndarray | NetWeights | LayeredWeights | HalfKpNet:
    """A KP table or a network, whichever the file holds (by its magic): this
    engine's files, or YaneuraOu's nn.bin (eval.nnue_file)."""
    try:
        with open(path, "rb") as f:
            magic = f.read(8)
    except OSError as exc:
        raise WeightFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if magic == LAYERED_MAGIC:
        return read_layered(path)
    if magic[:4] == struct.pack("<I", nnue_file.VERSION):
        try:
            return nnue_file.load_net(path)
        except OSError as exc:
            raise WeightFileError(f"cannot read {path}: {exc.strerror or exc}") from None
        except nnue_file.NetFileError as exc:
            raise WeightFileError(f"{path}: {exc}") from None
    return read_net(path) if magic == NET_MAGIC else read_weights(path)


def _to_int16(values: np.ndarray, factor: float) -> np.ndarray:
    scaled = np.rint(np.asarray(values, dtype=np.float64) * factor)
    return np.clip(scaled, -32767, 32767).astype(np.int16)


def quantize_net(kp_cp: np.ndarray, first: np.ndarray, first_bias: np.ndarray,
                 out_cp: np.ndarray, out_bias_cp: float) -> NetWeights:
    """Float weights (KP and output in cp, the first layer in accumulator units) in the
    engine's integers.  The first layer is clipped so that no accumulator of up to
    MAX_ACTIVE features leaves int16."""
    limit = 32767 // (kp.MAX_ACTIVE + 1)
    first_q = np.clip(_to_int16(first, kp.QA), -limit, limit).astype(np.int16)
    bias_q = np.clip(_to_int16(first_bias, kp.QA), -limit, limit).astype(np.int16)
    return NetWeights(quantize(kp_cp), first_q.reshape(kp.WEIGHT_COUNT, kp.HIDDEN), bias_q,
                      _to_int16(out_cp, kp.QB), int(round(out_bias_cp * kp.QB)))


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
    """The hand-written evaluation (`usi_engine.eval.handwritten`) written as KP weights, in
    centipawns: material split between the two views, each piece's distance terms to
    its own and to the enemy king, and the exposed-king terms.  Up to rounding it
    scores every position as the hand-written evaluation does; training starts here."""
    from usi_engine.eval.handwritten import default_weights
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


def random_layered(hidden: int, seed: int = 5) -> LayeredWeights:
    """Layered weights of no strength whose accumulators spread over the clipped range
    and whose layers are neither all clipped nor all zero: what the speed measurements
    (bench/speed/eval_speed.py) and the kernel tests run the layered head on."""
    rng = np.random.default_rng(seed)
    w, l1, l2 = kp.WEIGHT_COUNT, kp.LAYER1, kp.LAYER2
    return LayeredWeights(
        kp=rng.integers(-2000, 2000, w).astype(np.int16),
        first=rng.integers(-20, 24, (w, hidden)).astype(np.int16),
        first_bias=rng.integers(-40, 80, hidden).astype(np.int16),
        l1_w=rng.integers(-128, 128, (l1, 2 * hidden)).astype(np.int8),
        l1_b=rng.integers(-20000, 20000, l1).astype(np.int32),
        l2_w=rng.integers(-128, 128, (l2, l1)).astype(np.int8),
        l2_b=rng.integers(-3000, 3000, l2).astype(np.int32),
        l3_w=rng.integers(-2000, 2000, l2).astype(np.int16),
        l3_b=int(rng.integers(-500000, 500000)))
