"""Type stub of YaneuraOu's PackedSfen / PackedSfenValue codec (usi_engine/core/packed.pyx)."""
import numpy as np
import numpy.typing as npt

from usi_engine.core.position import Position

PSV_DTYPE: np.dtype

def pack(position: Position) -> bytes:
    """The position as a 32-byte PackedSfen."""
def unpack(data: bytes, ply: int = ...) -> str:
    """The SFEN of a 32-byte PackedSfen; ValueError if malformed."""
def move_to_psv(position: Position, move: int) -> int:
    """Our move int as a PackedSfenValue's 16-bit move."""
def move_from_psv(position: Position, m16: int) -> int:
    """A PackedSfenValue's 16-bit move as our move int; ValueError unless legal."""
def decode_records(records: npt.NDArray) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8],
                                                  npt.NDArray[np.uint8]]:
    """(board[n, 81], hands[n, 2, 8], side[n]) of n PackedSfenValue records."""
