"""The one place the application reads the wall clock (aware UTC); everything else takes `now`."""

from __future__ import annotations

from datetime import datetime, timezone


def utcnow() -> datetime:
    return datetime.now(timezone.utc)
