"""The optimiser of both learners (``usi-engine learn`` and ``learn-net``): Adam, in numpy.

Adam (Kingma and Ba) with beta1 = 0.9, beta2 = 0.999, over a list of parameter arrays
updated in place, each with its own step size at each step (the learners decay them):

    m = 0.9 m + 0.1 g;   v = 0.999 v + 0.001 g^2
    p -= lr * (m / (1 - 0.9^t)) / (sqrt(v / (1 - 0.999^t)) + eps)

The moments have the parameters' shapes and dtypes (float64 for the KP table, float32
for the network).  Where the first moment's bias correction is applied is a setting,
`correct`: ``"moment"`` divides the moment by (1 - 0.9^t), as above; ``"step"`` divides
the step size instead, ``(lr / (1 - 0.9^t)) * m``.  The two are equal in exact
arithmetic and differ in the last bit; `usi_engine.training.learn` uses the first and
`usi_engine.training.learn_net` the second, so that each gives the weights it always
has for the same seed and data.

    >>> import numpy as np
    >>> w = np.zeros(3)
    >>> adam = Adam([w], eps=1e-12)
    >>> adam.step([w], [np.array([1.0, -2.0, 0.0])], [0.5])
    >>> np.round(w, 9).tolist()       # the first step is lr * sign(g), bar epsilon
    [-0.5, 0.5, 0.0]
"""
from __future__ import annotations

from typing import Literal, Sequence

import numpy as np

#: The moments' decay rates.
BETA1 = 0.9
BETA2 = 0.999


class Adam:
    """Adam over a list of arrays (see the module's docstring)."""

    def __init__(self, params: Sequence[np.ndarray], eps: float = 1e-8,
                 correct: Literal["moment", "step"] = "moment") -> None:
        """Moments of zeros shaped as `params`; `eps` is added to the root of the second
        moment; `correct` says where the first moment's bias correction goes."""
        if correct not in ("moment", "step"):
            raise ValueError(f"correct: expected 'moment' or 'step', got {correct!r}")
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0
        self.eps = eps
        self.correct = correct

    def step(self, params: Sequence[np.ndarray], grads: Sequence[np.ndarray],
             lrs: Sequence[float]) -> None:
        """One step: each of `params` (the arrays given at construction, or arrays of
        the same shapes) moves in place against its gradient, with its step size."""
        if not len(params) == len(grads) == len(lrs) == len(self.m):
            raise ValueError(f"{len(self.m)} parameters, got {len(params)} arrays, "
                             f"{len(grads)} gradients and {len(lrs)} step sizes")
        self.t += 1
        c1 = 1 - BETA1 ** self.t
        c2 = 1 - BETA2 ** self.t
        for p, g, m, v, lr in zip(params, grads, self.m, self.v, lrs):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            if self.correct == "moment":
                p -= lr * (m / c1) / (np.sqrt(v / c2) + self.eps)
            else:
                p -= (lr / c1) * m / (np.sqrt(v / c2) + self.eps)
