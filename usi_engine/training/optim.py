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
             lrs: Sequence[float],
             rows: Sequence[np.ndarray | None] | None = None) -> None:
        """One step: each of `params` (the arrays given at construction, or arrays of
        the same shapes) moves in place against its gradient, with its step size.

        `rows` (one entry a parameter, None for a dense one) makes a step sparse: the
        gradient given holds only those rows (unique indices of the parameter's first
        axis), and only they and their moments change, as in PyTorch's SparseAdam
        (lazy Adam: a row's moments decay only at the steps that touch it).

            >>> w = np.zeros((3, 2))
            >>> Adam([w], eps=1e-12).step([w], [np.ones((1, 2))], [0.5], rows=[np.array([2])])
            >>> np.round(w, 9).tolist()     # the last row alone: lr * sign(g)
            [[0.0, 0.0], [0.0, 0.0], [-0.5, -0.5]]
        """
        rows = [None] * len(params) if rows is None else rows
        if not len(params) == len(grads) == len(lrs) == len(self.m) == len(rows):
            raise ValueError(f"{len(self.m)} parameters, got {len(params)} arrays, "
                             f"{len(grads)} gradients, {len(lrs)} step sizes and "
                             f"{len(rows)} row sets")
        self.t += 1
        c1 = 1 - BETA1 ** self.t
        c2 = 1 - BETA2 ** self.t
        for p, g, m, v, lr, index in zip(params, grads, self.m, self.v, lrs, rows):
            if index is None:
                self._update(p, g, m, v, lr, c1, c2)
            else:
                pr, mr, vr = p[index], m[index], v[index]
                self._update(pr, g, mr, vr, lr, c1, c2)
                p[index], m[index], v[index] = pr, mr, vr

    def _update(self, p: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray,
                lr: float, c1: float, c2: float) -> None:
        m *= 0.9
        m += 0.1 * g
        v *= 0.999
        v += 0.001 * g * g
        if self.correct == "moment":
            p -= lr * (m / c1) / (np.sqrt(v / c2) + self.eps)
        else:
            p -= (lr / c1) * m / (np.sqrt(v / c2) + self.eps)
