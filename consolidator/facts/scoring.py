"""How much a fact is worth keeping now: importance x exp(-(now - last_used) / (strength x tau)).

Pure functions of their arguments (the clock is an argument). Pinned facts never decay: their
score is their importance. Strength is capped by the caller (config `facts.strength_cap`) so
that facts recalled early do not crowd out the rest. A `last_used` in the future counts as now.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import numpy as np


def score(importance: float, strength: float, last_used: datetime, now: datetime, tau: timedelta,
          pinned: bool = False) -> float:
    if pinned:
        return float(importance)
    age = max(0.0, (now - last_used).total_seconds())
    scale = max(strength, 1e-9) * max(tau.total_seconds(), 1e-9)
    return float(importance) * math.exp(-age / scale)


def scores(importance: np.ndarray, strength: np.ndarray, age_s: np.ndarray, tau: timedelta,
           pinned: np.ndarray) -> np.ndarray:
    """`score` over arrays (ages in seconds), for the offline pass over a whole scope."""
    scale = np.maximum(strength, 1e-9) * max(tau.total_seconds(), 1e-9)
    decayed = importance * np.exp(-np.maximum(age_s, 0.0) / scale)
    return np.where(pinned, importance.astype(np.float64), decayed)
