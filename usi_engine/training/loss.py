"""The loss both learners fit: the cross-entropy of the predicted win probability.

A position's score v (centipawns, side to move) predicts the win probability
sigmoid(v / scale); its target mixes the search score and the game's result,

    target = lambda * sigmoid(score / scale) + (1 - lambda) * result

(result: 1 win, 0.5 draw, 0 loss), as in Texel tuning and YaneuraOu's learner.  The
loss reported is the cross-entropy above its minimum, the target's own entropy (0 for
a perfect prediction).

    >>> import numpy as np
    >>> loss, grad = excess_cross_entropy(np.zeros(1), np.zeros(1), np.full(1, 0.5), 0.7, 600.0)
    >>> loss, grad.tolist()
    (0.0, [0.0])
"""
from __future__ import annotations

import numpy as np


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), computed as (1 + tanh(x / 2)) / 2 (no overflow)."""
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def excess_cross_entropy(v: np.ndarray, score: np.ndarray, result: np.ndarray,
                         lambda_: float, scale: float) -> tuple[float, np.ndarray]:
    """(mean cross-entropy above the target's entropy, d(loss)/d(v) times `scale` for
    each position, p - target).  The 1 / scale is left out of the gradient: Adam does
    not care about a constant factor, and gradients near 1 keep clear of its epsilon."""
    target = lambda_ * sigmoid(score / scale) + (1 - lambda_) * result
    p = np.clip(sigmoid(v / scale), 1e-12, 1 - 1e-12)
    t = np.clip(target, 1e-12, 1 - 1e-12)
    excess = t * np.log(t / p) + (1 - t) * np.log((1 - t) / (1 - p))
    return float(excess.mean()), p - target
