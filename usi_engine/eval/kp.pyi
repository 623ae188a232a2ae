"""Type stub of the learned king-piece evaluation (usi_engine/eval/kp.pyx).

    >>> import numpy as np
    >>> from usi_engine.eval import kp
    >>> kp.Network(np.zeros(kp.WEIGHT_COUNT, dtype=np.int16)).evaluate("startpos")
    0
"""
from typing import Any

import numpy as np
import numpy.typing as npt

WEIGHT_COUNT: int
FEATURES_PER_BUCKET: int
KING_BUCKETS: int
SCALE: int
MAX_ACTIVE: int
HAND_SLOTS: int
HIDDEN: int
MAX_HIDDEN: int
QA: int
QB: int
LAYER1: int
LAYER2: int
LAYER_SHIFT_BITS: int
OUT_DIV: int

def simd() -> str:
    """The network's integer kernels: "avx2" or "portable"."""
def use_avx2(want: bool) -> str:
    """AVX2 kernels if `want` and the CPU has them, else portable; returns simd()."""

class Network:
    """A KP table and, optionally, the network on top of it; a Searcher searches with
    the Network it is given (Searcher.set_evaluation)."""
    def __init__(self, weights: npt.NDArray[np.int16] | None,
                 first: npt.NDArray[np.int16] | None = None,
                 first_bias: npt.NDArray[np.int16] | None = None,
                 out: npt.NDArray[np.int16] | None = None, out_bias: int = 0,
                 layers: tuple[npt.NDArray[np.int8], npt.NDArray[np.int32], npt.NDArray[np.int8],
                               npt.NDArray[np.int32], npt.NDArray[np.int16], int] | None = None,
                 halfkp: Any = None, fv_scale: int = 16) -> None:
        """halfkp: YaneuraOu's halfkp_256x2-32-32 (an eval.nnue_file.HalfKpNet), with
        its FV_SCALE; weights (the KP table) is then None."""
    @property
    def fv_scale(self) -> int:
        """HalfKP: the output's divisor (FV_SCALE); 0 otherwise."""
    def set_fv_scale(self, fv_scale: int) -> None:
        """Change a HalfKP network's FV_SCALE (1..128), not while it searches."""
    @property
    def has_net(self) -> bool: ...
    @property
    def head(self) -> str:
        """"table", "square", "layers" or "halfkp"."""
    @property
    def hidden(self) -> int: ...
    @property
    def out_bias(self) -> int: ...
    def table(self) -> npt.NDArray[np.int16]:
        """A copy of the KP table."""
    def array(self, name: str) -> npt.NDArray[np.int16]:
        """A copy of one part: "kp", "first", "first_bias", "out" or the layers'."""
    def evaluate(self, sfen: str) -> int:
        """The score (cp, side to move) of a position, from scratch."""
    def incremental_check(self, sfen: str, plies: int, seed: int) -> dict[str, int]:
        """Random walk comparing incremental sums with sums from scratch: checks,
        mismatches and the counts of drops, captures, promotions and king moves."""

def features(board: npt.NDArray[np.uint8], hands: npt.NDArray[np.uint8],
             side: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """Active weight indices [n, 2, MAX_ACTIVE] (black's view, white's), padded with
    WEIGHT_COUNT."""
