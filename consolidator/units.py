"""Units a setting is written in: durations ("30m", "1h30m", a number of seconds).

A leaf module (the standard library only), so that the model's settings and the daemon's
configuration parse durations the same way without importing each other.
"""

from __future__ import annotations

import math
import re
from datetime import timedelta
from typing import Any

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
MAX_DURATION = timedelta(days=36500)  # 100 years: far beyond any useful setting, far inside a datetime


def parse_duration(value: Any) -> timedelta:
    """Seconds as a number, or a string such as "30m", "1h30m", "45s", "2d"."""
    if isinstance(value, timedelta):
        return value
    if isinstance(value, bool):
        raise ValueError("expected a duration such as \"30m\" or a number of seconds")
    if isinstance(value, (int, float)):
        return _bounded(float(value))
    if isinstance(value, str):
        text = value.strip().replace(" ", "")
        parts = _DURATION.findall(text)
        if parts and "".join(n + u for n, u in parts) == text:
            return _bounded(sum(float(n) * _UNITS[u] for n, u in parts))
    raise ValueError(f"expected a duration such as \"30m\" or a number of seconds, got {short_repr(value)}")


def _bounded(seconds: float) -> timedelta:
    if math.isnan(seconds):
        raise ValueError("a duration must be a number of seconds, not nan")
    if seconds < 0:
        raise ValueError("a duration cannot be negative")
    if seconds > MAX_DURATION.total_seconds():
        raise ValueError(f"a duration must be finite and at most {MAX_DURATION.days}d (100 years)")
    return timedelta(seconds=seconds)


def short_repr(value: Any, limit: int = 40) -> str:
    """A value for an error message: its repr, cut so a huge value cannot flood the line."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
