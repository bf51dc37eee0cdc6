"""Column types shared by every table.

`UTCDateTime` stores aware datetimes as UTC and returns them aware: SQLite gives back naive
values for DateTime(timezone=True), PostgreSQL gives back aware ones; both read back the same.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import DateTime
from sqlalchemy.types import TypeDecorator


class NaiveDatetime(ValueError):
    """A datetime without a time zone reached a column that needs one."""


class UTCDateTime(TypeDecorator):
    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise NaiveDatetime(f"naive datetime {value.isoformat()} (a time zone is required)")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


def utc(value: datetime) -> datetime:
    """Convert an aware datetime to UTC; reject a naive one."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise NaiveDatetime(f"naive datetime {value.isoformat()} (a time zone is required)")
    return value.astimezone(timezone.utc)
