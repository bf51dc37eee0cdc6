"""Column types shared by every table.

`UTCDateTime` owns how a time is stored and compared: always as a naive UTC timestamp
(`timestamp without time zone`), on every database, through the dialect's own processor.
Aware datetimes go in (a naive one is refused) and aware UTC datetimes come out. Every
write path, ORM or bulk, converts through `bind_utc`, so on SQLite (where a timestamp is
text compared as text) every stored value has the same fixed-width form as a bound query
parameter, and a time at exactly a window's boundary compares equal to it.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

from sqlalchemy import DateTime
from sqlalchemy.types import TypeDecorator


class NaiveDatetime(ValueError):
    """A datetime without a time zone reached a column that needs one."""


class UTCDateTime(TypeDecorator):
    impl = DateTime(timezone=False)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise NaiveDatetime(f"naive datetime {value.isoformat()} (a time zone is required)")
        return value.astimezone(timezone.utc).replace(tzinfo=None)

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


def bind_utc(column_type: UTCDateTime, dialect) -> Callable[[datetime | None], object]:
    """The full bind conversion of a UTC column for `dialect` (ours, then the dialect's own),
    looked up once: what the bulk insert path applies so it stores exactly what the ORM does."""
    process = column_type.dialect_impl(dialect).bind_processor(dialect)
    if process is None:
        return lambda value: column_type.process_bind_param(value, dialect)
    return process
