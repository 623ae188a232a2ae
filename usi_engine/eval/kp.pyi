"""Type stub of the learned king-piece evaluation (usi_engine/eval/kp.pyx).

    >>> import numpy as np
    >>> from usi_engine import kp
    >>> kp.install(np.zeros(kp.WEIGHT_COUNT, dtype=np.int16))
    >>> kp.evaluate_sfen("startpos")
    0
"""
import numpy as np
import numpy.typing as npt

WEIGHT_COUNT: int
FEATURES_PER_BUCKET: int
KING_BUCKETS: int
SCALE: int
MAX_ACTIVE: int
HAND_SLOTS: int
HIDDEN: int
QA: int
QB: int

def install(weights: npt.NDArray[np.int16]) -> None:
    """Install a table of WEIGHT_COUNT int16 weights (1/8 cp); between searches only."""
def install_net(weights: npt.NDArray[np.int16], first: npt.NDArray[np.int16] | None = None,
                first_bias: npt.NDArray[np.int16] | None = None,
                out: npt.NDArray[np.int16] | None = None, out_bias: int = 0) -> None:
    """Install a KP table and the network on top of it (first layer
    [WEIGHT_COUNT, HIDDEN], its bias, output [2 * HIDDEN] and bias in 1/QB cp)."""
def installed_state() -> tuple[dict[str, npt.NDArray[np.int16]], int] | None:
    """Everything installed, for `restore_state`."""
def restore_state(state: tuple[dict[str, npt.NDArray[np.int16]], int] | None) -> None:
    """Install again what `installed_state` returned."""
def has_net() -> bool:
    """Whether the installed weights include the network."""
def installed() -> npt.NDArray[np.int16] | None:
    """A copy of the installed table (None before `install`)."""
def set_enabled(enabled: bool) -> None:
    """Searches use the learned evaluation (True) or the hand-set one (False)."""
def enabled() -> bool:
    """Whether searches use the learned evaluation."""
def evaluate_sfen(sfen: str) -> int:
    """The installed table's score (cp, side to move) of a position, from scratch."""
def features(board: npt.NDArray[np.uint8], hands: npt.NDArray[np.uint8],
             side: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
    """Active weight indices [n, 2, MAX_ACTIVE] (black's view, white's), padded with
    WEIGHT_COUNT."""
def incremental_check(sfen: str, plies: int, seed: int) -> dict[str, int]:
    """Random walk comparing incremental sums with sums from scratch: checks,
    mismatches and the counts of drops, captures, promotions and king moves."""
