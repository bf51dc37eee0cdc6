"""Column types shared by every table.

`UTCDateTime` owns how a time is stored and compared: always as a naive UTC timestamp
(`timestamp without time zone`), on every database, through the dialect's own processor.
Aware datetimes go in (a naive one is refused) and aware UTC datetimes come out. Every
write path, ORM or bulk, converts through `bind_utc`, so on SQLite (where a timestamp is
text compared as text) every stored value has the same fixed-width form as a bound query
parameter, and a time at exactly a window's boundary compares equal to it.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
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
    looked up once: what the bulk insert path applies so it stores exactly what the ORM does.
    `_utc_text` wherever it writes what the dialect's processor writes for every probe (a dialect
    that stores DATETIME as text): the import's per-row cost without the processor's format dict."""
    process = column_type.dialect_impl(dialect).bind_processor(dialect)
    if process is None:
        return lambda value: column_type.process_bind_param(value, dialect)
    if all(_utc_text(p) == process(p) for p in _PROBES):
        return _utc_text
    return process


def _utc_text(value: datetime | None) -> str | None:
    """An aware time as the DATETIME text of its UTC instant: "2024-01-02 03:04:05.000006"."""
    return None if value is None else utc(value).replace(tzinfo=None).isoformat(" ", "microseconds")


_PROBES = (None, datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc), datetime(2024, 6, 1, tzinfo=timezone.utc),
           datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=5, minutes=30))),
           datetime(999, 3, 4, 5, 6, 7, tzinfo=timezone(timedelta(hours=-7))))
