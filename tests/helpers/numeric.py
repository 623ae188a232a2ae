"""Numeric checks the training tests share."""
from __future__ import annotations

from typing import Callable

import numpy as np


def central_difference(loss: Callable[[], float], param: np.ndarray, index: tuple,
                       step: float) -> float:
    """d(loss)/d(param[index]) by central differences (param is restored)."""
    saved_value = param[index]
    param[index] = saved_value + step
    up = loss()
    param[index] = saved_value - step
    down = loss()
    param[index] = saved_value
    return (up - down) / (2 * step)
